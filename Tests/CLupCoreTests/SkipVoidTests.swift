import CLupCore
import Crypto
import Foundation
import XCTest

/// A technician's care of the queue: skipping a called ticket whose holder did not come,
/// and voiding a ticket, with why each is refused.
final class SkipVoidTests: XCTestCase {
    let day = BusinessDay("2026-11-21")
    nonisolated(unsafe) static let key = Curve25519.Signing.PrivateKey()
    let issuer = TicketIssuer(store: 7, totem: "A", validMinutes: 240, key: SkipVoidTests.key)
    let keyring = TicketKeyring(store: 7, keys: ["A": SkipVoidTests.key.publicKey], ownTotem: "A")
    let policy = QueuePolicy(capacity: 2, priorityShare: 0, presentationWindow: 5 * 60)
    let start = Date(timeIntervalSince1970: 1_795_000_000)

    func wall(_ minutes: Double) -> Date { start.addingTimeInterval(minutes * 60) }

    func at(_ minutes: Double) -> Moment { Moment(wall: wall(minutes)) }

    func number(_ text: String) -> TicketNumber { TicketNumber(text)! }

    /// Issues a regular ticket `minutes` after the start; printed unless told otherwise.
    /// Every event goes into `log`.
    @discardableResult
    func issued(_ state: inout DayState, _ log: inout [DomainEvent], minutes: Double = 0, printed: Bool = true) throws -> Ticket {
        let events = try state.issue(.regular, issuer: issuer, at: at(minutes), policy: policy)
        log += events
        guard case let .ticketIssued(ticket)? = events.first else { throw Refusal.nobodyWaiting }
        if printed { log += state.recordPrinted(ticket.number, job: 1) }
        return state.tickets[ticket.number]!
    }

    /// Three printed tickets: called (the store holds two), A-003 waiting.
    func twoCalledOneWaiting(_ log: inout [DomainEvent]) throws -> DayState {
        var state = DayState(businessDay: day)
        for _ in 0..<3 { try issued(&state, &log) }
        log += state.callWhileRoom(at: at(1), policy: policy)
        return state
    }

    func calledNumbers(_ events: [DomainEvent]) -> [String] {
        events.compactMap { if case let .ticketCalled(number, _, _, _, _) = $0 { return number.description } else { return nil } }
    }

    /// `run` is refused with `expected`, whose code is `code`, and changes nothing of `state`.
    func assertRefused(_ state: inout DayState, _ expected: Refusal, _ code: ErrorCode,
                       _ run: (inout DayState) throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
        let before = state
        XCTAssertThrowsError(try run(&state), file: file, line: line) { error in
            XCTAssertEqual(error as? Refusal, expected, file: file, line: line)
            XCTAssertEqual((error as? Refusal)?.coded.errorCode, code, file: file, line: line)
        }
        XCTAssertEqual(state, before, "a refused command changes nothing", file: file, line: line)
    }

    // MARK: Skip

    func test_aSkippedTicketIsANoShowAndItsPlaceIsFree() throws {
        var log: [DomainEvent] = []
        var state = try twoCalledOneWaiting(&log)
        XCTAssertEqual(state.promised, 2)
        let events = try state.skip(number: number("A-001"), by: "tech", at: at(2))
        XCTAssertEqual(events, [.ticketSkipped(number("A-001"), businessDay: day, at: wall(2), by: "tech")])
        XCTAssertEqual(events.map(\.type), ["ticket.skipped"])
        XCTAssertEqual(state.tickets[number("A-001")]?.state, .noShow)
        XCTAssertEqual(state.promised, 1, "its place is free at once, before its window ends")
        XCTAssertEqual(calledNumbers(state.callWhileRoom(at: at(2), policy: policy)), ["A-003"], "the next settle calls the next one")
        assertRefused(&state, .noShow("A-001"), .noShow) { state in
            _ = try state.admit(code: state.tickets[TicketNumber("A-001")!]!.code, keyring: keyring, at: at(3), policy: policy)
        }
    }

