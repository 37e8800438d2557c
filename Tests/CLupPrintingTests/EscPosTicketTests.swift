import CLupCore
@testable import CLupPrinting
import CLupQR
import Crypto
import Foundation
import XCTest

final class EscPosTicketTests: XCTestCase {
    static let profiles = PrivateCUPS.repositoryRoot.appendingPathComponent("hardware/printers")
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("clup-escpos-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func profile(_ name: String) throws -> PrinterProfile {
        try PrinterProfile.load(path: Self.profiles.appendingPathComponent("\(name).json").path)
    }

    let code: String = {
        let payload = TicketPayload(store: 7, number: TicketNumber(totem: "A", lane: .priority, sequence: 4),
                                    issuedAt: Date(timeIntervalSince1970: 1_795_000_000), validMinutes: 240)
        return TicketCode.make(payload, signedWith: Curve25519.Signing.PrivateKey())
    }()

    var content: TicketContent {
        TicketContent(storeName: "CLup Market Città", number: "AP-004", laneLabel: "Priority ticket",
                      issuedAt: "2026-11-21 10:02", estimatedWait: "Estimated wait: 7–15 min", code: code,
                      instructions: ["Scan this code at the door", "Scansiona il codice all'ingresso"])
    }

    func test_theBitmapQRReadsBackOnBothPaperWidths() throws {
        for name in ["escpos-80mm-raster", "escpos-58mm-raster"] {
            let profile = try profile(name)
            let reader = try EscPosLanguagesTests.read(EscPosTicket(profile: profile).encode(content), profile)
            XCTAssertEqual(reader.rasters.count, 1, name)
            let raster = try XCTUnwrap(reader.rasters.first)
            XCTAssertLessThanOrEqual(raster.bytesPerRow * 8, profile.dotsPerLine, "\(name): the QR is wider than the paper")
            let image = directory.appendingPathComponent("\(name).pbm")
            try raster.pbm().write(to: image)
            XCTAssertEqual(try runTool("zbarimg", ["--quiet", "--raw", image.path]).output, code + "\n", name)
        }
    }

    func test_theTextSaysNumberWaitAndInstructionsWithTheirAccents() throws {
        let profile = try profile("escpos-80mm-raster")
        let reader = try EscPosLanguagesTests.read(EscPosTicket(profile: profile).encode(content), profile)
        XCTAssertTrue(reader.initialised)
        XCTAssertEqual(reader.lines.map(\.text), ["CLup Market Città", "AP-004", "Priority ticket",
                                                  "Estimated wait: 7-15 min", "2026-11-21 10:02",
                                                  "Scan this code at the door", "Scansiona il codice all'ingresso"])
        let number = try XCTUnwrap(reader.lines.first { $0.text == "AP-004" })
        XCTAssertEqual(number.scale, 6, "the number is printed big")
        XCTAssertTrue(number.bold)
        XCTAssertTrue(reader.cut)
    }

    func test_aBigNumberShrinksToFitNarrowPaper() throws {
        let profile = try profile("escpos-58mm-raster")
        let reader = try EscPosLanguagesTests.read(EscPosTicket(profile: profile).encode(content), profile)
        let number = try XCTUnwrap(reader.lines.first { $0.text == "AP-004" })
        XCTAssertLessThanOrEqual(number.scale * 6 * 12, profile.dotsPerLine)
        XCTAssertFalse(reader.cut, "this profile has no cutter")
    }

    func test_thePrintersOwnQRCommandCarriesTheCode() throws {
        let profile = try profile("escpos-80mm-native-qr")
        let reader = try EscPosLanguagesTests.read(EscPosTicket(profile: profile).encode(content), profile)
        XCTAssertEqual(reader.qrData, [code])
        XCTAssertEqual(reader.qrPrinted, 1)
        XCTAssertTrue(reader.rasters.isEmpty)
    }

