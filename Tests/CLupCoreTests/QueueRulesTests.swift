import CLupCore
import Crypto
import Foundation
import XCTest

/// The queue, admission and occupancy rules, one rule per test.
final class QueueRulesTests: XCTestCase {
    let day = BusinessDay("2026-11-21")
    nonisolated(unsafe) static let key = Curve25519.Signing.PrivateKey()
    let issuer = TicketIssuer(store: 7, totem: "A", validMinutes: 240, key: QueueRulesTests.key)
    let keyring = TicketKeyring(store: 7, keys: ["A": QueueRulesTests.key.publicKey])
    /// On the hour, so that slots (of 30 minutes) start at whole half hours from it.
    let start = Date(timeIntervalSince1970: 1_794_999_600)
    var policy = QueuePolicy(capacity: 3, priorityShare: 0, agingBound: 30 * 60, presentationWindow: 5 * 60,
                             bookingEarly: 10 * 60, bookingLate: 15 * 60, slotLength: 30 * 60, bookingShare: 0.5)

    /// Issues and prints a ticket `minutes` after the start.
    @discardableResult
    func printed(_ state: inout DayState, _ lane: Lane, minutes: Double = 0, slot: Date? = nil) throws -> Ticket {
        let request: TicketRequest = switch lane {
        case .regular: .regular
        case .priority: .priority(.elderly)
        case .booking: .booking(slotStart: slot ?? start)
        case .remote: preconditionFailure("a remote ticket is the hub's to issue (RemoteLineTests)")
        }
        let events = try state.issue(request, issuer: issuer, at: Moment(wall: start.addingTimeInterval(minutes * 60)), policy: policy)
        guard case let .ticketIssued(ticket)? = events.first else { throw Refusal.nobodyWaiting }
        state.recordPrinted(ticket.number, job: 1)
        return state.tickets[ticket.number]!
    }

    /// `minutes` after the start, on the wall clock only (as events stored before the
    /// monotonic clock was kept).
    func at(_ minutes: Double) -> Moment { Moment(wall: wall(minutes)) }

    func wall(_ minutes: Double) -> Date { start.addingTimeInterval(minutes * 60) }

    func calledNumbers(_ events: [DomainEvent]) -> [String] {
        events.compactMap { if case let .ticketCalled(number, _, _, _, _) = $0 { return number.description } else { return nil } }
    }

    func test_ticketsAreCalledInArrivalOrderWhileThereIsRoom() throws {
        var state = DayState(businessDay: day)
        for minute in 0..<5 { try printed(&state, .regular, minutes: Double(minute)) }
        XCTAssertEqual(calledNumbers(state.callWhileRoom(at: at(5), policy: policy)), ["A-001", "A-002", "A-003"])
        XCTAssertEqual(state.occupied, 3)
        XCTAssertThrowsError(try state.callNext(at: at(5), policy: policy)) { error in
            XCTAssertEqual(error as? Refusal, .storeFull(occupied: 3, capacity: 3, reserved: 0))
        }
    }

    func test_aPrintingTicketIsNotInTheQueueYet() throws {
        var state = DayState(businessDay: day)
        try state.issue(.regular, issuer: issuer, at: at(0), policy: policy)
        XCTAssertEqual(state.queueLength, 0)
        XCTAssertThrowsError(try state.callNext(at: at(1), policy: policy)) { error in
            XCTAssertEqual(error as? Refusal, .nobodyWaiting)
        }
    }

    func test_priorityGoesBeforeRegularAndSaysWhy() throws {
        var state = DayState(businessDay: day)
        try printed(&state, .regular, minutes: 0)
        try printed(&state, .priority, minutes: 1)
        let events = try state.callNext(at: at(2), policy: policy)
        guard case let .ticketCalled(number, _, _, reason, _)? = events.first else { return XCTFail("no call") }
        XCTAssertEqual(number.description, "AP-001")
        XCTAssertEqual(reason, "priority: before regular tickets")
    }

    func test_aRegularTicketOverTheAgingBoundGoesBeforePriority() throws {
        var state = DayState(businessDay: day)
        try printed(&state, .regular, minutes: 0)
        try printed(&state, .priority, minutes: 20)
        let events = try state.callNext(at: at(31), policy: policy)
        guard case let .ticketCalled(number, _, _, reason, _)? = events.first else { return XCTFail("no call") }
        XCTAssertEqual(number.description, "A-001")
        XCTAssertEqual(reason, "aging: waited 31 min, over the 30 min bound")
    }

