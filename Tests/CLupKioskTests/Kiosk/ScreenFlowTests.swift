import CLupCore
@testable import CLupKiosk
import Foundation
import XCTest

/// The screens as a state machine: what each thing that happens in front of the totem
/// shows, and which timers it starts.
final class ScreenFlowTests: XCTestCase {
    func test_someoneApproachingWakesTheScreenAndLeavingStartsTheIdleTimer() {
        var flow = ScreenFlow()
        XCTAssertEqual(flow.handle(.presence(true)), [.stop(.idle)])
        XCTAssertEqual(flow.screen, .welcome)
        XCTAssertEqual(flow.handle(.presence(false)), [.start(.idle)])
        XCTAssertEqual(flow.screen, .welcome, "the screen waits for the idle timeout")
        XCTAssertEqual(flow.handle(.idleTimeUp), [.warned, .start(.warning)], "then asks whether anyone is still there")
        XCTAssertEqual(flow.screen, .stillThere(.welcome))
        XCTAssertEqual(flow.handle(.warningTimeUp), [])
        XCTAssertEqual(flow.screen, .asleep)
    }

    func test_theTimeoutWarningIsAnsweredByAnyTouchAsOftenAsNeeded() {
        var flow = ScreenFlow()
        _ = flow.handle(.presence(true))
        _ = flow.handle(.tap(.bookLater))
        _ = flow.handle(.presence(false))
        for _ in 1...12 {
            XCTAssertEqual(flow.handle(.idleTimeUp), [.warned, .start(.warning)])
            XCTAssertEqual(flow.screen, .stillThere(.findingSlots))
            XCTAssertEqual(flow.handle(.tap(.getTicket)), [.stop(.warning), .start(.idle)], "the touch answers; nothing is pressed")
            XCTAssertEqual(flow.screen, .findingSlots)
        }
        _ = flow.handle(.idleTimeUp)
        _ = flow.handle(.slotsFound([]))
        XCTAssertEqual(flow.screen, .noFreeSlots, "an answer that comes under the warning is not lost")
        _ = flow.handle(.idleTimeUp)
        XCTAssertEqual(flow.handle(.presence(true)), [.stop(.warning), .stop(.idle)], "someone seen again answers too")
        XCTAssertEqual(flow.screen, .noFreeSlots)
    }

    func test_someoneStillInFrontIsNeverTimedOut() {
        var flow = ScreenFlow()
        _ = flow.handle(.presence(true))
        _ = flow.handle(.idleTimeUp)
        XCTAssertEqual(flow.screen, .welcome)
    }

    func test_theFirstTouchOnASleepingScreenOnlyWakesIt() {
        var flow = ScreenFlow()
        XCTAssertEqual(flow.handle(.tap(.getTicket)), [.start(.idle)], "no ticket: the customer has not seen a button yet")
        XCTAssertEqual(flow.screen, .welcome)
        XCTAssertEqual(flow.handle(.tap(.getTicket)), [.start(.idle), .issueTicket])
        XCTAssertEqual(flow.handle(.tap(nil)), [.start(.idle)])
        XCTAssertEqual(flow.handle(.gesture), [.start(.idle)])
    }

    func test_aTicketGoesFromPrintingToTakeYourTicketAndBack() {
        var flow = ScreenFlow()
        _ = flow.handle(.presence(true))
        XCTAssertEqual(flow.handle(.ticketRecorded(number: "A-001")), [])
        XCTAssertEqual(flow.screen, .printing(number: "A-001"))
        XCTAssertEqual(flow.handle(.tap(.getTicket)), [.start(.idle)], "no second ticket while one prints")
        _ = flow.handle(.presence(false))
        _ = flow.handle(.idleTimeUp)
        XCTAssertEqual(flow.screen, .printing(number: "A-001"), "the printing screen is not slept away")
        XCTAssertEqual(flow.handle(.ticketPrinted(number: "A-001", wait: "about 5 min")), [.start(.result)])
        XCTAssertEqual(flow.screen, .ticketReady(number: "A-001", wait: "about 5 min"))
        _ = flow.handle(.resultTimeUp)
        XCTAssertEqual(flow.screen, .asleep, "they left while it printed")
    }

