@testable import CLupKiosk
import XCTest

/// The screens as a state machine: what each thing that happens in front of the totem
/// shows, and which timers it starts.
final class ScreenFlowTests: XCTestCase {
    func test_someoneApproachingWakesTheScreenAndLeavingStartsTheIdleTimer() {
        var flow = ScreenFlow()
        XCTAssertEqual(flow.handle(.presence(true)), [.stopIdleTimer])
        XCTAssertEqual(flow.screen, .welcome)
        XCTAssertEqual(flow.handle(.presence(false)), [.startIdleTimer])
        XCTAssertEqual(flow.screen, .welcome, "the screen waits for the idle timeout")
        XCTAssertEqual(flow.handle(.idleTimeUp), [])
        XCTAssertEqual(flow.screen, .asleep)
    }

    func test_someoneStillInFrontIsNeverTimedOut() {
        var flow = ScreenFlow()
        _ = flow.handle(.presence(true))
        _ = flow.handle(.idleTimeUp)
        XCTAssertEqual(flow.screen, .welcome)
    }

    func test_theFirstTouchOnASleepingScreenOnlyWakesIt() {
        var flow = ScreenFlow()
        XCTAssertEqual(flow.handle(.tap(.getTicket)), [.startIdleTimer], "no ticket: the customer has not seen a button yet")
        XCTAssertEqual(flow.screen, .welcome)
        XCTAssertEqual(flow.handle(.tap(.getTicket)), [.startIdleTimer, .issueTicket])
        XCTAssertEqual(flow.handle(.tap(nil)), [.startIdleTimer])
        XCTAssertEqual(flow.handle(.gesture), [.startIdleTimer])
    }

    func test_aTicketGoesFromPrintingToTakeYourTicketAndBack() {
        var flow = ScreenFlow()
        _ = flow.handle(.presence(true))
        XCTAssertEqual(flow.handle(.ticketRecorded(number: "A-001")), [])
        XCTAssertEqual(flow.screen, .printing(number: "A-001"))
        XCTAssertEqual(flow.handle(.tap(.getTicket)), [.startIdleTimer], "no second ticket while one prints")
        _ = flow.handle(.presence(false))
        _ = flow.handle(.idleTimeUp)
        XCTAssertEqual(flow.screen, .printing(number: "A-001"), "the printing screen is not slept away")
        XCTAssertEqual(flow.handle(.ticketPrinted(number: "A-001", wait: "about 5 min")), [.startResultTimer])
        XCTAssertEqual(flow.screen, .ticketReady(number: "A-001", wait: "about 5 min"))
        _ = flow.handle(.resultTimeUp)
        XCTAssertEqual(flow.screen, .asleep, "they left while it printed")
    }

    func test_aFailureIsShownForAWhileThenTheStart() {
        var flow = ScreenFlow()
        _ = flow.handle(.presence(true))
        XCTAssertEqual(flow.handle(.ticketNotRecorded(reason: "E-DB-005 full")), [.startResultTimer])
        XCTAssertEqual(flow.screen, .printFailed(reason: "E-DB-005 full"))
        _ = flow.handle(.resultTimeUp)
        XCTAssertEqual(flow.screen, .welcome)
        _ = flow.handle(.ticketRecorded(number: "A-002"))
        XCTAssertEqual(flow.handle(.ticketNotPrinted(reason: "E-PRN-003 printer out of paper")), [.startResultTimer])
        XCTAssertEqual(flow.screen, .printFailed(reason: "E-PRN-003 printer out of paper"))
    }

    func test_withoutItsTouchPanelTheTotemIsOutOfOrderUntilItIsBack() {
        var flow = ScreenFlow()
        _ = flow.handle(.presence(true))
        _ = flow.handle(.panel(working: false))
        XCTAssertEqual(flow.screen, .outOfOrder)
        _ = flow.handle(.ticketPrinted(number: "AP-001", wait: ""))
        _ = flow.handle(.resultTimeUp)
        _ = flow.handle(.presence(false))
        _ = flow.handle(.idleTimeUp)
        XCTAssertEqual(flow.screen, .outOfOrder, "nothing replaces it while the panel is gone")
        _ = flow.handle(.panel(working: true))
        XCTAssertEqual(flow.screen, .asleep)
    }
}
