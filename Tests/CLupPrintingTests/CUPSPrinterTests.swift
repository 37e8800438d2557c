import CCUPS
import CLupPrinting
import Foundation
import XCTest

/// Against a real, private cupsd: `clup-ticket` captures each job; `clup-paperout` fails
/// every job the way a real backend reports an empty paper roll; `clup-hang` never ends one.
final class CUPSPrinterTests: XCTestCase {
    static var cups: PrivateCUPS? { PrivateCUPS.shared }

    func document() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("clup-doc-\(UUID()).pdf")
        try TicketLayout(paper: .mm80).writePDF(
            TicketContent(storeName: "S", number: "A-001", laneLabel: "Queue ticket", issuedAt: "now",
                          estimatedWait: "soon", code: "CODE", instructions: ["scan"]), to: url.path)
        return url
    }

    func test_aJobPrintedToAWorkingQueueCompletesAndIsPrintedByteForByte() throws {
        let cups = try XCTUnwrap(Self.cups, "private cupsd did not start")
        let pdf = try document()
        let printer = CUPSPrinter(queue: "clup-ticket")
        let job = try printer.printFile(pdf.path, title: "A-001-test")
        let ended = try printer.waitForEnd(of: job)
        XCTAssertEqual(ended.state, .completed)
        XCTAssertEqual(ended.name, "A-001-test")
        XCTAssertEqual(try cups.capturedJob(job), try Data(contentsOf: pdf))
        XCTAssertTrue(try printer.status().isReady)
        XCTAssertTrue(try printer.jobs(includingEnded: true).contains { $0.id == job }, "an ended job is in the history")
        XCTAssertFalse(try printer.jobs().contains { $0.id == job }, "and not among the unfinished")
    }

    func test_anEmptyPaperRollFailsTheJobAsOutOfPaperAndShowsInTheStatus() throws {
        _ = try XCTUnwrap(Self.cups, "private cupsd did not start")
        let printer = CUPSPrinter(queue: "clup-paperout")
        let job = try printer.printFile(try document().path, title: "A-002-test")
        let ended = try printer.waitForEnd(of: job)
        XCTAssertEqual(ended.state, .aborted)
        let status = try printer.status()
        XCTAssertEqual(PrintError.from(state: ended.state, reasons: ended.reasons + status.reasons), .outOfPaper)
        XCTAssertTrue(status.reasons.contains("media-empty-error"), "\(status.reasons)")
        XCTAssertFalse(status.isReady)
    }

    func test_anUnknownQueueIsNamedInTheError() throws {
        _ = try XCTUnwrap(Self.cups, "private cupsd did not start")
        let printer = CUPSPrinter(queue: "no-such-printer")
        XCTAssertThrowsError(try printer.printFile(try document().path, title: "x")) { error in
            XCTAssertEqual(error as? PrintError, .noSuchQueue("no-such-printer"))
        }
    }
}

/// The jobs cupsd holds, as the kiosk settles them after a restart.
final class QueuedJobTests: XCTestCase {
    /// What a clupd before Print-Job left when stopped between creating a job and sending
    /// its document: a job without one, which cupsd would hold for ever.
    func test_aJobCreatedWithoutItsDocumentIsListedAsAwaitingIt() throws {
        _ = try XCTUnwrap(PrivateCUPS.shared, "private cupsd did not start")
        let printer = CUPSPrinter(queue: "clup-hang")
        let empty = Int(cupsCreateJob(nil, "clup-hang", "A-041-2026-11-22", 0, nil))
        XCTAssertGreaterThan(empty, 0, String(cString: cupsLastErrorString()))
        let listed = try printer.jobs().first { $0.id == empty }
        XCTAssertEqual(listed?.name, "A-041-2026-11-22")
        XCTAssertEqual(listed?.isAwaitingDocument, true, "\(String(describing: listed))")
        XCTAssertEqual(try printer.job(empty).isAwaitingDocument, true)
        printer.cancel(job: empty)
        XCTAssertNil(try printer.jobs().first { $0.id == empty }, "a cancelled job has ended")
        XCTAssertEqual(try printer.job(empty).state, .canceled)
    }

    func test_aJobWithItsDocumentIsNotAwaitingOne() throws {
        _ = try XCTUnwrap(PrivateCUPS.shared, "private cupsd did not start")
        let printer = CUPSPrinter(queue: "clup-hang")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("clup-doc-\(UUID()).prn")
        try Data("ticket".utf8).write(to: url)
        let job = try printer.printFile(url.path, title: "A-042-2026-11-22", format: "application/vnd.cups-raw")
        defer { printer.cancel(job: job) }
        let listed = try XCTUnwrap(try printer.jobs().first { $0.id == job })
        XCTAssertFalse(listed.isAwaitingDocument, "\(listed)")
        XCTAssertEqual(listed.documents, 1)
    }
}

extension CUPSPrinter {
    /// Job `id` once it has ended (a minute at most, for a machine that busy).
    func waitForEnd(of id: Int) throws -> QueuedJob {
        let deadline = Date().addingTimeInterval(60)
        while true {
            let job = try self.job(id)
            if [.completed, .aborted, .canceled].contains(job.state) || Date() > deadline { return job }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
