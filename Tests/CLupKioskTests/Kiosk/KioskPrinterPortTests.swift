import CLupCore
import CLupHardware
@testable import CLupKiosk
import CLupProtocol
import Synchronization
import XCTest

/// The status lines a test printer's port gives, changed by the test.
private final class PortLines: Sendable {
    let byte = Mutex<UInt8>(0x18)
    func set(_ value: UInt8) { byte.withLock { $0 = value } }
}

/// A USB printer's port read by the kiosk: no paper or a cover open stops the tickets at
/// the entrance, says why, and lets them again once the lines are right.
final class KioskPrinterPortTests: XCTestCase {
    func test_noPaperAtThePortStopsTicketsAtTheEntranceAndTheyComeBackWithThePaper() throws {
        let lines = PortLines()
        let port = PrinterPortWatch(path: "/dev/clup/printer") { _, interface in
            (.status(PrinterPortStatus(byte: lines.byte.withLock { $0 })), interface)
        }
        let totem = try KioskHarness(printerPort: port)
        totem.approach()
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .welcome)
        let first = try totem.takeTicket()
        totem.printerFinishesTheLastJob()

        lines.set(0x30)
        totem.pass(Kiosk.printerPortLookSeconds + 0.5)
        totem.pass(totem.kiosk.config.screen.resultSeconds + 0.5)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .noTickets(paperOut: true), "the entrance says there is no paper")
        XCTAssertEqual(totem.voice.lastUtterance, "No paper for tickets. Please ask a member of staff for a ticket.")
        XCTAssertNil(totem.kiosk.screens.geometry.buttons(on: totem.kiosk.screens.flow.screen).first { $0.action == .getTicket },
                     "no ticket to take")
        XCTAssertEqual(Array(totem.kiosk.desk.day.tickets.keys), [first], "no ticket issued")
        // An employee's priority ticket too: refused before it is recorded, not recorded to fail.
        let refused = totem.kiosk.issuePriority(.pregnant, by: "10472", askedAt: nil)
        XCTAssertEqual(refused.refusal?.code, ErrorCode.ticketNotRecorded.rawValue)
        XCTAssertTrue(refused.refusal?.message.contains("E-PRN-003 the printer's port says it has no paper") == true,
                      "\(String(describing: refused.refusal))")
        XCTAssertEqual(Array(totem.kiosk.desk.day.tickets.keys), [first], "no ticket issued")
        let health = try XCTUnwrap(totem.kiosk.deviceHealth.first { $0.role == "printer" })
        XCTAssertEqual(health.state, .fault)
        XCTAssertEqual(health.detail, "/dev/clup/printer: NO PAPER, ERROR")
        totem.pass(totem.kiosk.config.screen.resultSeconds + 0.5)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .noTickets(paperOut: true), "back to saying there is no paper")

        lines.set(0x18)
        totem.pass(Kiosk.printerPortLookSeconds + 0.5)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .welcome, "paper in: tickets again")
        let second = try totem.takeTicket()
        XCTAssertNotEqual(second, first)

        totem.printerFinishesTheLastJob()
        totem.pass(totem.kiosk.config.screen.resultSeconds + 0.5)
        lines.set(0x00)
        totem.pass(Kiosk.printerPortLookSeconds + 0.5)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .noTickets(paperOut: false), "a cover open: the printer is not ready")
        XCTAssertEqual(totem.voice.lastUtterance, "The ticket printer is not ready. Please ask a member of staff for a ticket.")
    }

    func test_noPlaceIsTakenAtTheHubForATicketThePrinterCannotGive() throws {
        let lines = PortLines()
        let port = PrinterPortWatch(path: "/dev/clup/printer") { _, interface in
            (.status(PrinterPortStatus(byte: lines.byte.withLock { $0 })), interface)
        }
        let totem = try KioskHarness(printerPort: port) {
            $0.queue.ownBookingsPerSlot = 0
            $0.keys["Z"] = KioskBookingTests.bookingKey.publicKey.rawRepresentation
        }
        let asked = Mutex<[Double]>([])
        totem.kiosk.hubBookings = HubBookingDesk(
            answering: { SlotOffers(slots: [.init(start: KioskBookingTests.noon.timeIntervalSince1970, free: 2)]) },
            book: { start in
                asked.withLock { $0.append(start) }
                return TotemBooking(number: "ZB-001", code: "unused", slotStart: start)
            })
        totem.approach()
        _ = try totem.press(.bookLater)
        guard case .choosingSlot = totem.kiosk.screens.flow.screen else {
            return XCTFail("the screen is \(totem.kiosk.screens.flow.screen.name)")
        }
        // The roll ends while the customer chooses a time.
        lines.set(0x30)
        totem.pass(Kiosk.printerPortLookSeconds + 0.5)
        let outcome = try totem.press(.slot(0))
        XCTAssertEqual(outcome.refusal?.code, ErrorCode.ticketNotRecorded.rawValue)
        XCTAssertEqual(asked.withLock { $0 }, [], "the hub was not asked for a place")
        XCTAssertTrue(totem.kiosk.desk.day.tickets.isEmpty)
        XCTAssertEqual(totem.kiosk.screens.flow.screen.name, "print-failed", "the customer is told")
    }

    func test_theStoreClosedSaysSoWhateverThePrinterSays() throws {
        let lines = PortLines()
        lines.set(0x30)
        let port = PrinterPortWatch(path: "/dev/clup/printer") { _, interface in
            (.status(PrinterPortStatus(byte: lines.byte.withLock { $0 })), interface)
        }
        // Opening hours that exclude the harness's 11:30.
        let totem = try KioskHarness(printerPort: port) { config in
            config.store.opensMinute = 13 * 60
            config.store.closesMinute = 20 * 60
        }
        totem.pass(Kiosk.printerPortLookSeconds + 0.5)
        totem.approach()
        XCTAssertEqual(totem.kiosk.screens.flow.screen.name, "store-closed")
    }
}
