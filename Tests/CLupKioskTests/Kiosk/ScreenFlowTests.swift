@testable import CLupKiosk
import Foundation
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

    func test_bookingALaterTimeFindsTheSlotsThenBooksTheOneChosen() {
        var flow = ScreenFlow()
        _ = flow.handle(.presence(true))
        XCTAssertEqual(flow.handle(.slotsFound([])), [], "slots nobody asked for change nothing")
        XCTAssertEqual(flow.screen, .welcome)
        XCTAssertEqual(flow.handle(.tap(.bookLater)), [.startIdleTimer, .findSlots])
        XCTAssertEqual(flow.screen, .findingSlots)
        let choices = [SlotChoice(start: Date(timeIntervalSince1970: 1_800), time: "00:30", atHub: 2, own: 1),
                       SlotChoice(start: Date(timeIntervalSince1970: 3_600), time: "01:00", atHub: 0, own: 1)]
        XCTAssertEqual(flow.handle(.slotsFound(choices)), [.startIdleTimer])
        XCTAssertEqual(flow.screen, .choosingSlot(choices))
        XCTAssertEqual(flow.handle(.tap(.slot(2))), [.startIdleTimer], "no third slot was offered")
        XCTAssertEqual(flow.handle(.tap(.slot(1))), [.startIdleTimer, .book(choices[1])])
        XCTAssertEqual(flow.screen, .bookingSlot(time: "01:00"))
        _ = flow.handle(.presence(false))
        _ = flow.handle(.idleTimeUp)
        XCTAssertEqual(flow.screen, .bookingSlot(time: "01:00"), "a booking under way is not slept away")
        _ = flow.handle(.ticketRecorded(number: "AB-001"))
        XCTAssertEqual(flow.screen, .printing(number: "AB-001"))
    }

    func test_noFreeSlotIsShownForAWhileAndBackLeavesTheChoice() {
        var flow = ScreenFlow()
        _ = flow.handle(.presence(true))
        _ = flow.handle(.tap(.bookLater))
        XCTAssertEqual(flow.handle(.slotsFound([])), [.startResultTimer])
        XCTAssertEqual(flow.screen, .noFreeSlots)
        _ = flow.handle(.resultTimeUp)
        XCTAssertEqual(flow.screen, .welcome)
        _ = flow.handle(.tap(.bookLater))
        _ = flow.handle(.slotsFound([SlotChoice(start: Date(timeIntervalSince1970: 1_800), time: "00:30", atHub: 1, own: 0)]))
        XCTAssertEqual(flow.handle(.tap(.back)), [.startIdleTimer])
        XCTAssertEqual(flow.screen, .welcome)
        XCTAssertEqual(flow.handle(.tap(.slot(0))), [.startIdleTimer], "a slot button on the welcome screen does nothing")
    }

    func test_largeTextAndRepeatWorkOnAnyScreenAndLargeTextEndsWithTheCustomer() {
        var flow = ScreenFlow(language: "it")
        _ = flow.handle(.presence(true))
        XCTAssertEqual(flow.handle(.tap(.largeText)), [.startIdleTimer, .largeTextSwitched])
        XCTAssertTrue(flow.largeText)
        XCTAssertEqual(flow.handle(.tap(.repeatSpeech)), [.startIdleTimer, .repeatSpeech])
        _ = flow.handle(.ticketRecorded(number: "A-001"))
        XCTAssertEqual(flow.handle(.tap(.repeatSpeech)), [.startIdleTimer, .repeatSpeech], "while it prints too")
        XCTAssertTrue(flow.largeText, "kept from screen to screen")
        _ = flow.handle(.ticketPrinted(number: "A-001", wait: ""))
        _ = flow.handle(.presence(false))
        _ = flow.handle(.resultTimeUp)
        XCTAssertEqual(flow.screen, .asleep)
        XCTAssertFalse(flow.largeText, "the next customer starts with normal text")
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
