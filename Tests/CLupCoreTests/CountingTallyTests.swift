@testable import CLupCore
import Foundation
import XCTest

/// A door's counting figures from its events: entries with no release, releases nobody
/// used, exits while the turnstile was released for an entry; per business day.
final class CountingTallyTests: XCTestCase {
    let today = BusinessDay("2026-11-29")
    let yesterday = BusinessDay("2026-11-28")
    let at = Date(timeIntervalSince1970: 1_795_000_000)

    func number(_ sequence: Int) -> TicketNumber { TicketNumber(totem: "A", lane: .regular, sequence: sequence) }
    func entry(_ ticket: TicketNumber?, door: String = "north", day: BusinessDay? = nil) -> DomainEvent {
        .passage(direction: .entry, door: door, businessDay: day ?? today, at: at, ticket: ticket)
    }
    func exit(door: String = "north") -> DomainEvent { .passage(direction: .exit, door: door, businessDay: today, at: at, ticket: nil) }
    func admitted(_ sequence: Int) -> DomainEvent { .ticketAdmitted(number(sequence), businessDay: today, at: at) }

    func test_eachKindOfPassageTheCountCannotVouchForIsCountedOnItsDay() {
        var tally = CountingTally(door: "north")
        let events: [DomainEvent] = [
            entry(nil, day: yesterday),                                  // yesterday: one tailgater
            .dayOpened(businessDay: today, after: yesterday, inside: [:], tickets: [], at: at),
            admitted(1), entry(number(1)),                               // a release used: nothing
            entry(nil), entry(nil),                                      // two through with no release
            admitted(2), exit(),                                         // out while released for 2
            .admissionLapsed(number(2), businessDay: today, at: at),     // 2 never came
            exit(),                                                      // out, nothing released: fine
            admitted(3), .ticketVoided(number(3), businessDay: today, at: at, by: "tess", reason: "lost"), exit(),
        ]
        for event in events { tally.record(event) }
        XCTAssertEqual(tally.report(today: today.date), [
            DoorCounting(day: yesterday.date, door: "north", withoutRelease: 1),
            DoorCounting(day: today.date, door: "north", withoutRelease: 2, releasesUnused: 1, wrongWay: 1),
        ])
    }

    func test_aDayWithNothingToCountIsReportedForTheTotemsDoorAndOldDaysAreForgotten() {
        var tally = CountingTally(door: "south")
        XCTAssertEqual(tally.report(today: today.date), [DoorCounting(day: today.date, door: "south")])
        for day in ["2026-11-26", "2026-11-27", "2026-11-28"] {
            tally.record(entry(nil, door: "south", day: BusinessDay(day)))
            tally.record(.dayOpened(businessDay: BusinessDay(day), after: nil, inside: [:], tickets: [], at: at))
        }
        XCTAssertEqual(tally.report(today: "2026-11-28").map(\.day), ["2026-11-27", "2026-11-28"], "the latest two days")
    }

    func test_aTicketStillAdmittedWhenTheDayOpenedKeepsTheTurnstileReleased() {
        var tally = CountingTally(door: "north")
        let ticket = Ticket(number: number(9), businessDay: yesterday, issuedAt: at, state: .admitted, code: "CLUP1-x")
        tally.record(.dayOpened(businessDay: today, after: yesterday, inside: [:], tickets: [ticket], at: at))
        tally.record(exit())
        XCTAssertEqual(tally.report(today: today.date).last?.wrongWay, 1)
    }

    func test_whatTheHubTakesIsADayOfTheCalendarADoorAndCountsADoorCouldHave() {
        XCTAssertTrue(DoorCounting(day: "2026-02-28", door: "north", withoutRelease: 3).isSane)
        XCTAssertFalse(DoorCounting(day: "2026-02-31", door: "north").isSane)
        XCTAssertFalse(DoorCounting(day: "9999-99-99", door: "north").isSane)
        XCTAssertFalse(DoorCounting(day: "2026-11-29'; --", door: "north").isSane)
        XCTAssertFalse(DoorCounting(day: "2026-11-29", door: "north\nx").isSane)
        XCTAssertFalse(DoorCounting(day: "2026-11-29", door: "north", wrongWay: -1).isSane)
    }
}
