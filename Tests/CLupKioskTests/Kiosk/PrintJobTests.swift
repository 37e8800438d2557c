@testable import CLupKiosk
import CLupPrinting
import XCTest

/// A ticket's way through the printer, as a state machine: every path without a printer.
final class PrintJobTests: XCTestCase {
    let document = TicketDocument(path: "/spool/A-001-2026-11-22.pdf", format: "application/pdf", title: "A-001-2026-11-22")

    func job(_ state: JobState, reasons: [String] = []) -> QueuedJob {
        QueuedJob(id: 7, name: "A-001-2026-11-22", state: state, reasons: reasons, documents: 1)
    }

    func test_nothingIsSentBeforeTheTicketIsCommittedWhicheverComesFirst() {
        var layoutFirst = PrintJob(committed: false, now: 0, timeout: 20)
        XCTAssertEqual(layoutFirst.handle(.laidOut(document), now: 0.01), [], "laid out, not committed: wait")
        XCTAssertEqual(layoutFirst.handle(.committed, now: 0.02), [.send(document)])
        var commitFirst = PrintJob(committed: false, now: 0, timeout: 20)
        XCTAssertEqual(commitFirst.handle(.committed, now: 0.01), [])
        XCTAssertEqual(commitFirst.handle(.laidOut(document), now: 0.02), [.send(document)])
        var reprint = PrintJob(committed: true, now: 0, timeout: 20)
        XCTAssertEqual(reprint.handle(.laidOut(document), now: 0.01), [.send(document)])
    }

    func test_anAcceptedJobIsRecordedAndLookedAtUntilItCompletes() {
        var print = PrintJob(committed: true, now: 0, timeout: 20)
        _ = print.handle(.laidOut(document), now: 0)
        XCTAssertEqual(print.handle(.sent(job: 7), now: 0.1), [.record(job: 7), .look(after: PrintJob.lookInterval)])
        XCTAssertEqual(print.handle(.looked(job(.processing)), now: 0.2), [.look(after: PrintJob.lookInterval)])
        XCTAssertEqual(print.handle(.lookFailed(.serverUnreachable("busy")), now: 0.3), [.look(after: PrintJob.lookInterval)],
                       "cupsd not answering once is no reason to fail the ticket")
        XCTAssertEqual(print.handle(.looked(job(.completed)), now: 0.4), [.finish(.completed(job: 7))])
        XCTAssertEqual(print.handle(.looked(job(.aborted)), now: 0.5), [], "a late answer changes nothing")
    }

    func test_paperOutEndsTheJobAsOutOfPaper() {
        var print = PrintJob(following: 7, now: 0, timeout: 20)
        XCTAssertEqual(print.handle(.looked(job(.aborted, reasons: ["media-empty-error"])), now: 1),
                       [.finish(.failed(job: 7, reason: .outOfPaper))])
    }

    func test_aPrinterThatStoppedUnderTheJobHasItCancelled() {
        var print = PrintJob(following: 7, now: 0, timeout: 20)
        XCTAssertEqual(print.handle(.looked(job(.stopped, reasons: ["cover-open-error"])), now: 1),
                       [.cancel(job: 7), .finish(.failed(job: 7, reason: .jobEnded(.stopped, reasons: ["cover-open-error"])))])
    }

    func test_aPrinterThatNeverFinishesIsGivenUpAtTheDeadline() {
        var print = PrintJob(following: 7, now: 100, timeout: 20)
        XCTAssertEqual(print.handle(.looked(job(.processing)), now: 119.9), [.look(after: PrintJob.lookInterval)])
        XCTAssertEqual(print.handle(.lookFailed(.serverUnreachable("gone")), now: 120),
                       [.cancel(job: 7), .finish(.failed(job: 7, reason: .timedOut(seconds: 20)))])
    }

    func test_aLayoutOrASendThatFailsEndsTheTicket() {
        var layout = PrintJob(committed: true, now: 0, timeout: 20)
        XCTAssertEqual(layout.handle(.layoutFailed(.documentFailed("no space")), now: 0),
                       [.finish(.failed(job: nil, reason: .documentFailed("no space")))])
        var send = PrintJob(committed: true, now: 0, timeout: 20)
        _ = send.handle(.laidOut(document), now: 0)
        XCTAssertEqual(send.handle(.sendFailed(.noSuchQueue("clup-ticket")), now: 0),
                       [.finish(.failed(job: nil, reason: .noSuchQueue("clup-ticket")))])
    }
}