    func test_regularTicketsNeverTakeThePlacesKeptForPriority() throws {
        policy.capacity = 10
        policy.priorityShare = 0.2
        var state = DayState(businessDay: day)
        for minute in 0..<12 { try printed(&state, .regular, minutes: Double(minute)) }
        XCTAssertEqual(calledNumbers(state.callWhileRoom(at: at(12), policy: policy)).count, 8)
        try printed(&state, .priority, minutes: 13)
        let events = try state.callNext(at: at(13), policy: policy)
        guard case let .ticketCalled(number, _, _, reason, _)? = events.first else { return XCTFail("no call") }
        XCTAssertEqual(number.description, "AP-001")
        XCTAssertEqual(reason, "priority: a place kept for priority")
    }

    func test_calledTicketExpiresExactlyAtTheEndOfItsWindow() throws {
        var state = DayState(businessDay: day)
        try printed(&state, .regular)
        state.callWhileRoom(at: at(1), policy: policy)
        XCTAssertEqual(state.secondsToNextExpiry(at: at(1), policy: policy), 5 * 60)
        XCTAssertTrue(state.expireWindows(at: Moment(wall: wall(6).addingTimeInterval(-0.001)), policy: policy).isEmpty)
        XCTAssertEqual(state.expireWindows(at: at(6), policy: policy).count, 1)
        XCTAssertEqual(state.tickets.values.first?.state, .noShow)
        XCTAssertEqual(state.occupied, 0, "a no-show frees its place")
    }

    func test_aCalledTicketIsAdmittedOnceAndEntersWithTheNextPassage() throws {
        var state = DayState(businessDay: day)
        let ticket = try printed(&state, .regular)
        state.callWhileRoom(at: at(1), policy: policy)
        let admitted = try state.admit(code: ticket.code, keyring: keyring, at: at(2), policy: policy)
        XCTAssertEqual(admitted, [.ticketAdmitted(ticket.number, businessDay: day, at: wall(2))])
        XCTAssertThrowsError(try state.admit(code: ticket.code, keyring: keyring, at: at(2), policy: policy)) { error in
            XCTAssertEqual(error as? Refusal, .alreadyUsed("A-001"))
        }
        state.pass(.entry, door: "main", at: at(2.1))
        XCTAssertEqual(state.tickets[ticket.number]?.state, .entered)
        XCTAssertEqual(state.inside, 1)
        XCTAssertEqual(state.occupied, 1)
    }

    func test_theDoorRefusesEachBadScanWithItsReason() throws {
        var state = DayState(businessDay: day)
        let waiting = try printed(&state, .regular)
        XCTAssertThrowsError(try state.admit(code: "NOT A CODE", keyring: keyring, at: at(1), policy: policy)) { error in
            XCTAssertEqual(error as? Refusal, .unreadable("not a CLup ticket code"))
        }
        XCTAssertThrowsError(try state.admit(code: waiting.code, keyring: keyring, at: at(1), policy: policy)) { error in
            XCTAssertEqual(error as? Refusal, .notCalledYet("A-001"))
        }
        state.callWhileRoom(at: at(1), policy: policy)
        XCTAssertThrowsError(try state.admit(code: waiting.code, keyring: keyring, at: at(7), policy: policy)) { error in
            XCTAssertEqual(error as? Refusal, .noShow("A-001"))
        }
        try state.issue(.regular, issuer: issuer, at: at(8), policy: policy)
        let printing = state.tickets.values.first { $0.state == .printing }!
        XCTAssertThrowsError(try state.admit(code: printing.code, keyring: keyring, at: at(8), policy: policy)) { error in
            XCTAssertEqual(error as? Refusal, .notPrinted("A-002"))
        }
    }

    func test_anAdmissionNobodyUsesLapsesAndTheTicketIsCalledAgain() throws {
        var state = DayState(businessDay: day)
        let ticket = try printed(&state, .regular)
        state.callWhileRoom(at: at(1), policy: policy)
        try state.admit(code: ticket.code, keyring: keyring, at: at(2), policy: policy)
        XCTAssertEqual(state.secondsToNextExpiry(at: at(2), policy: policy), policy.passWindow)
        XCTAssertTrue(state.expireWindows(at: Moment(wall: wall(2).addingTimeInterval(policy.passWindow - 0.001)), policy: policy).isEmpty)
        let lapsed = state.expireWindows(at: Moment(wall: wall(2).addingTimeInterval(policy.passWindow)), policy: policy)
        XCTAssertEqual(lapsed, [.admissionLapsed(ticket.number, businessDay: day, at: wall(2).addingTimeInterval(policy.passWindow))])
        XCTAssertEqual(state.tickets[ticket.number]?.state, .called, "they may scan again while their window lasts")
        XCTAssertNoThrow(try state.admit(code: ticket.code, keyring: keyring, at: at(3), policy: policy))
    }

