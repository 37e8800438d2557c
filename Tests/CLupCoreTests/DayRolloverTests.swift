import CLupCore
import Crypto
import Foundation
import XCTest

/// A store open across the start of a business day, and a wall clock that is stepped while
/// windows run.
final class DayRolloverTests: XCTestCase {
    nonisolated(unsafe) static let key = Curve25519.Signing.PrivateKey()
    let issuer = TicketIssuer(store: 7, totem: "A", validMinutes: 240, key: DayRolloverTests.key)
    let keyring = TicketKeyring(store: 7, keys: ["A": DayRolloverTests.key.publicKey], ownTotem: "A")
    let policy = QueuePolicy(capacity: 2, priorityShare: 0, presentationWindow: 5 * 60)
    let evening = Date(timeIntervalSince1970: 1_795_000_000)

    func moment(_ seconds: Double, wallStep: Double = 0) -> Moment {
        Moment(wall: evening.addingTimeInterval(seconds + wallStep), steady: SteadyTime(boot: "b", seconds: 100 + seconds))
    }

    /// Two printed tickets, the first called and through the turnstile, the second called
    /// and on its way, a third waiting.
    func busyEvening() throws -> DayState {
        var state = DayState(businessDay: BusinessDay("2026-11-21"))
        for _ in 0..<3 {
            let events = try state.issue(.regular, issuer: issuer, at: moment(0), policy: policy)
            guard case let .ticketIssued(ticket)? = events.first else { throw Refusal.nobodyWaiting }
            state.recordPrinted(ticket.number, job: 1)
        }
        state.callWhileRoom(at: moment(10), policy: policy)
        let first = state.tickets.values.first { $0.number.sequence == 1 }!
        try state.admit(code: first.code, keyring: keyring, at: moment(20), policy: policy)
        state.pass(.entry, door: "main", at: moment(21))
        return state
    }

    func test_peopleInsideAndTicketsInPlayCarryOverIntoTheNewDay() throws {
        let yesterday = try busyEvening()
        var today = DayState(businessDay: BusinessDay("2026-11-22"))
        let events = today.open(after: yesterday, at: moment(60), ticketValidity: 4 * 3600)
        XCTAssertEqual(events.count, 1)
        XCTAssertEqual(today.inside, 1, "the person who came in before the day's start is still inside")
        XCTAssertEqual(today.occupied, 2, "and the called ticket still holds its place")
        XCTAssertEqual(today.tickets.values.map(\.number.description).sorted(), ["A-002", "A-003"])
        XCTAssertEqual(today.queueLength, 1, "A-003 keeps its place in the queue")
        XCTAssertTrue(today.open(after: yesterday, at: moment(61), ticketValidity: 4 * 3600).isEmpty, "a day opens once")
    }

    func test_numbersStartAgainAndSkipOnesStillHeld() throws {
        var yesterday = DayState(businessDay: BusinessDay("2026-11-21"))
        try yesterday.issue(.regular, issuer: issuer, at: moment(0), policy: policy)
        var today = DayState(businessDay: BusinessDay("2026-11-22"))
        today.open(after: yesterday, at: moment(60), ticketValidity: 4 * 3600)
        let events = try today.issue(.regular, issuer: issuer, at: moment(70), policy: policy)
        guard case let .ticketIssued(ticket)? = events.first else { return XCTFail("no ticket") }
        XCTAssertEqual(ticket.number.description, "A-002", "A-001 of yesterday is still printing")
        XCTAssertEqual(ticket.businessDay, today.businessDay)
    }

    func test_ticketsPastTheirValidityAndUsedOnesStayBehind() throws {
        let yesterday = try busyEvening()
        var today = DayState(businessDay: BusinessDay("2026-11-22"))
        today.open(after: yesterday, at: moment(5 * 3600), ticketValidity: 4 * 3600)
        XCTAssertTrue(today.tickets.isEmpty, "tickets issued 5 hours ago with 4 hours' validity")
        XCTAssertEqual(today.inside, 1)
    }