    func test_aBadProfileSaysWhatIsWrong() throws {
        let path = directory.appendingPathComponent("bad.json")
        try Data(#"{"name": "x", "language": "escpos", "paper": "90mm", "dotsPerLine": 576, "dpi": 203, "qr": "raster", "cutter": true}"#.utf8).write(to: path)
        XCTAssertThrowsError(try PrinterProfile.load(path: path.path)) { error in
            XCTAssertTrue("\(error)".contains("bad value for \"paper\""), "\(error)")
        }
        try Data(#"{"name": "x"}"#.utf8).write(to: path)
        XCTAssertThrowsError(try PrinterProfile.load(path: path.path)) { error in
            XCTAssertTrue("\(error)".contains("missing \"language\""), "\(error)")
        }
    }

    /// A profile's roll says what a ticket takes: never less than the paper the longest
    /// ticket's own bytes feed (five languages' instructions, wrapped; text lines at their
    /// scale, the QR code, the feed before the cut), so the count of tickets left errs
    /// early, and not wildly more. The PDF profile's page is the driver's to feed: not checked.
    func test_eachShippedEscPosProfileGivesATicketAtLeastTheLengthItsLongestTicketFeeds() throws {
        let longest = TicketContent(storeName: content.storeName, number: content.number, laneLabel: content.laneLabel,
                                    issuedAt: content.issuedAt, estimatedWait: content.estimatedWait, code: content.code, instructions: ["Scan this code at the door when your number is called",
                                "Scansiona questo codice all'ingresso quando viene chiamato il tuo numero",
                                "Scannen Sie diesen Code am Eingang, wenn Ihre Nummer aufgerufen wird",
                                "Scannez ce code à l'entrée quand votre numéro est appelé",
                                "Escanea este código en la entrada cuando llamen a tu número"])
        for name in ["escpos-80mm-raster", "escpos-80mm-native-qr", "escpos-58mm-raster"] {
            let profile = try profile(name)
            let roll = try XCTUnwrap(profile.roll, name)
            let ticket = EscPosTicket(profile: profile)
            let reader = try EscPosReader(try ticket.encode(longest), codePages: Dictionary(uniqueKeysWithValues: profile.codePages.map {
                ($0.select, EscPosLanguagesTests.iconvNames[$0.name] ?? "?")
            }))
            // Font A is 24 dots high at scale 1, each line with 6 dots between lines; a bitmap
            // QR is as high as it is, the printer's own as many modules (quiet zone included)
            // as the module size it was given; ESC d 4 feeds four lines of 30 dots.
            let qr = try QRCode(encoding: longest.code)
            let nativeQR = reader.qrPrinted * (qr.size + 8) * ticket.moduleDots(qr)
            let dots = reader.lines.reduce(0) { $0 + 24 * $1.scale + 6 } + reader.rasters.reduce(0) { $0 + $1.height + 30 } + nativeQR + 4 * 30
            let millimetres = Double(dots) / Double(profile.dpi) * 25.4
            XCTAssertGreaterThanOrEqual(Double(roll.ticketMillimetres), millimetres, "\(name): its longest ticket feeds \(Int(millimetres)) mm")
            XCTAssertLessThanOrEqual(Double(roll.ticketMillimetres), millimetres * 1.3 + 15, "\(name): its longest ticket feeds \(Int(millimetres)) mm")
            XCTAssertGreaterThan(roll.testMillimetres, roll.ticketMillimetres, "\(name): a test print is longer than a ticket")
            XCTAssertEqual(reader.cut, profile.cutter, name)
        }
    }

    func test_aRollThatCannotBeSaysWhatIsWrong() throws {
        let path = directory.appendingPathComponent("roll.json")
        try Data(#"{"name": "x", "language": "escpos", "paper": "80mm", "dotsPerLine": 576, "dpi": 203, "qr": "raster", "cutter": true, "roll": {"lengthMillimetres": 80000, "ticketMillimetres": 0, "testMillimetres": 150, "nearEndSensor": false, "lowTickets": 80}}"#.utf8).write(to: path)
        XCTAssertThrowsError(try PrinterProfile.load(path: path.path)) { error in
            XCTAssertTrue("\(error)".contains("roll.ticketMillimetres and roll.testMillimetres must be 10...2000"), "\(error)")
        }
    }

    func test_everyShippedProfileLoads() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.profiles.path).filter { $0.hasSuffix(".json") }
        XCTAssertGreaterThanOrEqual(files.count, 4)
        for file in files {
            XCTAssertNoThrow(try PrinterProfile.load(path: Self.profiles.appendingPathComponent(file).path), file)
        }
    }
}

/// ESC/POS through a real, private cupsd: a raw queue passes the bytes untouched.
final class EscPosThroughCUPSTests: XCTestCase {
    static var cups: PrivateCUPS? { PrivateCUPS.shared }

