import CLupCore
import CLupDrawing
import Crypto
@testable import CLupPrinting
import Foundation
import XCTest
import CLupQR

final class TicketLayoutTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("clup-layout-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func content(code: String) -> TicketContent {
        TicketContent(storeName: "CLup Market Via Roma", number: "AP-004", laneLabel: "Priority ticket",
                      issuedAt: "2026-11-21 10:02", estimatedWait: "Estimated wait: about 10 min",
                      code: code, instructions: ["Scan this code at the door when your number is called", "Scansiona il codice all'ingresso quando chiamano il tuo numero"])
    }

    let typicalCode: String = {
        let payload = TicketPayload(store: 7, number: TicketNumber(totem: "A", lane: .priority, sequence: 4),
                                    issuedAt: Date(timeIntervalSince1970: 1_795_000_000), validMinutes: 240)
        return TicketCode.make(payload, signedWith: Curve25519.Signing.PrivateKey())
    }()

    func test_aTicketsQRReadsBackAt203DpiOnBothPaperWidths() throws {
        for paper in PaperWidth.allCases {
            let pdf = directory.appendingPathComponent("ticket-\(paper.rawValue).pdf")
            try TicketLayout(paper: paper).writePDF(content(code: typicalCode), to: pdf.path)
            XCTAssertEqual(try decodeQR(inPDF: pdf), typicalCode, paper.rawValue)
        }
    }

    func test_aTypicalTicketCodeFitsASmallQRSymbol() throws {
        let qr = try QRCode(encoding: typicalCode)
        XCTAssertLessThanOrEqual(qr.version, 6)
        XCTAssertEqual(qr.size, 17 + 4 * qr.version)
        XCTAssertEqual(qr.modules.count, qr.size * qr.size)
    }

    func test_theQRModulesAreTheStandardFinderPatterns() throws {
        let qr = try QRCode(encoding: "HELLO")
        // Each corner finder pattern has a dark outer ring and a light ring inside it.
        for (row, column) in [(0, 0), (0, qr.size - 7), (qr.size - 7, 0)] {
            XCTAssertTrue(qr.isDark(row: row, column: column))
            XCTAssertTrue(qr.isDark(row: row + 6, column: column + 6))
            XCTAssertFalse(qr.isDark(row: row + 1, column: column + 1))
            XCTAssertTrue(qr.isDark(row: row + 3, column: column + 3))
        }
    }

    func test_textTooLongForAnyQRSymbolIsRefused() {
        XCTAssertThrowsError(try QRCode(encoding: String(repeating: "x", count: 8000)))
    }

    /// On 58 mm paper a German ticket's sentences take more lines; none is shrunk under three
    /// quarters of its size, none runs off the paper, and every word is printed.
    func test_longSentencesWrapOnNarrowPaperInsteadOfShrinking() throws {
        let content = TicketContent(storeName: "Groß-Markt Café an der Donaulände", number: "A-017", laneLabel: "Vorrang-Ticket",
                                    issuedAt: "2026-11-24 10:02", estimatedWait: "Geschätzte Wartezeit: 10–18 Min.", code: typicalCode,
                                    instructions: ["Code am Eingang scannen, wenn Ihre Nummer aufgerufen wird",
                                                   "Scannez ce code à l'entrée quand votre numéro est appelé"])
        let layout = TicketLayout(paper: .mm58)
        let qr = try QRCode(encoding: typicalCode)
        let lines = layout.lines(of: content, measuring: try Canvas(width: 1, height: 1))
        XCTAssertGreaterThan(lines.instructions[0].count, 1, "the German sentence takes more than one line: \(lines.instructions)")
        let pdf = directory.appendingPathComponent("de-58.pdf")
        let canvas = try Canvas(pdfPath: pdf.path, width: PaperWidth.mm58.points, height: layout.height(for: qr, lines))
        layout.draw(content, lines, qr: qr, on: canvas)
        try canvas.finish()
        // Every letter in order (a line may end after a dash, where no space was).
        let printed = canvas.drawnTexts.map(\.text).joined().filter { $0 != " " }
        for sentence in [content.storeName, content.estimatedWait] + content.instructions {
            XCTAssertTrue(printed.contains(sentence.filter { $0 != " " }), "\"\(sentence)\" is not on the ticket: \(printed)")
        }
        for text in canvas.drawnTexts {
            XCTAssertGreaterThanOrEqual(text.x, layout.margin - 0.5, "\"\(text.text)\" runs off the left")
            XCTAssertLessThanOrEqual(text.x + text.width, canvas.width - layout.margin + 0.5, "\"\(text.text)\" runs off the right")
        }
        for text in canvas.drawnTexts where content.instructions.contains(where: { $0.contains(text.text) }) {
            XCTAssertGreaterThanOrEqual(text.size, TicketLayout.instructionSize * 0.75, "\"\(text.text)\" is shrunk")
        }
        XCTAssertEqual(canvas.unknownGlyphs, 0)
        XCTAssertEqual(try decodeQR(inPDF: pdf), typicalCode)
    }
}