    func test_onlyATicketThePrinterFailedIsReprinted() throws {
        var state = DayState(businessDay: day)
        let events = try state.issue(.regular, issuer: issuer, at: at(0), policy: policy)
        guard case let .ticketIssued(ticket)? = events.first else { return XCTFail() }
        XCTAssertThrowsError(try state.reprint(ticket.number, by: "staff")) { error in
            XCTAssertEqual(error as? Refusal, .notReprintable("A-001", "printing"))
        }
        state.recordPrintFailed(ticket.number, reason: "E-PRN-003 printer out of paper")
        XCTAssertEqual(try state.reprint(ticket.number, by: "staff"), [.ticketReprinted(ticket.number, businessDay: day, by: "staff")])
        XCTAssertEqual(state.tickets[ticket.number]?.state, .printing)
        XCTAssertNil(state.tickets[ticket.number]?.failureReason)
    }

    func test_aBookingIsAdmittedOnlyWithinItsWindow() throws {
        var state = DayState(businessDay: day)
        let slot = wall(60)
        let booking = try printed(&state, .booking, slot: slot)
        XCTAssertThrowsError(try state.admit(code: booking.code, keyring: keyring, at: at(49), policy: policy)) { error in
            XCTAssertEqual(error as? Refusal, .outsideBookingWindow("AB-001"))
        }
        XCTAssertThrowsError(try state.admit(code: booking.code, keyring: keyring, at: at(75.5), policy: policy))
        XCTAssertNoThrow(try state.admit(code: booking.code, keyring: keyring, at: at(50), policy: policy))
    }

    func test_anExpectedBookingKeepsItsPlaceFromRegularCalls() throws {
        var state = DayState(businessDay: day)
        try printed(&state, .booking, slot: wall(30))
        for minute in 0..<4 { try printed(&state, .regular, minutes: Double(minute)) }
        XCTAssertEqual(calledNumbers(state.callWhileRoom(at: at(25), policy: policy)).count, 2,
                       "one of three places is kept for the booking whose window is open")
    }

    func test_aPriorityTicketDoesNotTakeAPlaceKeptForABooking() throws {
        var state = DayState(businessDay: day)
        try printed(&state, .booking, slot: wall(30))
        for minute in 0..<2 { try printed(&state, .regular, minutes: Double(minute)) }
        XCTAssertEqual(calledNumbers(state.callWhileRoom(at: at(2), policy: policy)).count, 2, "before the booking's window")
        state.pass(.entry, door: "main", at: at(3))
        try printed(&state, .priority, minutes: 21)
        state.pass(.exit, door: "main", at: at(22))
        XCTAssertTrue(state.callWhileRoom(at: at(22), policy: policy).isEmpty,
                      "the one free place is the booking's, whose window is open")
    }

    /// A booking made through the hub for the slot at `slot`, signed with `key`.
    func hubBooking(_ sequence: Int, slot: Date, key: Curve25519.Signing.PrivateKey) -> String {
        TicketCode.make(TicketPayload(store: 7, hubBooking: sequence, slotStart: slot, slotMinutes: 30), signedWith: key)
    }

    func test_aHubBookingIsAdmittedOnceWithinItsWindowOnly() throws {
        let hub = Curve25519.Signing.PrivateKey()
        let keyring = TicketKeyring(store: 7, keys: ["A": Self.key.publicKey, "Z": hub.publicKey], ownTotem: "A")
        var state = DayState(businessDay: day)
        let code = hubBooking(3, slot: wall(60), key: hub)
        for minutes: Double in [49, 75.5, 60 * 24] {
            XCTAssertThrowsError(try state.admit(code: code, keyring: keyring, at: at(minutes), policy: policy)) { error in
                guard case .outsideBookingWindow? = error as? Refusal else { return XCTFail("\(minutes) min: \(error)") }
            }
        }
        let events = try state.admit(code: code, keyring: keyring, at: at(55), policy: policy)
        XCTAssertEqual(events.map(\.type), ["ticket.from-other-door", "ticket.admitted"])
        XCTAssertEqual(state.tickets[TicketNumber("ZB-003")!]?.slotStart, wall(60))
        XCTAssertEqual(state.occupied, 1, "an admitted booking holds its place until the pass")
        XCTAssertThrowsError(try state.admit(code: code, keyring: keyring, at: at(56), policy: policy)) { error in
            XCTAssertEqual(error as? Refusal, .alreadyUsed("ZB-003"))
        }
        // The turnstile did not turn: within its window the booking may try again.
        state.lapseAdmission(TicketNumber("ZB-003")!, at: at(57))
        XCTAssertNoThrow(try state.admit(code: code, keyring: keyring, at: at(70), policy: policy))
    }