    func test_onlyACalledTicketIsSkipped() throws {
        var log: [DomainEvent] = []
        var state = try twoCalledOneWaiting(&log)
        assertRefused(&state, .unknownTicket("A-099"), .unknownTicket) { state in
            _ = try state.skip(number: TicketNumber("A-099")!, by: "tech", at: at(2))
        }
        assertRefused(&state, .skipNotCalled("A-003"), .notCalledYet) { state in
            _ = try state.skip(number: TicketNumber("A-003")!, by: "tech", at: at(2))
        }
        XCTAssertEqual(Refusal.skipNotCalled("A-003").coded.message, "ticket A-003 has not been called yet: only a called ticket is skipped")

        try state.admit(code: state.tickets[number("A-001")]!.code, keyring: keyring, at: at(2), policy: policy)
        assertRefused(&state, .atTheDoor("A-001"), .alreadyUsed) { state in
            _ = try state.skip(number: TicketNumber("A-001")!, by: "tech", at: at(2))
        }
        state.pass(.entry, door: "main", at: at(2.1))
        XCTAssertEqual(state.tickets[number("A-001")]?.state, .entered)
        assertRefused(&state, .alreadyInside("A-001"), .alreadyUsed) { state in
            _ = try state.skip(number: TicketNumber("A-001")!, by: "tech", at: at(3))
        }

        state.expireWindows(at: at(6), policy: policy)
        XCTAssertEqual(state.tickets[number("A-002")]?.state, .noShow)
        assertRefused(&state, .alreadyNoShow("A-002"), .noShow) { state in
            _ = try state.skip(number: TicketNumber("A-002")!, by: "tech", at: at(6))
        }

        let printing = try issued(&state, &log, minutes: 7, printed: false)
        assertRefused(&state, .skipNotPrinted(printing.number.description), .notPrinted) { state in
            _ = try state.skip(number: printing.number, by: "tech", at: at(7))
        }
        state.recordPrintFailed(printing.number, reason: "E-PRN-003 printer out of paper")
        assertRefused(&state, .skipNotPrinted(printing.number.description), .notPrinted) { state in
            _ = try state.skip(number: printing.number, by: "tech", at: at(7))
        }

        // A-003 still waits (nothing was called since); once voided, it is not skipped either.
        XCTAssertEqual(state.tickets[number("A-003")]?.state, .waiting)
        try state.void(number: number("A-003"), by: "tech", reason: "gave up", at: at(8))
        assertRefused(&state, .alreadyVoided("A-003"), .alreadyVoided) { state in
            _ = try state.skip(number: TicketNumber("A-003")!, by: "tech", at: at(8))
        }
    }

    // MARK: Void

    /// The totem and the hub read one rule for what a skip or a void may change: for every
    /// state a ticket can be in, the totem skips it only if the hub's projection would take
    /// the skip, and never voids a ticket whose holder went in, which the hub keeps so.
    func test_theTotemsSkipsAndVoidsKeepToTheRulesTheHubApplies() throws {
        let skip = DomainEvent.ticketSkipped(number("A-001"), businessDay: day, at: wall(2), by: "tess")
        let void = DomainEvent.ticketVoided(number("A-001"), businessDay: day, at: wall(2), by: "tess", reason: "dup")
        let a1 = number("A-001")
        for state in TicketState.allCases {
            var log: [DomainEvent] = []
            var day = DayState(businessDay: self.day)
            try issued(&day, &log, printed: false)
            // The ticket brought to `state` as its event would.
            let reaching: DomainEvent? = switch state {
            case .printing: nil
            case .waiting: .ticketPrinted(a1, businessDay: self.day, job: 1)
            case .called: .ticketCalled(a1, businessDay: self.day, at: wall(1), reason: "test")
            case .admitted: .ticketAdmitted(a1, businessDay: self.day, at: wall(1))
            case .entered: .passage(direction: .entry, door: "A", businessDay: self.day, at: wall(1), ticket: a1)
            case .noShow: .ticketNoShow(a1, businessDay: self.day, at: wall(1))
            case .printFailed: .ticketPrintFailed(a1, businessDay: self.day, reason: "test")
            case .voided: .ticketVoided(a1, businessDay: self.day, at: wall(1), by: "tess", reason: "test")
            }
            if let reaching { day.apply(reaching) }
            XCTAssertEqual(day.tickets[a1]?.state, state)
            var forVoid = day
            let skipped = (try? day.skip(number: a1, by: "tess", at: at(2))) != nil
            XCTAssertEqual(skipped, TicketState.changeable(by: skip)!.contains(state), "skip from \(state)")
            let voided = (try? forVoid.void(number: a1, by: "tess", reason: "dup", at: at(2))) != nil
            if voided { XCTAssertTrue(TicketState.changeable(by: void)!.contains(state), "void from \(state)") }
            XCTAssertFalse(voided && state.wentIn, "a void undoing an admission, from \(state)")
        }
        XCTAssertNil(TicketState.changeable(by: .ticketLeft(number("A-001"), businessDay: day, at: wall(2))))
    }

