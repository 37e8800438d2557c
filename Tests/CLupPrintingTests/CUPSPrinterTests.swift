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