    func test_aHubBookingCancelledForgedOrUsedElsewhereIsRefused() throws {
        let hub = Curve25519.Signing.PrivateKey()
        let keyring = TicketKeyring(store: 7, keys: ["A": Self.key.publicKey, "Z": hub.publicKey], ownTotem: "A")
        var state = DayState(businessDay: day)
        let cancelled = OtherDoors(cancelled: [TicketNumber("ZB-001")!])
        XCTAssertThrowsError(try state.admit(code: hubBooking(1, slot: wall(60), key: hub), keyring: keyring, at: at(60),
                                             policy: policy, otherDoors: cancelled)) { error in
            XCTAssertEqual(error as? Refusal, .bookingCancelled("ZB-001"))
        }
        let used = OtherDoors(used: [TicketNumber("ZB-002")!])
        XCTAssertThrowsError(try state.admit(code: hubBooking(2, slot: wall(60), key: hub), keyring: keyring, at: at(60),
                                             policy: policy, otherDoors: used)) { error in
            XCTAssertEqual(error as? Refusal, .alreadyUsed("ZB-002 (at another door)"))
        }
        XCTAssertThrowsError(try state.admit(code: hubBooking(4, slot: wall(60), key: Curve25519.Signing.PrivateKey()),
                                             keyring: keyring, at: at(60), policy: policy)) { error in
            XCTAssertEqual(error as? Refusal, .forged, "signed by anyone but the hub")
        }
        // The slot moved an hour later in the signed bytes: the signature no longer matches.
        var bytes = try Base45.decode(hubBooking(5, slot: wall(60), key: hub))
        let moved = UInt32(wall(120).timeIntervalSince1970)
        bytes.replaceSubrange(9..<13, with: withUnsafeBytes(of: moved.bigEndian) { Array($0) })
        XCTAssertThrowsError(try state.admit(code: Base45.encode(bytes), keyring: keyring, at: at(120), policy: policy)) { error in
            XCTAssertEqual(error as? Refusal, .forged)
        }
        XCTAssertThrowsError(try state.admit(code: hubBooking(6, slot: wall(60), key: hub), keyring: TicketKeyring(store: 7,
                             keys: ["A": Self.key.publicKey], ownTotem: "A"), at: at(60), policy: policy)) { error in
            XCTAssertEqual(error as? Refusal, .unknownTotem("Z"), "a door that never heard the hub's booking key")
        }
        XCTAssertTrue(state.tickets.isEmpty, "no refused booking joined the day")
    }

    func test_aHubBookingKeepsItsPlaceWhileItsWindowIsOpen() throws {
        let hub = Curve25519.Signing.PrivateKey()
        let keyring = TicketKeyring(store: 7, keys: ["A": Self.key.publicKey, "Z": hub.publicKey], ownTotem: "A")
        var policy = policy
        var settings = StoreSettingsDocument(version: 2, capacity: 3, priorityShare: 0, bookingShare: 0.5)
        settings.bookings = [.init(number: "ZB-001", slotStart: wall(30).timeIntervalSince1970)]
        XCTAssertNil(settings.problem)
        policy = settings.applied(to: policy)
        var early = DayState(businessDay: day)
        for minute in 0..<4 { try printed(&early, .regular, minutes: Double(minute)) }
        XCTAssertEqual(calledNumbers(early.callWhileRoom(at: at(10), policy: policy)).count, 3, "before its window")
        var state = DayState(businessDay: day)
        for minute in 0..<4 { try printed(&state, .regular, minutes: Double(minute)) }
        XCTAssertEqual(calledNumbers(state.callWhileRoom(at: at(25), policy: policy)), ["A-001", "A-002"],
                       "one of the three places is kept for the booking whose window is open")
        try state.admit(code: hubBooking(1, slot: wall(30), key: hub), keyring: keyring, at: at(26), policy: policy)
        XCTAssertEqual(state.occupied, 3)
        settings.bookings = [.init(number: "AB-001", slotStart: 0)]
        XCTAssertNotNil(settings.problem, "a totem's number among the hub's bookings")
    }