    func test_aWallClockStepInsideTheWindowNeitherEndsNorStretchesIt() throws {
        for step in [3600.0, -3600.0] {
            var state = try busyEvening()
            let called = state.tickets.values.first { $0.number.sequence == 2 }!
            // Called at 10 s; the window is 5 minutes on the monotonic clock.
            XCTAssertTrue(state.expireWindows(at: moment(200, wallStep: step), policy: policy).isEmpty,
                          "a step of \(step) s ended the window early")
            XCTAssertEqual(state.secondsToNextExpiry(at: moment(200, wallStep: step), policy: policy), 110)
            XCTAssertNoThrow(try state.admit(code: called.code, keyring: keyring, at: moment(300, wallStep: step), policy: policy))
            var late = try busyEvening()
            XCTAssertEqual(late.expireWindows(at: moment(310, wallStep: step), policy: policy).count, 1,
                           "a step of \(step) s stretched the window")
        }
    }

    func test_afterARebootTheWindowIsMeasuredOnTheWallClock() throws {
        var state = try busyEvening()
        let rebooted = Moment(wall: evening.addingTimeInterval(200), steady: SteadyTime(boot: "after reboot", seconds: 5))
        XCTAssertTrue(state.expireWindows(at: rebooted, policy: policy).isEmpty)
        let later = Moment(wall: evening.addingTimeInterval(310), steady: SteadyTime(boot: "after reboot", seconds: 115))
        XCTAssertEqual(state.expireWindows(at: later, policy: policy).count, 1)
    }

    /// What no version of the totem should have stored, and one did: absurd counts and times.
    /// Every figure is still computed, and nothing traps.
    func test_absurdStoredEventsAreFiguredWithoutTrapping() throws {
        let day = BusinessDay("2026-11-21")
        let far = Date(timeIntervalSinceReferenceDate: 1e300)
        var events: [DomainEvent] = [
            .occupancyCorrected(door: "main", businessDay: day, delta: .max, by: "x", reason: "x", at: far),
            .occupancyCorrected(door: "side", businessDay: day, delta: .max, by: "x", reason: "x", at: far),
            .occupancyCorrected(door: "main", businessDay: day, delta: .min, by: "x", reason: "x", at: far),
            .dayOpened(businessDay: day, after: nil, inside: ["main": .max, "back": .min], tickets: [], at: far),
            .passage(direction: .exit, door: "main", businessDay: day, at: far, ticket: nil),
            .passage(direction: .exit, door: "main", businessDay: day, at: Date(timeIntervalSinceReferenceDate: -1e300), ticket: nil),
        ]
        var state = try busyEvening()
        events.forEach { state.apply($0) }
        for now in [moment(0), Moment(wall: far), Moment(wall: Date(timeIntervalSinceReferenceDate: -1e300))] {
            _ = (state.inside, state.occupied, state.promised, state.queueLength)
            _ = state.nextCall(at: now, policy: policy)
            _ = state.estimatedWait(for: .regular, at: now, policy: policy, defaultMinutes: 10).description
            _ = state.secondsToNextExpiry(at: now, policy: policy)
            var copy = state
            copy.expireWindows(at: now, policy: policy)
            copy.callWhileRoom(at: now, policy: policy)
            _ = try? copy.correct(door: "main", delta: -5, by: "tech", reason: "recount", at: now)
            _ = try? copy.correct(door: "main", toCount: 3, by: "tech", reason: "recount", at: now)
        }
        XCTAssertEqual(state.ledger(door: "main").count, Int.max - 2, "an absurd count, still counting the two exits")
        var fixed = state
        try fixed.correct(door: "main", toCount: 3, by: "tech", reason: "counted", at: moment(0))
        XCTAssertEqual(fixed.ledger(door: "main").inside, 3, "a technician's count puts it right")
    }
}