    func test_anEscPosTicketReachesThePrinterByteForByteAndItsQRReadsBack() throws {
        let cups = try XCTUnwrap(Self.cups, "private cupsd did not start")
        let profile = try PrinterProfile.load(path: EscPosTicketTests.profiles.appendingPathComponent("escpos-58mm-raster.json").path)
        let code = "HELLO 1234"
        let bytes = try EscPosTicket(profile: profile).encode(TicketContent(
            storeName: "S", number: "A-001", laneLabel: "Queue ticket", issuedAt: "now", estimatedWait: "soon",
            code: code, instructions: ["scan"]))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("clup-\(UUID()).escpos")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let printer = CUPSPrinter(queue: "clup-ticket")
        let job = try printer.printFile(file.path, title: "A-001-escpos", format: "application/vnd.cups-raw")
        XCTAssertEqual(try printer.waitForEnd(of: job).state, .completed)
        let captured = try cups.capturedJob(job)
        XCTAssertEqual(Array(captured), bytes)
        let image = FileManager.default.temporaryDirectory.appendingPathComponent("clup-\(UUID()).pbm")
        defer { try? FileManager.default.removeItem(at: image) }
        try XCTUnwrap(try EscPosReader(Array(captured)).rasters.first).pbm().write(to: image)
        XCTAssertEqual(try runTool("zbarimg", ["--quiet", "--raw", image.path]).output, code + "\n")
    }

    func test_aTicketInEachLanguageComesOutOfCupsdWithItsAccentsAndAReadableQR() throws {
        let cups = try XCTUnwrap(Self.cups, "private cupsd did not start")
        let profile = try PrinterProfile.load(path: EscPosTicketTests.profiles.appendingPathComponent("escpos-80mm-raster.json").path)
        let printer = CUPSPrinter(queue: "clup-ticket")
        for language in EscPosLanguagesTests.languages {
            let content = try EscPosLanguagesTests.ticket(in: language)
            let bytes = try EscPosTicket(profile: profile).encode(content)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("clup-\(UUID()).escpos")
            try Data(bytes).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let job = try printer.printFile(file.path, title: "A-017-\(language)", format: "application/vnd.cups-raw")
            XCTAssertEqual(try printer.waitForEnd(of: job).state, .completed, language)
            let printed = try EscPosLanguagesTests.read(Array(try cups.capturedJob(job)), profile)
            let text = printed.lines.map(\.text).joined(separator: " ")
            for sentence in [content.storeName, content.laneLabel] + content.instructions {
                XCTAssertTrue(text.contains(sentence), "\(language): \"\(sentence)\" is not on the paper: \(text)")
            }
            let image = FileManager.default.temporaryDirectory.appendingPathComponent("clup-\(UUID()).pbm")
            defer { try? FileManager.default.removeItem(at: image) }
            try XCTUnwrap(printed.rasters.first).pbm().write(to: image)
            XCTAssertEqual(try runTool("zbarimg", ["--quiet", "--raw", image.path]).output, EscPosLanguagesTests.code + "\n", language)
        }
    }
}