    func test_aTicketScannedAgainAfterComingInLeavesOnce() throws {
        var state = DayState(businessDay: day)
        let ticket = try printed(&state, .regular)
        _ = state.callWhileRoom(at: at(1), policy: policy)
        try state.admit(code: ticket.code, keyring: keyring, at: at(2), policy: policy)
        state.pass(.entry, door: "main", at: at(2))
        XCTAssertEqual(try state.admit(code: ticket.code, keyring: keyring, at: at(25), policy: policy),
                       [.ticketLeft(ticket.number, businessDay: day, at: wall(25))])
        XCTAssertEqual(state.tickets[ticket.number]?.leftAt, wall(25))
        XCTAssertEqual(state.inside, 1, "the exit pulse, not the scan, counts the person out")
        XCTAssertThrowsError(try state.admit(code: ticket.code, keyring: keyring, at: at(26), policy: policy)) { error in
            guard case .alreadyUsed? = error as? Refusal else { return XCTFail("\(error)") }
        }
    }

    func test_aHubBookingNeedsAFreePlace() throws {
        let hub = Curve25519.Signing.PrivateKey()
        let keyring = TicketKeyring(store: 7, keys: ["A": Self.key.publicKey, "Z": hub.publicKey], ownTotem: "A")
        var state = DayState(businessDay: day)
        for _ in 0..<3 { state.pass(.entry, door: "main", at: at(50)) }
        XCTAssertThrowsError(try state.admit(code: hubBooking(1, slot: wall(60), key: hub), keyring: keyring, at: at(55),
                                             policy: policy)) { error in
            guard case .storeFull? = error as? Refusal else { return XCTFail("\(error)") }
        }
        state.pass(.exit, door: "main", at: at(56))
        XCTAssertNoThrow(try state.admit(code: hubBooking(1, slot: wall(60), key: hub), keyring: keyring, at: at(57), policy: policy))
    }

    func test_aSlotTakesNoMoreBookingsThanItsShare() throws {
        var state = DayState(businessDay: day)
        try printed(&state, .booking, slot: wall(60))
        XCTAssertThrowsError(try state.issue(.booking(slotStart: wall(60)), issuer: issuer, at: at(1), policy: policy)) { error in
            guard case .slotFull? = error as? Refusal else { return XCTFail("\(error)") }
        }
        XCTAssertNoThrow(try state.issue(.booking(slotStart: wall(90)), issuer: issuer, at: at(1), policy: policy))
        XCTAssertThrowsError(try state.issue(.booking(slotStart: wall(100)), issuer: issuer, at: at(1), policy: policy)) { error in
            XCTAssertEqual(error as? Refusal, .noSuchSlot, "10:10 is not the start of a slot")
        }

    }

    func test_withAHubATotemIssuesOnlyItsOwnShareOfASlotAndTheHubsBookingsDoNotCount() throws {
        var policy = policy
        policy.ownBookingsPerSlot = 1
        var state = DayState(businessDay: day)
        try state.joinHubBooking(TicketNumber("ZB-001")!, slot: wall(60), code: "from the hub", at: at(0))
        try printed(&state, .booking, slot: wall(60))
        XCTAssertEqual(state.ownBookings(of: wall(60), totem: "A"), 1)
        XCTAssertThrowsError(try state.issue(.booking(slotStart: wall(60)), issuer: issuer, at: at(1), policy: policy)) { error in
            guard case .slotFull? = error as? Refusal else { return XCTFail("\(error)") }
        }
        policy.ownBookingsPerSlot = 0
        XCTAssertThrowsError(try state.issue(.booking(slotStart: wall(90)), issuer: issuer, at: at(1), policy: policy),
                             "a share of none: the hub books every place")
    }