    func test_aFailureIsShownForAWhileThenTheStart() {
        var flow = ScreenFlow()
        _ = flow.handle(.presence(true))
        XCTAssertEqual(flow.handle(.ticketNotRecorded(reason: "E-DB-005 full")), [.start(.result)])
        XCTAssertEqual(flow.screen, .printFailed(reason: "E-DB-005 full"))
        _ = flow.handle(.resultTimeUp)
        XCTAssertEqual(flow.screen, .welcome)
        _ = flow.handle(.ticketRecorded(number: "A-002"))
        XCTAssertEqual(flow.handle(.ticketNotPrinted(reason: "E-PRN-003 printer out of paper")), [.start(.result)])
        XCTAssertEqual(flow.screen, .printFailed(reason: "E-PRN-003 printer out of paper"))
    }

    func test_bookingALaterTimeFindsTheSlotsThenBooksTheOneChosen() {
        var flow = ScreenFlow()
        _ = flow.handle(.presence(true))
        XCTAssertEqual(flow.handle(.slotsFound([])), [], "slots nobody asked for change nothing")
        XCTAssertEqual(flow.screen, .welcome)
        XCTAssertEqual(flow.handle(.tap(.bookLater)), [.start(.idle), .findSlots])
        XCTAssertEqual(flow.screen, .findingSlots)
        let choices = [SlotChoice(start: Date(timeIntervalSince1970: 1_800), time: "00:30", atHub: 2, own: 1),
                       SlotChoice(start: Date(timeIntervalSince1970: 3_600), time: "01:00", atHub: 0, own: 1)]
        XCTAssertEqual(flow.handle(.slotsFound(choices)), [.start(.idle)])
        XCTAssertEqual(flow.screen, .choosingSlot(choices))
        XCTAssertEqual(flow.handle(.tap(.slot(2))), [.start(.idle)], "no third slot was offered")
        XCTAssertEqual(flow.handle(.tap(.slot(1))), [.start(.idle), .book(choices[1])])
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
        XCTAssertEqual(flow.handle(.slotsFound([])), [.start(.result)])
        XCTAssertEqual(flow.screen, .noFreeSlots)
        _ = flow.handle(.resultTimeUp)
        XCTAssertEqual(flow.screen, .welcome)
        _ = flow.handle(.tap(.bookLater))
        _ = flow.handle(.slotsFound([SlotChoice(start: Date(timeIntervalSince1970: 1_800), time: "00:30", atHub: 1, own: 0)]))
        XCTAssertEqual(flow.handle(.tap(.back)), [.start(.idle)])
        XCTAssertEqual(flow.screen, .welcome)
        XCTAssertEqual(flow.handle(.tap(.slot(0))), [.start(.idle)], "a slot button on the welcome screen does nothing")
    }

