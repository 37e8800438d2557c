import CLupPrinting
import Foundation
import XCTest

/// Against a real, private cupsd: `clup-ticket` captures each job; `clup-paperout` fails
/// every job the way a real backend reports an empty paper roll.
final class CUPSPrinterTests: XCTestCase {
    static var cups: PrivateCUPS? { PrivateCUPS.shared }

    func document() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("clup-doc-\(UUID()).pdf")
        try TicketLayout(paper: .mm80).writePDF(
            TicketContent(storeName: "S", number: "A-001", laneLabel: "Queue ticket", issuedAt: "now",
                          estimatedWait: "soon", code: "CODE", instructions: ["scan"]), to: url.path)
        return url
    }

    func test_aJobSubmittedToAWorkingQueueCompletesAndIsPrintedByteForByte() throws {
        let cups = try XCTUnwrap(Self.cups, "private cupsd did not start")
        let pdf = try document()
        let printer = CUPSPrinter(queue: "clup-ticket")
        let job = try printer.submit(file: pdf.path, title: "A-001-test")
        XCTAssertEqual(printer.follow(job: job, timeout: 20), .completed(job: job))
        XCTAssertEqual(try cups.capturedJob(job), try Data(contentsOf: pdf))
        XCTAssertTrue(try printer.status().isReady)
    }

    func test_anEmptyPaperRollFailsTheJobAsOutOfPaperAndShowsInTheStatus() throws {
        _ = try XCTUnwrap(Self.cups, "private cupsd did not start")
        let printer = CUPSPrinter(queue: "clup-paperout")
        let job = try printer.submit(file: try document().path, title: "A-002-test")
        XCTAssertEqual(printer.follow(job: job, timeout: 20), .failed(job: job, reason: .outOfPaper))
        let status = try printer.status()
        XCTAssertTrue(status.reasons.contains("media-empty-error"), "\(status.reasons)")
        XCTAssertFalse(status.isReady)
    }

    func test_anUnknownQueueIsNamedInTheError() throws {
        _ = try XCTUnwrap(Self.cups, "private cupsd did not start")
        let printer = CUPSPrinter(queue: "no-such-printer")
        XCTAssertThrowsError(try printer.submit(file: try document().path, title: "x")) { error in
            XCTAssertEqual(error as? PrintError, .noSuchQueue("no-such-printer"))
        }
    }
}

/// The jobs cupsd holds, as the kiosk settles them after a restart.
final class QueuedJobTests: XCTestCase {
    func test_aJobCreatedWithoutItsDocumentIsListedAsAwaitingIt() throws {
        _ = try XCTUnwrap(PrivateCUPS.shared, "private cupsd did not start")
        let printer = CUPSPrinter(queue: "clup-hang")
        let empty = try printer.createJob(title: "A-041-2026-11-22")
        let listed = try printer.unfinishedJobs().first { $0.id == empty }
        XCTAssertEqual(listed?.name, "A-041-2026-11-22")
        XCTAssertEqual(listed?.isAwaitingDocument, true, "\(String(describing: listed))")
        XCTAssertEqual(try printer.job(empty).isAwaitingDocument, true)
        printer.cancel(job: empty)
        XCTAssertNil(try printer.unfinishedJobs().first { $0.id == empty }, "a cancelled job has ended")
        XCTAssertEqual(try printer.job(empty).state, .canceled)
    }

    func test_aJobWithItsDocumentIsNotAwaitingOne() throws {
        _ = try XCTUnwrap(PrivateCUPS.shared, "private cupsd did not start")
        let printer = CUPSPrinter(queue: "clup-hang")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("clup-doc-\(UUID()).prn")
        try Data("ticket".utf8).write(to: url)
        let job = try printer.submit(file: url.path, title: "A-042-2026-11-22", format: "application/vnd.cups-raw")
        defer { printer.cancel(job: job) }
        let listed = try XCTUnwrap(try printer.unfinishedJobs().first { $0.id == job })
        XCTAssertFalse(listed.isAwaitingDocument, "\(listed)")
        XCTAssertEqual(listed.documents, 1)
    }
}