    func test_aWaitingOrCalledTicketIsVoidedAndLeavesTheQueue() throws {
        var log: [DomainEvent] = []
        var state = try twoCalledOneWaiting(&log)
        XCTAssertEqual(state.queueLength, 1)
        let waiting = try state.void(number: number("A-003"), by: "tech", reason: "  customer gave up \n", at: at(2))
        XCTAssertEqual(waiting, [.ticketVoided(number("A-003"), businessDay: day, at: wall(2), by: "tech", reason: "customer gave up")])
        XCTAssertEqual(waiting.map(\.type), ["ticket.voided"])
        XCTAssertEqual(state.tickets[number("A-003")]?.state, .voided)
        XCTAssertEqual(state.queueLength, 0)

        XCTAssertEqual(state.promised, 2)
        try state.void(number: number("A-002"), by: "tech", reason: "duplicate ticket", at: at(2))
        XCTAssertEqual(state.tickets[number("A-002")]?.state, .voided)
        XCTAssertEqual(state.promised, 1, "a called ticket voided frees its place")
        try issued(&state, &log, minutes: 3)
        XCTAssertEqual(calledNumbers(state.callWhileRoom(at: at(3), policy: policy)), ["A-004"])

        let failed = try issued(&state, &log, minutes: 4, printed: false)
        state.recordPrintFailed(failed.number, reason: "E-PRN-003 printer out of paper")
        try state.void(number: failed.number, by: "tech", reason: "customer left", at: at(4))
        XCTAssertEqual(state.tickets[failed.number]?.state, .voided)
        XCTAssertFalse(TicketState.voided.holdsAPlace)
        XCTAssertEqual(TicketState.voided.rawValue, "voided")
    }

    func test_whoAndWhyAreBounded() throws {
        var log: [DomainEvent] = []
        var state = try twoCalledOneWaiting(&log)
        let events = try state.void(number: number("A-003"), by: String(repeating: "t", count: 500),
                                    reason: String(repeating: "r", count: DayState.maximumReason), at: at(2))
        guard case let .ticketVoided(_, _, _, who, why)? = events.first else { return XCTFail("\(events)") }
        XCTAssertEqual(who.count, DayState.maximumStaffName)
        XCTAssertEqual(why.count, DayState.maximumReason, "a reason within the bound is kept whole")
        let skipped = try state.skip(number: number("A-001"), by: String(repeating: "t", count: 500), at: at(2))
        guard case let .ticketSkipped(_, _, _, skipper)? = skipped.first else { return XCTFail("\(skipped)") }
        XCTAssertEqual(skipper.count, DayState.maximumStaffName)
    }

    /// A reason is kept for good and shown in the log, the ledger and at the hub: one line of
    /// plain text, bounded the same for a void and a correction, else refused with its code.
    func test_aReasonThatIsLongOrHoldsControlsIsRefusedForVoidAndCorrection() throws {
        var log: [DomainEvent] = []
        var state = try twoCalledOneWaiting(&log)
        let hostile = ["dup\u{1B}]0;pwned\u{07}", "dup\n1999-01-01T00:00:00Z  technician tess  login  ok", "a\u{0}b",
                       String(repeating: "r", count: 60_000), "e" + String(repeating: "\u{301}", count: 60_000), String(repeating: "r", count: DayState.maximumReason + 1)]
        for reason in hostile {
            XCTAssertThrowsError(try state.void(number: number("A-003"), by: "tess", reason: reason, at: at(2))) { error in
                let coded = (error as? Refusal)?.coded
                XCTAssertEqual(coded?.errorCode, .reasonNotOneLine)
                XCTAssertFalse(TypedText.hasControls(coded?.message ?? "\n"), "the message quotes no control")
                XCTAssertLessThan(coded?.message.count ?? .max, 200, "nor the reason itself")
            }
            XCTAssertThrowsError(try state.correct(door: "main", delta: 1, by: "tess", reason: reason, at: at(2))) { error in
                XCTAssertEqual((error as? Refusal)?.coded.errorCode, .reasonNotOneLine)
            }
            XCTAssertThrowsError(try state.correct(door: "main", toCount: 3, by: "tess", reason: reason, at: at(2))) { error in
                XCTAssertEqual((error as? Refusal)?.coded.errorCode, .reasonNotOneLine)
            }
        }
        XCTAssertEqual(state.tickets[number("A-003")]?.state, .waiting, "nothing was voided")
        XCTAssertEqual(state.ledger(door: "main").corrections, 0, "nor corrected")
        // A trailing newline is trimmed, as blanks always were: the reason left is one line.
        try state.void(number: number("A-003"), by: "tess", reason: "printed twice\n", at: at(2))
        XCTAssertEqual(state.tickets[number("A-003")]?.state, .voided)
    }