    func test_largeTextAndRepeatWorkOnAnyScreenAndLargeTextEndsWithTheCustomer() {
        var flow = ScreenFlow(language: "it")
        _ = flow.handle(.presence(true))
        XCTAssertEqual(flow.handle(.tap(.largeText)), [.start(.idle), .largeTextSwitched])
        XCTAssertTrue(flow.largeText)
        XCTAssertEqual(flow.handle(.tap(.repeatSpeech)), [.start(.idle), .repeatSpeech])
        _ = flow.handle(.ticketRecorded(number: "A-001"))
        XCTAssertEqual(flow.handle(.tap(.repeatSpeech)), [.start(.idle), .repeatSpeech], "while it prints too")
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

    // MARK: The store full or closed

    func test_aFullStoreStillGivesTicketsAndAClosedOneNone() {
        var flow = ScreenFlow()
        _ = flow.handle(.entrance(.full))
        _ = flow.handle(.presence(true))
        XCTAssertEqual(flow.screen, .storeFull, "the customer wakes the totem to the store-full screen")
        XCTAssertEqual(flow.handle(.tap(.getTicket)), [.start(.idle), .issueTicket], "a ticket still joins the queue")
        _ = flow.handle(.entrance(.open))
        XCTAssertEqual(flow.screen, .welcome, "room again: the welcome screen")
        _ = flow.handle(.entrance(.closed(hours: "08:00–20:00")))
        XCTAssertEqual(flow.screen, .storeClosed(hours: "08:00–20:00"))
        XCTAssertEqual(flow.handle(.tap(.getTicket)), [.start(.idle)], "no ticket while closed")
        XCTAssertEqual(ScreenGeometry(width: 720, height: 1280).buttons(on: flow.screen).map(\.action).filter { $0 == .getTicket }, [])
    }

    func test_aCustomerWhoWalksAwayMidChoiceIsTimedOutOnlyOnceGone() {
        var flow = ScreenFlow(language: "it")
        _ = flow.handle(.presence(true))
        _ = flow.handle(.tap(.language("fr")))
        _ = flow.handle(.tap(.bookLater))
        _ = flow.handle(.slotsFound([SlotChoice(start: Date(timeIntervalSince1970: 0), time: "14:30", atHub: 1, own: 0)]))
        _ = flow.handle(.idleTimeUp)
        XCTAssertEqual(flow.screen.name, "choosing-slot", "still in front: never timed out of a choice")
        XCTAssertEqual(flow.handle(.presence(false)), [.start(.idle)])
        _ = flow.handle(.idleTimeUp)
        _ = flow.handle(.warningTimeUp)
        XCTAssertEqual(flow.screen, .asleep)
        XCTAssertEqual(flow.language, "it", "the next customer starts in the default language")
    }

    // MARK: The employee

    /// Opens the pad by the staff corner and types `digits` (a staff number or PIN) and OK.
    private func type(_ digits: String, into flow: inout ScreenFlow) -> [ScreenFlow.Effect] {
        for digit in digits { _ = flow.handle(.tap(.digit(Int(String(digit))!))) }
        return flow.handle(.tap(.confirm))
    }

    func test_anEmployeeLogsInWithStaffNumberAndPinThenPicksTheReason() {
        var flow = ScreenFlow()
        _ = flow.handle(.presence(true))
        XCTAssertEqual(flow.handle(.staffAccess(staffNumber: nil, lockedUntil: nil)), [.start(.session)])
        XCTAssertEqual(flow.screen, .pinPad(PinEntry()))
        XCTAssertEqual(type("104", into: &flow), [.start(.session)])
        XCTAssertEqual(flow.screen, .pinPad(PinEntry(staffNumber: "104", typingPin: true)))
        _ = flow.handle(.tap(.digit(2)))
        XCTAssertEqual(flow.screen, .pinPad(PinEntry(staffNumber: "104", typingPin: true, pinDigits: 1)), "the screen knows only how many")
        _ = flow.handle(.tap(.deleteDigit))
        XCTAssertEqual(flow.handle(.tap(.confirm)), [.start(.session)], "no PIN typed: nothing checked")
        XCTAssertEqual(type("2580", into: &flow), [.start(.session), .checkPin(staffNumber: "104", pin: "2580")])
        XCTAssertEqual(flow.screen, .checkingPin)
        XCTAssertEqual(flow.handle(.idleTimeUp), [])
        XCTAssertEqual(flow.screen, .checkingPin, "a PIN being checked is not timed out")
        XCTAssertEqual(flow.handle(.pinChecked(staffNumber: "104", right: true, lockedUntil: nil)), [.start(.session)])
        XCTAssertEqual(flow.screen, .priorityReason)
        XCTAssertEqual(flow.employee, "104")
        XCTAssertEqual(flow.handle(.tap(.reason(.elderly))), [.stop(.session), .issuePriority(.elderly, employee: "104")])
        XCTAssertNil(flow.employee, "the session ends with the ticket")
        _ = flow.handle(.ticketRecorded(number: "AP-001"))
        XCTAssertEqual(flow.screen, .printing(number: "AP-001"))
    }

    func test_aWrongPinIsRefusedAndTheLockShowsWhenTheTime() {
        var flow = ScreenFlow()
        _ = flow.handle(.staffAccess(staffNumber: "104", lockedUntil: nil))
        XCTAssertEqual(flow.screen, .pinPad(PinEntry(staffNumber: "104", typingPin: true)), "a badge gives the staff number")
        _ = type("1111", into: &flow)
        XCTAssertEqual(flow.handle(.pinChecked(staffNumber: "104", right: false, lockedUntil: nil)), [.start(.session)])
        XCTAssertEqual(flow.screen, .pinPad(PinEntry(staffNumber: "104", typingPin: true, refused: true)))
        XCTAssertNil(flow.employee)
        _ = type("1112", into: &flow)
        XCTAssertEqual(flow.handle(.pinChecked(staffNumber: "104", right: false, lockedUntil: "14:35")),
                       [.stop(.session), .start(.result)])
        XCTAssertEqual(flow.screen, .padLocked(until: "14:35"))
        _ = flow.handle(.resultTimeUp)
        XCTAssertEqual(flow.handle(.staffAccess(staffNumber: nil, lockedUntil: "14:35")), [.start(.result)])
        XCTAssertEqual(flow.screen, .padLocked(until: "14:35"), "the corner shows the lock, not the pad")
    }

    func test_anIdleOrCancelledSessionEndsAndIsSaid() {
        var flow = ScreenFlow()
        _ = flow.handle(.presence(true))
        _ = flow.handle(.staffAccess(staffNumber: "104", lockedUntil: nil))
        _ = type("2580", into: &flow)
        _ = flow.handle(.pinChecked(staffNumber: "104", right: true, lockedUntil: nil))
        XCTAssertEqual(flow.handle(.sessionTimeUp), [.warned, .start(.warning)])
        XCTAssertEqual(flow.screen, .stillThere(.priorityReason))
        XCTAssertEqual(flow.handle(.warningTimeUp), [.sessionEnded(employee: "104", why: "idle")])
        XCTAssertEqual(flow.screen, .welcome, "the customer is still there")
        _ = flow.handle(.staffAccess(staffNumber: "104", lockedUntil: nil))
        _ = type("2580", into: &flow)
        _ = flow.handle(.pinChecked(staffNumber: "104", right: true, lockedUntil: nil))
        XCTAssertEqual(flow.handle(.tap(.cancel)), [.stop(.session), .sessionEnded(employee: "104", why: "cancelled")])
        _ = flow.handle(.staffAccess(staffNumber: nil, lockedUntil: nil))
        XCTAssertEqual(flow.handle(.tap(.cancel)), [.stop(.session)], "nobody logged in: nothing to end")
        XCTAssertEqual(flow.handle(.staffAccess(staffNumber: nil, lockedUntil: nil)), [.start(.session)])
        _ = flow.handle(.sessionTimeUp)
        XCTAssertEqual(flow.handle(.warningTimeUp), [], "the pad times out too; nobody was logged in")
        XCTAssertEqual(flow.screen, .welcome)
    }

    // MARK: The headset and explore by touch

    func test_aHeadsetWakesTheTotemAndATouchSaysWhatIsUnderItBeforeASecondPressesIt() {
        var flow = ScreenFlow()
        XCTAssertEqual(flow.handle(.headset(true)), [.start(.idle), .headsetChanged(true)])
        XCTAssertEqual(flow.screen, .welcome, "plugging a headset in wakes the totem")
        XCTAssertEqual(flow.handle(.tap(.getTicket)), [.start(.idle), .describe(.getTicket)], "first touch: what it is")
        XCTAssertEqual(flow.handle(.tap(.bookLater)), [.start(.idle), .describe(.bookLater)])
        XCTAssertEqual(flow.handle(.explore(.getTicket)), [.start(.idle), .describe(.getTicket)], "a finger slid onto it")
        XCTAssertEqual(flow.handle(.explore(.getTicket)), [], "said already")
        XCTAssertEqual(flow.handle(.tap(nil)), [.start(.idle), .repeatSpeech], "off every button: the screen again")
        XCTAssertEqual(flow.handle(.tap(.getTicket)), [.start(.idle), .issueTicket], "the button just said, touched again: pressed")
        _ = flow.handle(.ticketRecorded(number: "A-001"))
        XCTAssertNil(flow.focused, "a new screen starts with nothing said")
        _ = flow.handle(.resultTimeUp)
        _ = flow.handle(.idleTimeUp)
        _ = flow.handle(.warningTimeUp)
        XCTAssertEqual(flow.screen, .asleep)
        XCTAssertTrue(flow.exploring, "the headset is still in: the next customer explores too")
        XCTAssertEqual(flow.handle(.headset(false)), [.start(.idle), .headsetChanged(false)])
        _ = flow.handle(.presence(true))
        XCTAssertEqual(flow.handle(.tap(.getTicket)), [.start(.idle), .issueTicket], "without it a tap presses at once")
    }
}
