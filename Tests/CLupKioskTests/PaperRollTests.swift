@testable import CLupKiosk
import CLupCore
import CLupPrinting
import CLupProtocol
import Foundation
import Logging
import XCTest

/// The paper on the roll: counted from the technician's "new roll", kept across restarts,
/// tickets left by the profile's lengths, and the printer's near-end sensor winning.
final class PaperRollTests: XCTestCase {
    var directory: String!
    let logger = Logger(label: "paper-test")
    /// A roll of 1 m: 10 tickets of 100 mm, a test print 150 mm; low from 3 tickets left.
    let roll = PrinterProfile.Roll(lengthMillimetres: 1000, ticketMillimetres: 100, testMillimetres: 150, nearEndSensor: false, lowTickets: 3)

    /// The printer as CUPS said it, with these state reasons.
    func printer(_ reasons: [String], state: String = "idle") -> PrinterReport {
        PrinterReport(queue: "clup-ticket", ready: state == "idle", state: state, reasons: reasons, message: "", checkedSecondsAgo: 1)
    }

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "clup-paper-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func test_theCountSinceANewRollSaysTheTicketsLeftAndGoesLowAtTheProfilesMark() throws {
        let paper = PaperRoll(directory: directory, logger: logger)
        var report = paper.report(roll: roll, printer: printer([]))
        XCTAssertNil(report.ticketsLeft, "no new roll said yet: not known")
        XCTAssertFalse(report.low)
        XCTAssertTrue(report.detail.contains("the roll's start is not known"), report.detail)
        try paper.newRoll(at: Date(timeIntervalSince1970: 1_800_000_000), by: "tess")
        report = paper.report(roll: roll, printer: printer([]))
        XCTAssertEqual(report.ticketsLeft, 10)
        for _ in 0..<5 { paper.printed(.ticket) }
        paper.printed(.test)
        // 500 + 150 mm used: 350 mm, 3 tickets.
        report = paper.report(roll: roll, printer: printer([]))
        XCTAssertEqual(report.ticketsLeft, 3)
        XCTAssertTrue(report.low)
        XCTAssertEqual(report.source, "count")
        XCTAssertEqual(report.problem, "PAPER LOW: about 3 tickets left (1 m roll, 100 mm a ticket); 5 tickets and 1 test prints "
            + "since the roll was put in 2027-01-15T08:00:00Z by tess")
        // Past the roll's end: none left, never below.
        for _ in 0..<20 { paper.printed(.ticket) }
        XCTAssertEqual(paper.report(roll: roll, printer: printer([])).ticketsLeft, 0)
    }

    func test_theCountSurvivesARestartAndANewRollStartsItAgain() throws {
        let paper = PaperRoll(directory: directory, logger: logger)
        try paper.newRoll(at: Date(timeIntervalSince1970: 1_800_000_000), by: "tess")
        for _ in 0..<4 { paper.printed(.ticket) }
        let again = PaperRoll(directory: directory, logger: logger)
        XCTAssertEqual(again.count, paper.count)
        XCTAssertEqual(again.report(roll: roll, printer: printer([])).ticketsLeft, 6)
        try again.newRoll(at: Date(timeIntervalSince1970: 1_800_086_400), by: "ugo")
        XCTAssertEqual(PaperRoll(directory: directory, logger: logger).report(roll: roll, printer: printer([])).ticketsLeft, 10)
    }

    func test_theSensorWinsWhereTheProfileHasOne() throws {
        let sensed = PrinterProfile.Roll(lengthMillimetres: 1000, ticketMillimetres: 100, testMillimetres: 150, nearEndSensor: true, lowTickets: 3)
        let paper = PaperRoll(directory: directory, logger: logger)
        try paper.newRoll(at: Date(), by: "tess")
        for _ in 0..<9 { paper.printed(.ticket) }
        // The count says 1 left; the sensor says there is paper: not low.
        var report = paper.report(roll: sensed, printer: printer(["none"]))
        XCTAssertFalse(report.low)
        XCTAssertEqual(report.source, "sensor")
        XCTAssertEqual(report.ticketsLeft, 1)
        // A fresh roll by the count; the sensor says nearly out: low.
        try paper.newRoll(at: Date(), by: "tess")
        report = paper.report(roll: sensed, printer: printer(["media-low-report"]))
        XCTAssertTrue(report.low)
        XCTAssertTrue(report.detail.hasPrefix("the printer's near-end sensor says the roll is nearly out"), report.detail)
        // A printer without a profile's roll that says media-low: low by its word.
        XCTAssertTrue(paper.report(roll: nil, printer: printer(["media-low"])).low)
        XCTAssertFalse(paper.report(roll: nil, printer: printer([])).low)
        // A profile without a sensor: the printer's media-low still counts.
        XCTAssertTrue(paper.report(roll: roll, printer: printer(["media-low-report"])).low)
        // A printer out of paper is low whatever the count.
        let out = paper.report(roll: roll, printer: printer(["media-empty-error"], state: "stopped"))
        XCTAssertTrue(out.low)
        XCTAssertTrue(out.detail.hasPrefix("the printer says it has no paper"), out.detail)
        // A sensor that could not be asked says nothing: the count decides.
        for _ in 0..<8 { paper.printed(.ticket) }
        let silent = paper.report(roll: sensed, printer: PrinterReport(queue: "clup-ticket", ready: false, state: "unreachable", reasons: [],
                                                                      message: "cupsd does not answer", checkedSecondsAgo: 40))
        XCTAssertEqual(silent.source, "count")
        XCTAssertTrue(silent.low, silent.detail)
    }

    func test_aNewRollThatCannotBeKeptIsRefusedAndTheCountStays() throws {
        let paper = PaperRoll(directory: directory, logger: logger)
        try paper.newRoll(at: Date(timeIntervalSince1970: 1_800_000_000), by: "tess")
        paper.printed(.ticket)
        // The folder made read-only (root passes permissions): the file's place taken by a folder.
        try FileManager.default.removeItem(atPath: directory + "/" + PaperRoll.fileName)
        try FileManager.default.createDirectory(atPath: directory + "/" + PaperRoll.fileName, withIntermediateDirectories: false)
        XCTAssertThrowsError(try paper.newRoll(at: Date(), by: "ugo")) { error in
            XCTAssertEqual((error as? CodedError)?.errorCode, .paperCountUnsaved, "\(error)")
        }
        XCTAssertEqual(paper.count.tickets, 1, "the count in force stays")
        XCTAssertEqual(paper.count.changedBy, "tess")
    }

    func test_aDamagedCountFileStartsTheCountAgainRatherThanStopClupd() throws {
        try Data("{\"tickets\": -4, \"tests\": 0}".utf8).write(to: URL(fileURLWithPath: directory + "/" + PaperRoll.fileName))
        XCTAssertEqual(PaperRoll(directory: directory, logger: logger).count, PaperRoll.Count())
        try Data("not json".utf8).write(to: URL(fileURLWithPath: directory + "/" + PaperRoll.fileName))
        let paper = PaperRoll(directory: directory, logger: logger)
        XCTAssertNil(paper.report(roll: roll, printer: printer([])).ticketsLeft)
        paper.printed(.ticket)
        XCTAssertEqual(PaperRoll(directory: directory, logger: logger).count.tickets, 1, "written whole over the damaged file")
    }
}
