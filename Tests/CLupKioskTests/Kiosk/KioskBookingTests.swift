import CLupHardware
import CLupPrinting
import CLupCore
@testable import CLupKiosk
import CLupProtocol
import Crypto
import Synchronization
import XCTest

/// "Book a later time" at the totem: today's free slots, a place booked through the hub when
/// it has one, else from the totem's own share (offline too); the booking prints with its
/// time and is admitted at the door within its window.
final class KioskBookingTests: XCTestCase {
    /// The hub's booking key (letter Z), as a store's totems learn it with the settings.
    nonisolated(unsafe) static let bookingKey = try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 9, count: 32))

    /// The harness's clock is 11:30 UTC: today's slots (30 min) from it start at 11:30, 12:00, …
    static let noon = Date(timeIntervalSince1970: 1_795_347_000 + 1800)


    func choices(_ totem: KioskHarness) throws -> [SlotChoice] {
        guard case let .choosingSlot(choices) = totem.kiosk.screens.flow.screen else {
            XCTFail("the screen is \(totem.kiosk.screens.flow.screen.name), not the choice of a time")
            return []
        }
        return choices
    }

    func test_withoutAHubTheTotemBooksFromItsOwnShareAndTheDoorAdmitsItAtItsTime() throws {
        let totem = try KioskHarness()
        totem.approach()
        XCTAssertEqual(totem.kiosk.screens.geometry.buttons(on: .welcome).map(\.action).dropLast(3).suffix(2), [.getTicket, .bookLater])
        _ = try totem.press(.bookLater)
        let offered = try choices(totem)
        XCTAssertEqual(offered.map(\.time), ["11:30", "12:00", "12:30", "13:00"], "the next four slots of today")
        XCTAssertEqual(offered.first?.own, 9, "30 places × 0.3 booking share")
        XCTAssertEqual(totem.kiosk.screens.geometry.buttons(on: totem.kiosk.screens.flow.screen).map(\.action), [.slot(0), .slot(1), .slot(2), .slot(3), .back, .repeatSpeech, .voice, .largeText])

        let outcome = try totem.press(.slot(1))
        let number = try XCTUnwrap(outcome.ticket, outcome.sentence)
        XCTAssertEqual(number.description, "AB-001")
        XCTAssertEqual(totem.ticket(number)?.slotStart, Self.noon)
        XCTAssertNil(totem.ticket(number)?.promisedWait, "a booking is told its time, not a wait")
        totem.printerFinishesTheLastJob()
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .ticketReady(number: "AB-001", wait: "Your time: 12:00 (come 11:50 to 12:15)"))
        XCTAssertEqual(totem.voice.lastUtterance?.hasPrefix("Your booking is A B 1."), true, totem.voice.lastUtterance ?? "nothing said")

        XCTAssertEqual(totem.scan(number).refusal?.errorCode, .outsideBookingWindow, "at 11:30 its window is not open")
        totem.clock.advance(21 * 60)
        XCTAssertEqual(totem.scan(number).sentence, "admitted AB-001: the turnstile is released")
    }

    func test_aTicketForNowIsToldItsWaitAndTheWaitIsKeptWithTheTicket() throws {
        let totem = try KioskHarness()
        totem.approach()
        let number = try totem.takeTicket()
        XCTAssertEqual(totem.ticket(number)?.promisedWait, WaitEstimate(low: 0, high: 0), "an empty store: no wait")
    }

    func test_theTotemsOwnShareOfASlotRunsOutAndTheSlotIsNoLongerOffered() throws {
        let totem = try KioskHarness { $0.queue.ownBookingsPerSlot = 1 }
        totem.approach()
        _ = try totem.press(.bookLater)
        XCTAssertEqual(try choices(totem).first?.time, "11:30")
        _ = try totem.press(.slot(0))
        totem.printerFinishesTheLastJob()
        totem.pass(totem.kiosk.config.screen.resultSeconds)
        _ = try totem.press(.bookLater)
        XCTAssertEqual(try choices(totem).first?.time, "12:00", "11:30's one own place is taken")
        _ = try totem.press(.back)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .welcome)
    }

    func test_withAHubThePlaceIsBookedThroughItAndPrintedAsTheHubSignedIt() throws {
        let totem = try KioskHarness {
            $0.queue.ownBookingsPerSlot = 0
            $0.keys["Z"] = Self.bookingKey.publicKey.rawRepresentation
        }
        let asked = Mutex<[Double]>([])
        let code = TicketCode.make(TicketPayload(store: 1, hubBooking: 1, slotStart: Self.noon, slotMinutes: 30),
                                   signedWith: Self.bookingKey)
        totem.kiosk.hubBookings = HubBookingDesk(
            answering: { SlotOffers(slots: [.init(start: Self.noon.timeIntervalSince1970, free: 2)]) },
            book: { start in
                asked.withLock { $0.append(start) }
                return TotemBooking(number: "ZB-001", code: code, slotStart: start)
            })
        totem.approach()
        _ = try totem.press(.bookLater)
        let offered = try choices(totem)
        XCTAssertEqual(offered, [SlotChoice(start: Self.noon, time: "12:00", atHub: 2, own: 0)],
                       "only the hub has places, and only at 12:00")
        XCTAssertEqual(try totem.press(.slot(0)).sentence, "asking the hub for a place at 12:00")
        XCTAssertEqual(asked.withLock { $0 }, [Self.noon.timeIntervalSince1970])
        let number = try XCTUnwrap(TicketNumber("ZB-001"))
        XCTAssertEqual(totem.state(number), .printing, "recorded before it prints")
        XCTAssertEqual(totem.printer.jobs.last?.report.name.hasPrefix("ZB-001"), true)
        totem.printerFinishesTheLastJob()
        XCTAssertEqual(totem.state(number), .waiting)
        totem.clock.advance(25 * 60)
        XCTAssertEqual(totem.scan(number).sentence, "admitted ZB-001: the turnstile is released")
        XCTAssertEqual(totem.scan(number).refusal?.errorCode, .alreadyUsed)
    }

    /// A hub slow to answer holds no thread of the kiosk's: its answer comes on the hub
    /// client's thread, and meanwhile both workers run at once (two jobs that each wait for
    /// the other to have started both finish; one held worker would run them one after the
    /// other, and the first would give up waiting).
    func test_aHubThatHasNotAnsweredYetHoldsNoWorker() throws {
        let totem = try KioskHarness { $0.queue.ownBookingsPerSlot = 0 }
        let held = Mutex<HubBookingDesk.Answer<SlotOffers>?>(nil)
        totem.kiosk.hubBookings = HubBookingDesk(slots: { answer in held.withLock { $0 = answer } },
                                                 book: { _, answer in answer(.failure(CodedError(.hubUnreachable, "not asked"))) })
        totem.approach()
        let button = try XCTUnwrap(totem.kiosk.screens.geometry.buttons(on: .welcome).first { $0.action == .bookLater })
        _ = totem.kiosk.touched(try totem.touchscreen.tap(x: Int(button.x + button.width / 2), y: Int(button.y + button.height / 2)))
        XCTAssertTrue(held.withLock { $0 != nil }, "the hub was asked for its slots")

        let started = Mutex(0)
        var together: [Bool] = []
        for _ in 0..<2 {
            totem.loop.background({ () -> Bool in
                started.withLock { $0 += 1 }
                let end = Date().addingTimeInterval(5)
                while started.withLock({ $0 }) < 2, Date() < end { usleep(1000) }
                return started.withLock { $0 } >= 2
            }) { together.append($0) }
        }
        let deadline = Date().addingTimeInterval(30)
        while together.count < 2, Date() < deadline {
            usleep(500)
            totem.loop.turn()
        }
        XCTAssertEqual(together, [true, true], "both workers ran while the hub had not answered")
        XCTAssertTrue(totem.loop.hasPendingWork, "the hub's answer is still awaited")

        held.withLock { $0 }?(.success(SlotOffers(slots: [.init(start: Self.noon.timeIntervalSince1970, free: 2)])))
        totem.settle()
        XCTAssertEqual(try choices(totem), [SlotChoice(start: Self.noon, time: "12:00", atHub: 2, own: 0)])
    }

    func test_aHubThatDoesNotAnswerLeavesTheTotemsOwnShare() throws {
        let totem = try KioskHarness { $0.queue.ownBookingsPerSlot = 1 }
        totem.kiosk.hubBookings = HubBookingDesk(
            answering: { throw CodedError(.hubUnreachable, "https://hub cannot be reached") },
            book: { _ in throw CodedError(.hubUnreachable, "https://hub cannot be reached") })
        totem.approach()
        _ = try totem.press(.bookLater)
        XCTAssertEqual(try choices(totem).first, SlotChoice(start: Self.noon.addingTimeInterval(-1800), time: "11:30", atHub: 0, own: 1))
        let outcome = try totem.press(.slot(0))
        XCTAssertEqual(outcome.ticket?.description, "AB-001", outcome.sentence)
    }

    func test_aHubThatTakesTheLastPlaceMeanwhileIsToldAndNothingPrints() throws {
        let totem = try KioskHarness { $0.queue.ownBookingsPerSlot = 0 }
        totem.kiosk.hubBookings = HubBookingDesk(
            answering: { SlotOffers(slots: [.init(start: Self.noon.timeIntervalSince1970, free: 1)]) },
            book: { _ in throw CodedError(.bookingSlotFull, "the slot at 12:00 holds 5 of 5 bookings") })
        totem.approach()
        _ = try totem.press(.bookLater)
        _ = try totem.press(.slot(0))
        guard case let .printFailed(reason) = totem.kiosk.screens.flow.screen else { return XCTFail("\(totem.kiosk.screens.flow.screen)") }
        XCTAssertTrue(reason.contains("no place was booked at 12:00"), reason)
        XCTAssertTrue(totem.printer.jobs.isEmpty)
    }

    func test_theHubsSlotsAreOfferedEvenWhereTheTotemsCalendarHasNone() throws {
        // Open until 11:40: no slot of its own calendar fits before closing.
        let totem = try KioskHarness { $0.store.closesMinute = 11 * 60 + 40 }
        totem.kiosk.hubBookings = HubBookingDesk(
            answering: { SlotOffers(slots: [.init(start: Self.noon.timeIntervalSince1970 - 3600, free: 3),
                                        .init(start: Self.noon.timeIntervalSince1970, free: 1)]) },
            book: { _ in throw CodedError(.hubUnreachable, "not asked") })
        totem.approach()
        _ = try totem.press(.bookLater)
        XCTAssertEqual(try choices(totem), [SlotChoice(start: Self.noon, time: "12:00", atHub: 1, own: 0)],
                       "the slot that began at 11:00 is not a later time")
    }

    func test_noFreeSlotSaysSoAndReturnsToTheStart() throws {
        let totem = try KioskHarness {
            $0.queue.ownBookingsPerSlot = 0
            $0.store.closesMinute = 11 * 60 + 40
        }
        totem.approach()
        _ = try totem.press(.bookLater)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .noFreeSlots)
        totem.pass(totem.kiosk.config.screen.resultSeconds)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .welcome)
    }
}
