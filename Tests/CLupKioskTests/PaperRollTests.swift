@testable import CLupKiosk
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

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "clup-paper-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func test_theCountSinceANewRollSaysTheTicketsLeftAndGoesLowAtTheProfilesMark() {
        let paper = PaperRoll(directory: directory, logger: logger)
        var report = paper.report(roll: roll, reasons: [])
        XCTAssertNil(report.ticketsLeft, "no new roll said yet: not known")
        XCTAssertFalse(report.low)
        XCTAssertTrue(report.detail.contains("the roll's start is not known"), report.detail)
        paper.newRoll(at: Date(timeIntervalSince1970: 1_800_000_000), by: "tess")
        report = paper.report(roll: roll, reasons: [])
        XCTAssertEqual(report.ticketsLeft, 10)
        for _ in 0..<5 { paper.printed(.ticket) }
        paper.printed(.test)
        // 500 + 150 mm used: 350 mm, 3 tickets.
        report = paper.report(roll: roll, reasons: [])
        XCTAssertEqual(report.ticketsLeft, 3)
        XCTAssertTrue(report.low)
        XCTAssertEqual(report.source, "count")
        XCTAssertEqual(report.problem, "PAPER LOW: about 3 tickets left (1 m roll, 100 mm a ticket); 5 tickets and 1 test prints "
            + "since the roll was put in 2027-01-15T08:00:00Z by tess")
        // Past the roll's end: none left, never below.
        for _ in 0..<20 { paper.printed(.ticket) }
        XCTAssertEqual(paper.report(roll: roll, reasons: []).ticketsLeft, 0)
    }

    func test_theCountSurvivesARestartAndANewRollStartsItAgain() {
        let paper = PaperRoll(directory: directory, logger: logger)
        paper.newRoll(at: Date(timeIntervalSince1970: 1_800_000_000), by: "tess")
        for _ in 0..<4 { paper.printed(.ticket) }
        let again = PaperRoll(directory: directory, logger: logger)
        XCTAssertEqual(again.count, paper.count)
        XCTAssertEqual(again.report(roll: roll, reasons: []).ticketsLeft, 6)
        again.newRoll(at: Date(timeIntervalSince1970: 1_800_086_400), by: "ugo")
        XCTAssertEqual(PaperRoll(directory: directory, logger: logger).report(roll: roll, reasons: []).ticketsLeft, 10)
    }

    func test_theSensorWinsWhereTheProfileHasOne() {
        let sensed = PrinterProfile.Roll(lengthMillimetres: 1000, ticketMillimetres: 100, testMillimetres: 150, nearEndSensor: true, lowTickets: 3)
        let paper = PaperRoll(directory: directory, logger: logger)
        paper.newRoll(at: Date(), by: "tess")
        for _ in 0..<9 { paper.printed(.ticket) }
        // The count says 1 left; the sensor says there is paper: not low.
        var report = paper.report(roll: sensed, reasons: ["none"])
        XCTAssertFalse(report.low)
        XCTAssertEqual(report.source, "sensor")
        XCTAssertEqual(report.ticketsLeft, 1)
        // A fresh roll by the count; the sensor says nearly out: low.
        paper.newRoll(at: Date(), by: "tess")
        report = paper.report(roll: sensed, reasons: ["media-low-report"])
        XCTAssertTrue(report.low)
        XCTAssertTrue(report.detail.hasPrefix("the printer's near-end sensor says the roll is nearly out"), report.detail)
        // A printer without a profile's roll that says media-low: low by its word.
        XCTAssertTrue(paper.report(roll: nil, reasons: ["media-low"]).low)
        XCTAssertFalse(paper.report(roll: nil, reasons: []).low)
    }

    func test_aDamagedCountFileStartsTheCountAgainRatherThanStopClupd() throws {
        try Data("{\"tickets\": -4, \"tests\": 0}".utf8).write(to: URL(fileURLWithPath: directory + "/" + PaperRoll.fileName))
        XCTAssertEqual(PaperRoll(directory: directory, logger: logger).count, PaperRoll.Count())
        try Data("not json".utf8).write(to: URL(fileURLWithPath: directory + "/" + PaperRoll.fileName))
        let paper = PaperRoll(directory: directory, logger: logger)
        XCTAssertNil(paper.report(roll: roll, reasons: []).ticketsLeft)
        paper.printed(.ticket)
        XCTAssertEqual(PaperRoll(directory: directory, logger: logger).count.tickets, 1, "written whole over the damaged file")
    }
}
