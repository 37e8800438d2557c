import CLupDrawing
import CLupHardware
import CLupProtocol
import CLupStore
import CLupCore
@testable import CLupKiosk
import CLupPrinting
import XCTest

/// The kiosk as customers and staff use it, in process: simulated devices, a fake printer,
/// a manual clock. Each walk runs in milliseconds; the bash tests keep the real processes.
final class KioskWalkTests: XCTestCase {
    func test_aTapPrintsATicketWhichIsCalledAtOnceInAnEmptyStore() throws {
        let totem = try KioskHarness()
        totem.approach()
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .welcome)
        let number = try totem.takeTicket()
        XCTAssertEqual(number.description, "A-001")
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .printing(number: "A-001"))
        XCTAssertEqual(totem.state(number), .printing, "not in the queue until the paper is out")
        let job = try XCTUnwrap(totem.printer.jobs.first)
        XCTAssertEqual(job.report.name, "A-001-2026-11-22")
        XCTAssertEqual(job.format, "application/pdf")
        XCTAssertEqual(Array(job.document.prefix(5)), Array("%PDF-".utf8))
        XCTAssertEqual(totem.ticket(number)?.printJob, job.report.id, "the job's id is recorded")

        totem.printerFinishesTheLastJob()
        XCTAssertEqual(totem.state(number), .called, "printed, and the store is empty")
        guard case .ticketReady(number: "A-001", _) = totem.kiosk.screens.flow.screen else {
            return XCTFail("\(totem.kiosk.screens.flow.screen)")
        }
        totem.pass(totem.kiosk.config.screen.resultSeconds)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .welcome)
        XCTAssertEqual(try totem.kiosk.desk.store.events().map(\.type),
                       ["day.opened", "ticket.issued", "ticket.submitted", "ticket.printed", "ticket.called"])
    }

    func test_aCustomerWhoChoosesItalianIsToldAndGivenEverythingInItalianUntilTheyLeave() throws {
        let totem = try KioskHarness()
        totem.approach()
        XCTAssertEqual(totem.voice.lastUtterance, "Welcome. Touch the button on the screen to take a ticket.")
        let italian = try XCTUnwrap(totem.kiosk.screens.geometry.buttons(on: .welcome).first { $0.action == .language("it") })
        XCTAssertEqual(italian.label, "Italiano")
        _ = totem.kiosk.touched(try totem.touchscreen.tap(x: Int(italian.x + italian.width / 2), y: Int(italian.y + italian.height / 2)))
        totem.settle()
        XCTAssertEqual(totem.kiosk.screens.flow.language, "it")
        XCTAssertEqual(totem.voice.lastUtterance, "Benvenuti. Toccate il pulsante sullo schermo per prendere un biglietto.")
        XCTAssertEqual(totem.kiosk.screenReport.buttons.first { $0.name == "get-ticket" }?.label, "Prendi un biglietto")

        let number = try totem.takeTicket()
        let ticket = try XCTUnwrap(totem.ticket(number))
        XCTAssertEqual(ticket.language, "it")
        let content = totem.kiosk.ticketContent(ticket, wait: WaitEstimate(low: 0, high: 0))
        XCTAssertEqual(content.laneLabel, "Biglietto di coda")
        XCTAssertEqual(content.estimatedWait, "Attesa stimata: nessuna attesa")
        XCTAssertEqual(content.instructions.first, "Scansiona il codice all'ingresso quando chiamano il tuo numero")
        totem.printerFinishesTheLastJob()
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .ticketReady(number: "A-001", wait: "Attesa stimata: nessuna attesa"))
        XCTAssertEqual(totem.voice.said.suffix(2).first?.hasPrefix("Il vostro numero è A 1."), true, "\(totem.voice.said.suffix(2))")
        XCTAssertEqual(totem.voice.lastUtterance, "Numero A 1, si prega di andare all'ingresso.", "called at once, in Italian")

        totem.leave()
        totem.pass(max(totem.kiosk.config.screen.resultSeconds, totem.kiosk.config.screen.idleTimeoutSeconds) + 1)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .asleep)
        XCTAssertEqual(totem.kiosk.screens.flow.language, "en", "the next customer starts in the store's language")
    }

    func test_repeatSaysTheScreenAgainAndLargeTextSaysItsStateAndRedraws() throws {
        let totem = try KioskHarness()
        totem.approach()
        func press(_ action: Button.Action) throws -> KioskOutcome {
            let button = try XCTUnwrap(totem.kiosk.screens.geometry.buttons(on: totem.kiosk.screens.flow.screen, largeText: totem.kiosk.screens.flow.largeText)
                .first { $0.action == action })
            let outcome = totem.kiosk.touched(try totem.touchscreen.tap(x: Int(button.x + button.width / 2), y: Int(button.y + button.height / 2)))
            totem.settle()
            return outcome
        }
        let drawn = totem.kiosk.screens.frameRequests
        XCTAssertEqual(try press(.largeText).sentence, "large text on; screen welcome")
        XCTAssertEqual(totem.voice.lastUtterance, "Large text on.")
        XCTAssertEqual(totem.kiosk.screens.frameRequests - drawn, 1, "drawn again, large")
        XCTAssertEqual(totem.kiosk.screenReport.buttons.last?.label, "Normal text", "the switch says what it turns to")
        XCTAssertEqual(try press(.repeatSpeech).sentence, "said again: the welcome screen")
        XCTAssertEqual(totem.voice.lastUtterance, "Welcome. Touch the button on the screen to take a ticket.")
    }

    func test_aTicketDrawsEachScreenOnceAndSaysItsNumberOnce() throws {
        let totem = try KioskHarness()
        totem.approach()
        var (drawn, said) = (totem.kiosk.screens.frameRequests, totem.voice.said.count)
        try totem.takeTicket()
        XCTAssertEqual(totem.kiosk.screens.frameRequests - drawn, 1, "one frame drawn: the printing screen")
        XCTAssertEqual(totem.voice.said.count, said, "the printing screen says nothing")
        (drawn, said) = (totem.kiosk.screens.frameRequests, totem.voice.said.count)
        totem.printerFinishesTheLastJob()
        XCTAssertEqual(totem.kiosk.screens.frameRequests - drawn, 1, "one frame drawn: the ticket-ready screen")
        XCTAssertEqual(Array(totem.voice.said.suffix(from: said)),
                       ["Your number is A 1. Please take your ticket, and scan it at the door when your number is called.",
                        "Number A 1, please go to the door."], "take your ticket, then the call: the store is empty")
    }

    func test_aCalledTicketIsSaidAgainUntilItReachesTheDoorAndShownWhileNobodyIsAtTheTotem() throws {
        let totem = try KioskHarness()
        totem.approach()
        let number = try totem.takeTicket()
        totem.printerFinishesTheLastJob()
        XCTAssertEqual(totem.voice.lastUtterance, "Number A 1, please go to the door.")
        totem.leave()
        totem.pass(totem.kiosk.config.screen.idleTimeoutSeconds + 1)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .asleep)
        XCTAssertTrue(totem.display.isAwake, "nobody at the totem, and a number called: the calling board is shown")
        let said = totem.voice.said.count
        totem.pass(totem.kiosk.config.screen.callRepeatSeconds)
        XCTAssertEqual(totem.voice.said.count, said + 1, "said again \(Int(totem.kiosk.config.screen.callRepeatSeconds)) s later")
        XCTAssertEqual(totem.voice.lastUtterance, "Number A 1, please go to the door.")
        XCTAssertEqual(totem.scan(number).sentence, "admitted A-001: the turnstile is released")
        _ = totem.kiosk.passed(.entry)
        let afterAdmission = totem.voice.said.count
        totem.pass(totem.kiosk.config.screen.callRepeatSeconds * 2)
        XCTAssertEqual(totem.voice.said.count, afterAdmission, "at the door: no more calls")
        XCTAssertFalse(totem.display.isAwake, "nobody called: the screen is dark")
    }

    func test_paperOutIsToldAndStaffReprintOncePaperIsBack() throws {
        let totem = try KioskHarness()
        totem.approach()
        let number = try totem.takeTicket()
        totem.printer.setReasons(["media-empty-error"])
        totem.printerFinishesTheLastJob(as: .aborted, reasons: ["job-aborted-by-system"])
        XCTAssertEqual(totem.state(number), .printFailed)
        XCTAssertEqual(totem.ticket(number)?.failureReason, "E-PRN-003 printer out of paper")
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .printFailed(reason: "E-PRN-003 printer out of paper"))
        XCTAssertEqual(totem.kiosk.desk.day.queueLength + totem.kiosk.desk.day.promised, 0, "a failed ticket holds nothing")

        totem.printer.setReasons([])
        XCTAssertEqual(try totem.kiosk.reprint(number, by: "staff").sentence, "ticket A-001 sent to the printer again")
        totem.settle()
        XCTAssertEqual(totem.printer.jobs.count, 2)
        totem.printerFinishesTheLastJob()
        XCTAssertEqual(totem.state(number), .called)
        XCTAssertThrowsError(try totem.kiosk.reprint(number, by: "staff")) { error in
            XCTAssertEqual((error as? Refusal)?.coded.errorCode, .notReprintable)
        }
    }

    func test_theDoorAdmitsACalledTicketOnceAndTheTurnstileCountsItsHolder() throws {
        let totem = try KioskHarness()
        totem.approach()
        let number = try totem.takeTicket()
        totem.printerFinishesTheLastJob()
        XCTAssertEqual(totem.scan(number), KioskOutcome("admitted A-001: the turnstile is released"))
        XCTAssertEqual(totem.turnstile.releases, 1)
        XCTAssertEqual(totem.kiosk.passed(.entry).sentence, "passage in by ticket A-001; 1 inside")
        XCTAssertEqual(totem.state(number), .entered)
        // Scanned again once inside: the holder (or a photocopy) is on the way out. The exit
        // is recorded for the time in store; the turnstile is not released to come in.
        XCTAssertEqual(totem.scan(number), KioskOutcome("goodbye: A-001 leaves after 0 min in the store"))
        XCTAssertNotNil(totem.kiosk.desk.day.tickets[number]?.leftAt)
        let again = totem.scan(number)
        XCTAssertEqual(again.refusal?.errorCode, .alreadyUsed, "a photocopy, once the ticket has left")
        XCTAssertEqual(totem.turnstile.releases, 1)
        XCTAssertEqual(totem.kiosk.read(.code("NOT A TICKET")).refusal?.errorCode, .unreadableCode)
    }

    /// A store of one place (none kept for priority) and two printed tickets: the first
    /// called, the second waiting.
    func onePlaceTwoTickets() throws -> (KioskHarness, first: TicketNumber, second: TicketNumber) {
        let totem = try KioskHarness { $0.queue.capacity = 1; $0.queue.priorityShare = 0 }
        totem.approach()
        let first = try totem.takeTicket()
        totem.printerFinishesTheLastJob()
        totem.pass(totem.kiosk.config.screen.resultSeconds)
        let second = try totem.takeTicket()
        totem.printerFinishesTheLastJob()
        return (totem, first, second)
    }

    func test_aCalledTicketThatDoesNotComeIsANoShowAndTheNextIsCalled() throws {
        let (totem, first, second) = try onePlaceTwoTickets()
        XCTAssertEqual([totem.state(first), totem.state(second)], [.called, .waiting], "one place")
        let left = try XCTUnwrap(totem.kiosk.desk.day.secondsToNextExpiry(at: totem.clock.moment(), policy: totem.kiosk.config.queue))
        totem.pass(left - 1)
        XCTAssertEqual(totem.state(first), .called, "the window is not over")
        totem.pass(1.05)
        XCTAssertEqual([totem.state(first), totem.state(second)], [.noShow, .called])
        XCTAssertEqual(totem.scan(first).refusal?.errorCode, .noShow)
    }

    func test_aFullStoreCallsTheNextOnlyWhenSomeoneLeaves() throws {
        let (totem, first, second) = try onePlaceTwoTickets()
        _ = totem.scan(first)
        _ = totem.kiosk.passed(.entry)
        XCTAssertEqual(totem.state(second), .waiting, "the one place is taken")
        XCTAssertEqual(totem.scan(second).refusal?.errorCode, .notCalledYet)
        _ = totem.kiosk.passed(.exit)
        XCTAssertEqual(totem.state(second), .called)
    }

    func test_aPrinterThatNeverFinishesFailsTheTicketAtItsTimeoutAndTheJobIsCancelled() throws {
        let totem = try KioskHarness { $0.printer.timeoutSeconds = 5 }
        totem.approach()
        let number = try totem.takeTicket()
        totem.pass(4.9)
        XCTAssertEqual(totem.state(number), .printing)
        totem.pass(0.2)
        XCTAssertEqual(totem.state(number), .printFailed)
        XCTAssertEqual(totem.ticket(number)?.failureReason, "E-PRN-007 the printer did not finish within 5 s")
        XCTAssertEqual(totem.printer.jobs.last?.report.state, .canceled)
    }

    func test_aJobTheServerRefusesIsToldAndHoldsNothing() throws {
        let totem = try KioskHarness()
        totem.approach()
        totem.printer.refuse(with: .noSuchQueue("fake"))
        let number = try totem.takeTicket()
        XCTAssertEqual(totem.state(number), .printFailed)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .printFailed(reason: "E-PRN-001 no printer queue named fake"))
    }

    func test_leavingMidChoiceSleepsTheScreenOnlyOnceNobodyIsThere() throws {
        let totem = try KioskHarness()
        totem.approach()
        totem.pass(totem.kiosk.config.screen.idleTimeoutSeconds * 2)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .welcome, "someone is still in front of it")
        totem.leave()
        totem.pass(totem.kiosk.config.screen.idleTimeoutSeconds + 0.1)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .stillThere(.welcome), "asked first, by sight and sound")
        XCTAssertEqual(totem.voice.lastUtterance, "Are you still there? Touch the screen for more time.")
        totem.pass(totem.kiosk.config.screen.timeoutWarningSeconds + 0.1)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .asleep)
    }
}

