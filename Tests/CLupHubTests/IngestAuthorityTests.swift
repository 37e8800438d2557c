@testable import CLupHub
import CLupCore
import CLupProtocol
import Foundation
import XCTest

/// What a totem's batch may change at the hub: its own door's figures and its own tickets
/// (or another door's ticket it admitted once the hub said it was called), each seq once.
final class IngestAuthorityTests: XCTestCase {
    let day = BusinessDay.today

    /// `ticket` issued and printed (as job `job`) at its door: waiting.
    func printed(_ ticket: Ticket, job: Int) -> [DomainEvent] {
        [.ticketIssued(ticket), .ticketPrinted(ticket.number, businessDay: day, job: job)]
    }

    /// `ticket` issued, printed and called at its door.
    func called(_ ticket: Ticket, job: Int) -> [DomainEvent] {
        printed(ticket, job: job) + [.ticketCalled(ticket.number, businessDay: day, at: Date(), reason: "next", steady: nil)]
    }

    func passage(_ direction: PassageDirection, door: String, ticket: TicketNumber? = nil) -> DomainEvent {
        .passage(direction: direction, door: door, businessDay: day, at: Date(), ticket: ticket, steady: nil)
    }

    func test_anEventPostgresRefusesIsADeadLetterWithItsReason_andTheRestOfTheBatchIsStoredAndAcknowledged() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let ingest = Ingest(database: hub.database)
            // A rule of the database the hub does not check itself: corrections of 7 people refused.
            _ = try hub.sql("ALTER TABLE occupancy ADD CONSTRAINT no_seven CHECK (corrections <> 7)")
            let ticket = a.ticket(1, day: day)
            let events = printed(ticket, job: 1) + [
                .occupancyCorrected(door: "north", businessDay: day, delta: 7, by: "tech", reason: "count", at: Date()),
                passage(.entry, door: "north"),
            ]
            let reply = try await ingest.apply(a.batch(a.upload(events)), from: a.device)
            XCTAssertEqual(reply.acknowledged, 4)
            XCTAssertEqual(reply.deadLettered, 1)
            let reason = try hub.sql("SELECT seq, reason FROM dead_letter")
            XCTAssertTrue(reason.hasPrefix("3|PostgreSQL refused it: 23514"), reason)
            XCTAssertEqual(try hub.sql("SELECT number, state FROM ticket"), "\(ticket.number)|waiting")
            XCTAssertEqual(try hub.sql("SELECT entries, corrections FROM occupancy WHERE door = 'north'"), "1|0")
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM event"), "3")
        }
    }

    func test_aSeqSentAgainWithOtherContentOnAnotherDayIsADeadLetterAndStoredOnce() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let ingest = Ingest(database: hub.database)
            let reply = try await ingest.apply(a.batch(a.upload([passage(.entry, door: "north")])), from: a.device)
            XCTAssertEqual(reply.acknowledged, 1)
            // Seq 1 again, another event on another business day (the partition key differs).
            let yesterday = BusinessDay(CivilDay.text(CivilDay.number(day.date)! - 1))
            let other = DomainEvent.passage(direction: .exit, door: "north", businessDay: yesterday, at: Date(), ticket: nil, steady: nil)
            let again = try await ingest.apply(a.batch([TestTotem.uploaded(other, seq: 1)]), from: a.device)
            XCTAssertEqual(again.acknowledged, 1)
            XCTAssertEqual(again.deadLettered, 1)
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM event WHERE device_id = '\(a.device.deviceID)' AND seq = 1"), "1")
            XCTAssertEqual(try hub.sql("SELECT reason FROM dead_letter WHERE seq = 1"), "seq 1 was received before with different content")
            XCTAssertEqual(try hub.sql("SELECT entries, exits FROM occupancy WHERE door = 'north'"), "1|0")
        }
    }

    func test_anAcknowledgedSeqSentAgainWithOtherContentIsADeadLetter() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let ingest = Ingest(database: hub.database)
            _ = try await ingest.apply(a.batch(a.upload([passage(.entry, door: "north"), passage(.entry, door: "north")])), from: a.device)
            let forged = TestTotem.uploaded(passage(.exit, door: "north"), seq: 1)
            let reply = try await ingest.apply(a.batch([forged]), from: a.device)
            XCTAssertEqual(reply.acknowledged, 2)
            XCTAssertEqual(reply.deadLettered, 1)
            XCTAssertEqual(try hub.sql("SELECT seq, reason FROM dead_letter"), "1|seq 1 was received before with different content")
            XCTAssertEqual(try hub.sql("SELECT entries, exits FROM occupancy WHERE door = 'north'"), "2|0")
            // The same content again (a lost answer) changes nothing and is no dead letter.
            let retry = try await ingest.apply(a.batch([TestTotem.uploaded(passage(.entry, door: "north"), seq: 3)]), from: a.device)
            XCTAssertEqual(retry.acknowledged, 3)
            let replay = try hub.sql("SELECT payload FROM event WHERE seq = 3")
            let resent = UploadedEvent(seq: 3, wallTime: Date().timeIntervalSince1970, type: "occupancy.passage", payload: replay)
            let second = try await ingest.apply(a.batch([resent]), from: a.device)
            XCTAssertEqual(second.deadLettered, 0)
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM dead_letter"), "1")
        }
    }

    func test_passagesAndCorrectionsNamingAnotherDoorAreDeadLetters() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            _ = try await hub.enrol("B", door: "south")
            let events = a.upload([
                passage(.entry, door: "south"),
                passage(.entry, door: "nobody-stands-here"),
                .occupancyCorrected(door: "south", businessDay: day, delta: 5, by: "tess", reason: "counted", at: Date()),
                passage(.entry, door: "north"),
            ])
            let reply = try await Ingest(database: hub.database).apply(a.batch(events), from: a.device)
            XCTAssertEqual(reply.acknowledged, 4)
            XCTAssertEqual(reply.deadLettered, 3)
            XCTAssertEqual(try hub.sql("SELECT door, entries, corrections FROM occupancy ORDER BY door"), "north|1|0")
            XCTAssertEqual(try hub.sql("SELECT reason FROM dead_letter ORDER BY seq LIMIT 1"),
                           "occupancy.passage names door \"south\"; this totem is enrolled at door \"north\"")
        }
    }

    func test_aDoorCannotChangeAnotherTotemsTicket() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let b = try await hub.enrol("B", door: "south")
            let ingest = Ingest(database: hub.database)
            let ticket = a.ticket(1, day: day)
            _ = try await ingest.apply(a.batch(a.upload(called(ticket, job: 1))), from: a.device)
            let forged = b.upload([
                .ticketVoided(ticket.number, businessDay: day, at: Date(), by: "tess", reason: "x"),
                .ticketIssued(Ticket(number: TicketNumber(totem: "A", lane: .regular, sequence: 9), businessDay: day, issuedAt: Date(),
                                     state: .printing, code: "FORGED")),
            ])
            let reply = try await ingest.apply(b.batch(forged), from: b.device)
            XCTAssertEqual(reply.deadLettered, 2)
            XCTAssertEqual(try hub.sql("SELECT number, state FROM ticket ORDER BY number"), "A-001|called")
        }
    }

    func test_aDoorAdmitsAnotherDoorsTicketOnlyOnceTheHubKnowsItWasCalled() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let b = try await hub.enrol("B", door: "south")
            let ingest = Ingest(database: hub.database)
            let called = a.ticket(1, day: day), waiting = a.ticket(2, day: day)
            _ = try await ingest.apply(a.batch(a.upload(self.called(called, job: 1) + printed(waiting, job: 2))), from: a.device)
            var arrived = called
            arrived.state = .called
            var early = waiting
            early.state = .called
            let reply = try await ingest.apply(b.batch(b.upload([
                .ticketFromOtherDoor(arrived, at: Date()),
                .ticketAdmitted(called.number, businessDay: day, at: Date(), steady: nil),
                passage(.entry, door: "south", ticket: called.number),
                .ticketLeft(called.number, businessDay: day, at: Date()),
                // Never called at its door: this door may not take it.
                .ticketFromOtherDoor(early, at: Date()),
                .ticketAdmitted(waiting.number, businessDay: day, at: Date(), steady: nil),
            ])), from: b.device)
            XCTAssertEqual(reply.acknowledged, 6)
            XCTAssertEqual(reply.deadLettered, 2)
            XCTAssertEqual(try hub.sql("SELECT number, state, admitted_by IS NOT NULL, left_at IS NOT NULL FROM ticket ORDER BY number"),
                           "A-001|entered|t|t\nA-002|waiting|f|f")
            XCTAssertEqual(try hub.sql("SELECT door, entries FROM occupancy ORDER BY door"), "south|1")
        }
    }

    func test_aDayOpenedAtADoorCarriesItsOwnFiguresOnlyAndLeavesAnotherDoorsTicketAlone() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let b = try await hub.enrol("B", door: "south")
            let ingest = Ingest(database: hub.database)
            let ticket = a.ticket(1, day: day)
            _ = try await ingest.apply(a.batch(a.upload(called(ticket, job: 1))), from: a.device)
            var stale = ticket
            stale.state = .waiting
            let reply = try await ingest.apply(b.batch(b.upload([
                // Its own door's people and, among the tickets in play, one of door A's.
                .dayOpened(businessDay: day, after: nil, inside: ["south": 2], tickets: [stale], at: Date()),
                .dayOpened(businessDay: day, after: nil, inside: ["north": 3], tickets: [], at: Date()),
            ])), from: b.device)
            XCTAssertEqual(reply.acknowledged, 2)
            XCTAssertEqual(reply.deadLettered, 1)
            XCTAssertEqual(try hub.sql("SELECT door, carried FROM occupancy ORDER BY door"), "south|2")
            XCTAssertEqual(try hub.sql("SELECT number, state FROM ticket"), "A-001|called")
        }
    }

    func test_aTicketWhoseAdmissionLapsedAtItsDoorIsTakenInAtAnotherAndAPassageAlwaysCounts() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let b = try await hub.enrol("B", door: "south")
            let ingest = Ingest(database: hub.database)
            let lapsed = a.ticket(1, day: day), waiting = a.ticket(2, day: day), late = a.ticket(3, day: day)
            _ = try await ingest.apply(a.batch(a.upload(called(lapsed, job: 1) + [
                // Admitted at its own door, but the turnstile did not turn.
                .ticketAdmitted(lapsed.number, businessDay: day, at: Date(), steady: nil),
                .admissionLapsed(lapsed.number, businessDay: day, at: Date()),
            ] + printed(waiting, job: 2) + called(late, job: 3))), from: a.device)
            var arrived = lapsed
            arrived.state = .called
            var other = late
            other.state = .called
            let reply = try await ingest.apply(b.batch(b.upload([
                .ticketFromOtherDoor(arrived, at: Date()),
                .ticketAdmitted(lapsed.number, businessDay: day, at: Date(), steady: nil),
                passage(.entry, door: "south", ticket: lapsed.number),
                // A person went through naming a ticket this door never took in: they count, the ticket stays.
                passage(.entry, door: "south", ticket: waiting.number),
                // Taken in, then its window ran out at this door.
                .ticketFromOtherDoor(other, at: Date()),
                .ticketNoShow(late.number, businessDay: day, at: Date()),
            ])), from: b.device)
            XCTAssertEqual(reply.acknowledged, 6)
            let reasons = try hub.sql("SELECT reason FROM dead_letter")
            XCTAssertEqual(reply.deadLettered, 0, reasons)
            XCTAssertEqual(try hub.sql("SELECT number, state FROM ticket ORDER BY number"), "A-001|entered\nA-002|waiting\nA-003|no-show")
            XCTAssertEqual(try hub.sql("SELECT door, entries FROM occupancy ORDER BY door"), "south|2")
        }
    }

    /// Where two doors' news cross, CLupCore's rules hold at the hub (`TicketState.changeable`):
    /// the issuing door's no-show and void, arriving after the holder went in at another door,
    /// leave the ticket entered; the same void of a ticket still waiting voids it.
    func test_aNoShowOrAVoidArrivingAfterTheHolderWentInElsewhereLeavesTheTicketIn() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let b = try await hub.enrol("B", door: "south")
            let ingest = Ingest(database: hub.database)
            let walked = a.ticket(1, day: day), waiting = a.ticket(2, day: day)
            _ = try await ingest.apply(a.batch(a.upload(called(walked, job: 1) + printed(waiting, job: 2))), from: a.device)
            var arrived = walked
            arrived.state = .called
            _ = try await ingest.apply(b.batch(b.upload([
                .ticketFromOtherDoor(arrived, at: Date()),
                .ticketAdmitted(walked.number, businessDay: day, at: Date(), steady: nil),
                passage(.entry, door: "south", ticket: walked.number),
            ])), from: b.device)
            // Door A, offline meanwhile, saw its window end and a technician void it; and voids its waiting one.
            let reply = try await ingest.apply(a.batch(a.upload([
                .ticketNoShow(walked.number, businessDay: day, at: Date()),
                .ticketVoided(walked.number, businessDay: day, at: Date(), by: "tess", reason: "did not come"),
                .ticketVoided(waiting.number, businessDay: day, at: Date(), by: "tess", reason: "printed twice"),
            ])), from: a.device)
            let reasons = try hub.sql("SELECT reason FROM dead_letter")
            XCTAssertEqual(reply.deadLettered, 0, reasons)
            XCTAssertEqual(try hub.sql("SELECT number, state FROM ticket ORDER BY number"), "A-001|entered\nA-002|voided")
        }
    }

    func test_aDoorIssuesABookingOnlyIfTheHubBookedItForThatDoor() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let ingest = Ingest(database: hub.database)
            let forged = Ticket(number: TicketNumber(totem: TicketPayload.hubLetter, lane: .booking, sequence: 7), businessDay: day,
                                issuedAt: Date(), state: .printing, code: "FORGED")
            let reply = try await ingest.apply(a.batch(a.upload([.ticketIssued(forged)])), from: a.device)
            XCTAssertEqual(reply.deadLettered, 1)
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM ticket"), "0")
        }
    }
}