    func test_aHubBookingPrintedHereIsAdmittedOnlyOncePrintedAndWithinItsWindow() throws {
        let hub = Curve25519.Signing.PrivateKey()
        let keyring = TicketKeyring(store: 7, keys: ["A": Self.key.publicKey, "Z": hub.publicKey], ownTotem: "A")
        var state = DayState(businessDay: day)
        let code = hubBooking(1, slot: wall(60), key: hub)
        let number = TicketNumber("ZB-001")!
        XCTAssertThrowsError(try state.joinHubBooking(TicketNumber("A-001")!, slot: wall(60), code: code, at: at(0)))
        let events = try state.joinHubBooking(number, slot: wall(60), code: code, at: at(0))
        XCTAssertEqual(events.map(\.type), ["ticket.issued"])
        XCTAssertEqual(state.tickets[number]?.state, .printing)
        XCTAssertThrowsError(try state.joinHubBooking(number, slot: wall(60), code: code, at: at(1)), "printed here once")
        XCTAssertThrowsError(try state.admit(code: code, keyring: keyring, at: at(55), policy: policy)) { error in
            XCTAssertEqual(error as? Refusal, .notPrinted("ZB-001"))
        }
        state.recordPrinted(number, job: 1)
        XCTAssertThrowsError(try state.admit(code: code, keyring: keyring, at: at(40), policy: policy)) { error in
            guard case .outsideBookingWindow? = error as? Refusal else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try state.admit(code: code, keyring: keyring, at: at(55), policy: policy).map(\.type), ["ticket.admitted"])
    }

    func test_theHubsOpeningHoursAndTotemShareAreChecked() {
        var settings = StoreSettingsDocument(version: 2, capacity: 10, priorityShare: 0, bookingShare: 0.5)
        settings.hours = .init(opensMinute: 8 * 60, closesMinute: 24 * 60)
        settings.totemBookingPlaces = 2
        XCTAssertNil(settings.problem)
        XCTAssertEqual(settings.hours?.description, "08:00–24:00")
        XCTAssertEqual(settings.applied(to: policy).ownBookingLimit, 2)
        settings.hours = .init(opensMinute: 20 * 60, closesMinute: 8 * 60)
        XCTAssertNotNil(settings.problem, "closing before opening")
        settings.hours = .init(opensMinute: -1, closesMinute: 8 * 60)
        XCTAssertNotNil(settings.problem)
        settings.hours = nil
        settings.totemBookingPlaces = 1001
        XCTAssertNotNil(settings.problem)
    }

    func test_aCorrectionCountsFromWhatTheTechnicianSees() throws {
        var state = DayState(businessDay: day)
        state.pass(.exit, door: "main", at: at(0))
        state.pass(.exit, door: "main", at: at(0))
        XCTAssertEqual(state.inside, 0)
        try state.correct(door: "main", delta: 1, by: "tech", reason: "one person inside", at: at(1))
        XCTAssertEqual(state.inside, 1, "+1 on a shown 0 is one person inside, whatever the raw count was")
        XCTAssertEqual(state.ledger(door: "main").corrections, 3)
    }

    func test_aCorrectionNeedsAReasonAndCannotGoBelowZero() throws {
        var state = DayState(businessDay: day)
        state.pass(.entry, door: "main", at: at(0))
        XCTAssertThrowsError(try state.correct(door: "main", delta: -2, by: "tech", reason: "miscount", at: at(1))) { error in
            XCTAssertEqual(error as? Refusal, .correctionBelowZero(count: 1, delta: -2))
        }
        XCTAssertThrowsError(try state.correct(door: "main", delta: 1, by: "tech", reason: "  ", at: at(1))) { error in
            XCTAssertEqual(error as? Refusal, .correctionWithoutReason)
        }
        let events = try state.correct(door: "main", delta: -1, by: "tech", reason: "counted twice", at: at(1))
        XCTAssertEqual(events, [.occupancyCorrected(door: "main", businessDay: day, delta: -1, by: "tech",
                                                    reason: "counted twice", at: wall(1))])
        XCTAssertEqual(state.inside, 0)
    }

    func test_aPriorityTicketKeepsOnlyTheCategoryOfItsReason() throws {
        var state = DayState(businessDay: day)
        let events = try state.issue(.priority(.pregnant), issuer: issuer, at: at(0), policy: policy)
        guard case let .ticketIssued(ticket)? = events.first else { return XCTFail() }
        XCTAssertEqual(ticket.number.description, "AP-001")
        XCTAssertEqual(ticket.priorityReason, .pregnant)
        XCTAssertNil(ticket.slotStart)
    }

    func test_numbersContinueAfterAFailedPrint() throws {
        var state = DayState(businessDay: day)
        let events = try state.issue(.regular, issuer: issuer, at: at(0), policy: policy)
        guard case let .ticketIssued(first)? = events.first else { return XCTFail() }
        state.recordPrintFailed(first.number, reason: "E-PRN-003 printer out of paper")
        let second = try printed(&state, .regular, minutes: 1)
        XCTAssertEqual(second.number.description, "A-002")
        XCTAssertEqual(state.queueLength, 1)
    }
}