/// What the panel shows while clupd is away (stopped for an update or a restart).
final class KioskAwayTests: XCTestCase {
    func test_asClupdStopsThePanelIsLeftSayingOutOfOrder() throws {
        let totem = try KioskHarness()
        let shownBefore = totem.display.frames
        totem.kiosk.showOutOfOrderWhileAway()
        XCTAssertEqual(totem.display.frames, shownBefore + 1, "one frame, drawn at once")
        let expected = try ScreenRenderer(geometry: totem.kiosk.screens.geometry)
            .render(.outOfOrder, facts: totem.kiosk.screenFacts, language: "en", largeText: false).pngData()
        XCTAssertEqual(try XCTUnwrap(totem.display.last).pngData(), expected, "the out-of-order screen")
        XCTAssertTrue(totem.display.isAwake, "lit, so that a person at the door reads it")
    }

    /// Issue 45: while the update helper installs a version, the frame left says "back in a
    /// moment"; a marker a helper cut short left long ago does not.
    func test_stoppedForAnUpdateThePanelIsLeftSayingBackInAMoment() throws {
        let totem = try KioskHarness()
        let folder = NSTemporaryDirectory() + "away-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        XCTAssertFalse(TotemUpdater.updateUnderWay(in: folder), "no marker")
        FileManager.default.createFile(atPath: TotemUpdater.markerPath(in: folder), contents: Data("0.13.0".utf8))
        XCTAssertTrue(TotemUpdater.updateUnderWay(in: folder))
        XCTAssertFalse(TotemUpdater.updateUnderWay(in: folder, now: Date().addingTimeInterval(3600)), "a marker an hour old")
        totem.kiosk.showOutOfOrderWhileAway(updating: TotemUpdater.updateUnderWay(in: folder))
        let expected = try ScreenRenderer(geometry: totem.kiosk.screens.geometry)
            .render(.backSoon, facts: totem.kiosk.screenFacts, language: "en", largeText: false)
        XCTAssertEqual(try XCTUnwrap(totem.display.last).pngData(), try expected.pngData(), "the back-in-a-moment screen")
        // The lines as drawn (a title may wrap), read as one text.
        let text = expected.drawnTexts.map(\.text).joined(separator: " ")
        XCTAssertTrue(text.contains("Back in a moment This totem is being updated"), text)
        XCTAssertFalse(text.contains("Out of order"), text)
    }
}