    func test_aVoidNeedsAReasonAndHappensOnce() throws {
        var log: [DomainEvent] = []
        var state = try twoCalledOneWaiting(&log)
        assertRefused(&state, .voidWithoutReason, .voidWithoutReason) { state in
            _ = try state.void(number: TicketNumber("A-003")!, by: "tech", reason: " \n\t ", at: at(2))
        }
        assertRefused(&state, .voidWithoutReason, .voidWithoutReason) { state in
            _ = try state.void(number: TicketNumber("A-003")!, by: "tech", reason: "", at: at(2))
        }
        try state.void(number: number("A-003"), by: "tech", reason: "gave up", at: at(2))
        assertRefused(&state, .alreadyVoided("A-003"), .alreadyVoided) { state in
            _ = try state.void(number: TicketNumber("A-003")!, by: "tech", reason: "gave up", at: at(2))
        }
        assertRefused(&state, .unknownTicket("A-099"), .unknownTicket) { state in
            _ = try state.void(number: TicketNumber("A-099")!, by: "tech", reason: "gave up", at: at(2))
        }
    }

    func test_aTicketAtTheDoorInsideOrGoneIsNotVoided() throws {
        var log: [DomainEvent] = []
        var state = try twoCalledOneWaiting(&log)
        try state.admit(code: state.tickets[number("A-001")]!.code, keyring: keyring, at: at(2), policy: policy)
        assertRefused(&state, .atTheDoor("A-001"), .alreadyUsed) { state in
            _ = try state.void(number: TicketNumber("A-001")!, by: "tech", reason: "wrong ticket", at: at(2))
        }
        XCTAssertTrue(Refusal.atTheDoor("A-001").coded.message.hasSuffix("the turnstile was released for it"))
        state.pass(.entry, door: "main", at: at(2.1))
        assertRefused(&state, .alreadyInside("A-001"), .alreadyUsed) { state in
            _ = try state.void(number: TicketNumber("A-001")!, by: "tech", reason: "wrong ticket", at: at(3))
        }
        state.expireWindows(at: at(6), policy: policy)
        assertRefused(&state, .alreadyNoShow("A-002"), .noShow) { state in
            _ = try state.void(number: TicketNumber("A-002")!, by: "tech", reason: "wrong ticket", at: at(6))
        }
        let printing = try issued(&state, &log, minutes: 7, printed: false)
        assertRefused(&state, .stillPrinting(printing.number.description), .notPrinted) { state in
            _ = try state.void(number: printing.number, by: "tech", reason: "wrong ticket", at: at(7))
        }
    }

    // MARK: The door

    func test_aVoidedTicketIsRefusedAtTheDoor() throws {
        var log: [DomainEvent] = []
        var state = try twoCalledOneWaiting(&log)
        for text in ["A-001", "A-003"] {
            try state.void(number: number(text), by: "tech", reason: "lost", at: at(2))
            assertRefused(&state, .voided(text), .voidedTicket) { state in
                _ = try state.admit(code: state.tickets[TicketNumber(text)!]!.code, keyring: keyring, at: at(3), policy: policy)
            }
        }
        XCTAssertEqual(Refusal.voided("A-003").coded.message, "ticket A-003 was voided by staff")
        XCTAssertEqual(Refusal.voided("A-003").coded.code, "E-DOOR-009")
    }

    // MARK: Days and replay

    func test_voidedTicketsStayBehindAtTheDayStart() throws {
        var log: [DomainEvent] = []
        var yesterday = try twoCalledOneWaiting(&log)
        try yesterday.void(number: number("A-003"), by: "tech", reason: "gave up", at: at(2))
        var today = DayState(businessDay: BusinessDay("2026-11-22"))
        today.open(after: yesterday, at: at(60), ticketValidity: 4 * 3600)
        XCTAssertEqual(today.tickets.values.map(\.number.description).sorted(), ["A-001", "A-002"])
    }

    func test_replayingSkipsAndVoidsRebuildsTheState() throws {
        var log: [DomainEvent] = []
        var state = try twoCalledOneWaiting(&log)
        log += try state.skip(number: number("A-001"), by: "tech", at: at(2))
        log += try state.void(number: number("A-002"), by: "tech", reason: "duplicate", at: at(2))
        log += state.callWhileRoom(at: at(2), policy: policy)
        try issued(&state, &log, minutes: 3)
        log += try state.void(number: number("A-004"), by: "tech", reason: "gave up", at: at(3))
        XCTAssertEqual(state.tickets[number("A-001")]?.state, .noShow)
        XCTAssertEqual(state.tickets[number("A-002")]?.state, .voided)
        XCTAssertEqual(state.tickets[number("A-003")]?.state, .called)
        XCTAssertEqual(state.tickets[number("A-004")]?.state, .voided)
        XCTAssertEqual(DayState.replaying(log, businessDay: day), state)
        // As the event log stores them.
        let stored = try JSONDecoder().decode([DomainEvent].self, from: JSONEncoder().encode(log))
        XCTAssertEqual(stored, log)
        XCTAssertEqual(DayState.replaying(stored, businessDay: day), state)
        XCTAssertTrue(log.allSatisfy { $0.businessDay == day })
    }
}
