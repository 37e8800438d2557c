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

    /// cupsd 2.4 unloads an ended job's attributes a second or so after it ends, and then
    /// answers a Get-Jobs for cheap attributes from memory, where the job has no name: a
    /// restart missed the completed job of a ticket whose job id clupd had not recorded, and
    /// recorded the printed ticket as failed (issue 23, point 11).
    func test_aCompletedJobIsListedWithItsNameAfterCupsdUnloadedIt() throws {
        _ = try XCTUnwrap(Self.cups, "private cupsd did not start")
        let printer = CUPSPrinter(queue: "clup-ticket")
        let title = "A-043-2026-11-22"
        let job = try printer.printFile(try document().path, title: title)
        // Waits on cupsd's memory alone: asking for the job itself would load it again.
        let deadline = Date().addingTimeInterval(180)
        while try printer.reportFromMemory(of: job).map({ $0.state != .completed || $0.name != nil }) ?? true {
            guard Date() < deadline else {
                return XCTFail("cupsd did not unload job \(job) within 180 s: \(String(describing: try printer.reportFromMemory(of: job)))")
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let listed = try XCTUnwrap(try printer.jobs(includingEnded: true).first { $0.id == job }, "the job is listed")
        XCTAssertEqual(listed.name, title, "a restart finds the ticket's job by its name")
        XCTAssertEqual(listed.state, .completed)
        XCTAssertEqual(try printer.jobs(includingEnded: true).filter { $0.id == job }.count, 1, "listed once")
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
    /// Job `id` as a Get-Jobs for only the attributes cupsd keeps in memory reports it (what
    /// `jobs(includingEnded:)` asked for before issue 23), which does not load the job: its
    /// state, and its name if cupsd has one. Nil when the job is not listed.
    func reportFromMemory(of id: Int) throws -> (state: JobState?, name: String?)? {
        let request = ippNewRequest(IPP_OP_GET_JOBS)
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_URI, "printer-uri", nil, "ipp://localhost/printers/\(queue)")
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_KEYWORD, "which-jobs", nil, "all")
        let attributes: [String] = ["job-id", "job-name", "job-state"]
        let names = attributes.map { strdup($0) }
        defer { names.forEach { free($0) } }
        names.withUnsafeBufferPointer { pointers in
            pointers.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: names.count) { values in
                _ = ippAddStrings(request, IPP_TAG_OPERATION, IPP_TAG_KEYWORD, "requested-attributes", Int32(names.count), nil, values)
            }
        }
        guard let response = cupsDoRequest(nil, request, "/") else {
            throw NSError(domain: "CUPS", code: 1, userInfo: [NSLocalizedDescriptionKey: String(cString: cupsLastErrorString())])
        }
        defer { ippDelete(response) }
        // Each job's attributes are a group of their own, in no set order.
        var found: (state: JobState?, name: String?)?
        var group: [String: OpaquePointer] = [:]
        func finishGroup() {
            if group["job-id"].map({ Int(ippGetInteger($0, 0)) }) == id {
                found = (group["job-state"].flatMap { JobState(rawValue: ippGetInteger($0, 0)) },
                         group["job-name"].flatMap { ippGetString($0, 0, nil) }.map { String(cString: $0) })
            }
            group = [:]
        }
        var attribute = ippFirstAttribute(response)
        while let current = attribute {
            if let name = ippGetName(current), ippGetGroupTag(current) == IPP_TAG_JOB {
                group[String(cString: name)] = current
            } else {
                finishGroup()
            }
            attribute = ippNextAttribute(response)
        }
        finishGroup()
        return found
    }

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
