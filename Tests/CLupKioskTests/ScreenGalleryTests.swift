import CLupCore
import CLupDrawing
@testable import CLupKiosk
import Foundation
import XCTest

/// Every screen in every language, drawn: written as PNG into a folder to be looked at
/// (`$CLUP_SCREENSHOTS/screens`, else `test-screenshots/screens` in the checkout). No text
/// runs off the screen, out of its button or over another; every text has a contrast of at least 7:1
/// against what is behind it, measured on the image; every button is at least 20 mm × 20 mm
/// on the configured panel.
final class ScreenGalleryTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var folder: URL {
        let base = ProcessInfo.processInfo.environment["CLUP_SCREENSHOTS"].map { URL(fileURLWithPath: $0) }
            ?? root.appendingPathComponent("test-screenshots")
        return base.appendingPathComponent("screens")
    }

    /// One of each screen, with figures a real day could have.
    static let screens: [(String, Screen)] = [
        ("asleep-calling", .asleep), ("welcome", .welcome), ("finding-slots", .findingSlots),
        ("choosing-slot", .choosingSlot([
            SlotChoice(start: Date(timeIntervalSince1970: 0), time: "14:30", atHub: 3, own: 1),
            SlotChoice(start: Date(timeIntervalSince1970: 1800), time: "15:00", atHub: 12, own: 1),
            SlotChoice(start: Date(timeIntervalSince1970: 3600), time: "15:30", atHub: 1, own: 0),
            SlotChoice(start: Date(timeIntervalSince1970: 5400), time: "16:00", atHub: 0, own: 1)])),
        ("booking-slot", .bookingSlot(time: "14:30")), ("no-free-slots", .noFreeSlots),
        ("printing", .printing(number: "AP-017")), ("ticket-ready", .ticketReady(number: "A-017", wait: "")),
        ("print-failed", .printFailed(reason: "E-PRN-003 printer out of paper")), ("out-of-order", .outOfOrder),
        ("back-soon", .backSoon),
        ("store-full", .storeFull), ("store-closed", .storeClosed(hours: "08:00–20:00")),
        ("no-paper", .noTickets(paperOut: true)), ("printer-down", .noTickets(paperOut: false)),
        ("pin-pad-staff-number", .pinPad(PinEntry(staffNumber: "10472"))),
        ("pin-pad-refused", .pinPad(PinEntry(staffNumber: "10472", typingPin: true, pinDigits: 3, refused: true))),
        ("checking-pin", .checkingPin), ("pad-locked", .padLocked(until: "14:35")), ("priority-reason", .priorityReason),
        ("choosing-language", .choosingLanguage), ("still-there", .stillThere(.choosingSlot([]))),
        ("speech-settings", .speechSettings(speed: 1, loudness: 3)),
    ]

    func test_everyScreenInEveryLanguageIsDrawnReadableAndTouchable() throws {
        var geometry = ScreenGeometry(width: 720, height: 1280)
        geometry.offersBookings = true
        let renderer = ScreenRenderer(geometry: geometry)
        let facts = ScreenFacts(storeName: "CLup Market", inside: 27, capacity: 30, waiting: 12, called: ["A-015", "AP-003", "A-016"],
                                wait: WaitEstimate(low: 10, high: 18))
        var written = 0
        var (lowest, smallest, smallestCap) = (Double.infinity, Double.infinity, Double.infinity)
        // 0.7° at the default 500 mm: 6.1 mm.
        let minimumCap = ScreenSettings().viewingDistanceMM * tan(0.7 * .pi / 180)
        let screenSettings = ScreenSettings()
        let pixelsPerMM = (x: Double(screenSettings.width) / screenSettings.widthMM, y: Double(screenSettings.height) / screenSettings.heightMM)
        for language in TextCatalog.languages {
          for largeText in [false, true] {
            let folder = Self.folder.appendingPathComponent(largeText ? "\(language)/large-text" : language)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let texts = TextCatalog.of(language)
            for (name, screen) in Self.screens {
                // The ready line, as the kiosk words it in the customer's language.
                var shown = screen
                if case let .ticketReady(number, _) = screen {
                    shown = .ticketReady(number: number, wait: texts(.readyWait, ["wait": texts.wait(WaitEstimate(low: 10, high: 18))]))
                }
                let canvas = try renderer.render(shown, facts: facts, language: language, largeText: largeText)
                try canvas.writePNG(to: folder.appendingPathComponent("\(name).png").path)
                let bar: [Button.Action] = shown == .asleep || shown == .outOfOrder || shown == .backSoon ? []
                    : shown.isStaff || largeText ? [.repeatSpeech, .largeText] : [.repeatSpeech, .voice, .largeText]
                XCTAssertEqual(geometry.buttons(on: shown, language: language, largeText: largeText).suffix(bar.count).map(\.action), bar,
                               "\(language) \(name): Repeat, the voice's settings and large text (none where nothing can be touched)")
                let name = largeText ? "\(name) (large text)" : name
                written += 1
                for line in canvas.drawnTexts {
                    XCTAssertGreaterThanOrEqual(line.x, 0, "\(language) \(name): \"\(line.text)\" runs off the left")
                    XCTAssertLessThanOrEqual(line.x + line.width, geometry.width, "\(language) \(name): \"\(line.text)\" runs off the right")
                }
                // Every text against what is behind it: the lightest and the darkest pixel of its box.
                for line in canvas.drawnTexts where !line.text.trimmingCharacters(in: .whitespaces).isEmpty {
                    let ratio = Self.contrast(in: canvas, x: line.x, y: line.y - line.size * 0.75, width: line.width,
                                              height: line.size * 0.95)
                    XCTAssertGreaterThanOrEqual(ratio, 7, "\(language) \(name): \"\(line.text)\" has a contrast of \(ratio):1")
                    lowest = min(lowest, ratio)
                }
                // No text over another.
                for (index, one) in canvas.drawnTexts.enumerated() {
                    for other in canvas.drawnTexts.dropFirst(index + 1) {
                        let apart = one.x + one.width <= other.x || other.x + other.width <= one.x
                            || one.y + one.size * 0.25 <= other.y - other.size * 0.8 || other.y + other.size * 0.25 <= one.y - one.size * 0.8
                        XCTAssertTrue(apart, "\(language) \(name): \"\(one.text)\" and \"\(other.text)\" overlap")
                    }
                }
                // The staff corner is clear of text, and as big as a button.
                if let corner = geometry.staffCorner(on: shown) {
                    for line in canvas.drawnTexts {
                        let overlaps = line.x < corner.x + corner.width && line.x + line.width > corner.x
                            && line.y - line.size * 0.8 < corner.y + corner.height && line.y + line.size * 0.25 > corner.y
                        XCTAssertFalse(overlaps, "\(language) \(name): \"\(line.text)\" runs into the staff corner")
                    }
                    XCTAssertTrue(corner.width / pixelsPerMM.x >= 20 && corner.height / pixelsPerMM.y >= 20,
                                  "\(language) \(name): the staff corner is \(corner.width / pixelsPerMM.x) × \(corner.height / pixelsPerMM.y) mm")
                }
                for button in geometry.buttons(on: shown, language: language, largeText: largeText) {
                    // Nothing but its label (on one line or two) is drawn over a button, and all of it within.
                    var label: [String] = []
                    for line in canvas.drawnTexts {
                        let (top, bottom) = (line.y - line.size * 0.8, line.y + line.size * 0.25)
                        let overlaps = line.x < button.x + button.width && line.x + line.width > button.x
                            && top < button.y + button.height && bottom > button.y
                        guard overlaps else { continue }
                        label.append(line.text)
                        XCTAssertTrue(line.x >= button.x && line.x + line.width <= button.x + button.width
                                      && top >= button.y && bottom <= button.y + button.height,
                                      "\(language) \(name): \"\(line.text)\" runs out of the button \(button.action.name)")
                    }
                    XCTAssertEqual(label.joined(separator: " "), button.label,
                                   "\(language) \(name): what is drawn over the button \(button.action.name)")
                    let (wide, high) = (button.width / pixelsPerMM.x, button.height / pixelsPerMM.y)
                    XCTAssertTrue(wide >= 20 && high >= 20, "\(language) \(name): \(button.action.name) is \(wide) × \(high) mm")
                    smallest = min(smallest, min(wide, high))
                }
                // Large text: every capital H at least 0.7° at the viewing distance (EN 301 549 5.1.4).
                if largeText {
                    for line in canvas.drawnTexts {
                        let millimetres = line.capHeight / pixelsPerMM.y
                        XCTAssertGreaterThanOrEqual(millimetres, minimumCap - 0.01,
                                                    "\(language) \(name): \"\(line.text)\" has a capital H of \(millimetres) mm")
                        smallestCap = min(smallestCap, millimetres)
                    }
                }
            }
          }
        }
        // The calling board alone, on a landscape screen above the door.
        for language in TextCatalog.languages {
            let board = try ScreenRenderer(geometry: ScreenGeometry(width: 1280, height: 720))
                .renderCallingBoard(["A-015", "AP-003", "AR-004", "B-101", "A-017"], language: language)
            try board.writePNG(to: Self.folder.appendingPathComponent("\(language)/calling-board-1280x720.png").path)
            let numbers = board.drawnTexts.flatMap { $0.text.split(separator: " ") }.filter { TicketNumber(String($0)) != nil }
            XCTAssertEqual(numbers, ["A-015", "AP-003", "AR-004", "B-101"],
                           "\(language): the four called longest (a place from a phone among them), two to a line")
            for (index, line) in board.drawnTexts.enumerated() {
                XCTAssertTrue(line.x >= 0 && line.x + line.width <= 1280 && line.y - line.size * 0.8 >= 0 && line.y + line.size * 0.25 <= 720,
                              "\(language) calling board: \"\(line.text)\" runs off the screen")
                let ratio = Self.contrast(in: board, x: line.x, y: line.y - line.size * 0.75, width: line.width, height: line.size * 0.95)
                XCTAssertGreaterThanOrEqual(ratio, 7, "\(language) calling board: \"\(line.text)\" has a contrast of \(ratio):1")
                for other in board.drawnTexts.dropFirst(index + 1) {
                    XCTAssertTrue(line.y + line.size * 0.25 <= other.y - other.size * 0.8, "\(language) calling board: overlap")
                }
            }
        }
        XCTAssertEqual(written, 2 * TextCatalog.languages.count * Self.screens.count)
        print("screens: \(written) PNGs in \(Self.folder.path); the lowest text contrast \(String(format: "%.2f", lowest)):1, "
            + "the smallest button side \(String(format: "%.1f", smallest)) mm, the smallest large-text capital H "
            + "\(String(format: "%.2f", smallestCap)) mm (at least \(String(format: "%.2f", minimumCap)))")
    }

    func test_aWordTooLongForItsLineIsDrawnSmallerDownToAFloorThenSplitWithHyphens() throws {
        // Widths in letters, eight to a line; at the smallest size a word may take, ten.
        let count = { (text: String) in Double(text.count) }, narrow = { (text: String) in Double(text.count) * 0.8 }
        func lines(_ text: String, _ limit: Double) -> [String] {
            LineBreaking.lines(of: LineBreaking.pieces(splittingAtSpaces: text), limit: limit, width: count, narrowest: narrow)
        }
        XCTAssertEqual(lines("Bitte Donaudampfschifffahrt ok", 8), ["Bitte", "Donaudamp-", "fschifffa-", "hrt ok"])
        XCTAssertEqual(lines("Prenez un ticket", 9), ["Prenez un", "ticket"])
        XCTAssertEqual(lines("Willkommen", 9), ["Willkommen"], "ten letters fit at the smallest size: drawn smaller, whole")
        // Where a line may end is Unicode's rule (UAX #14, by Pango): after a dash too, and
        // never before the "!" or the ":" of French typography's no-break space.
        let scratch = try Canvas(width: 16, height: 16)
        XCTAssertEqual(scratch.breakablePieces(of: "Wartezeit: 10–18 Min."), ["Wartezeit: ", "10–", "18 ", "Min."])
        XCTAssertEqual(scratch.breakablePieces(of: "Attente estimée\u{A0}: 7 min"), ["Attente ", "estimée\u{A0}: ", "7 ", "min"])
        XCTAssertEqual(scratch.breakablePieces(of: "").joined(), "")
        // On a real canvas, in large text, a word that will not fit is split, never drawn under the floor.
        var geometry = ScreenGeometry(width: 720, height: 1280)
        geometry.offersBookings = true
        let canvas = try ScreenRenderer(geometry: geometry).render(
            .printFailed(reason: "E-PRN-003 Druckerpapierrollenhalterungsverriegelungsmechanismusstörung"),
            facts: ScreenFacts(storeName: "CLup", inside: 0, capacity: 30, waiting: 0, wait: WaitEstimate(low: 0, high: 0)),
            language: "de", largeText: true)
        let pieces = canvas.drawnTexts.filter { $0.text.contains("Druck") || $0.text.hasSuffix("-") || $0.text.hasSuffix("störung") }
        XCTAssertGreaterThan(pieces.count, 1, "the long word takes more than one line: \(canvas.drawnTexts.map(\.text))")
        for piece in pieces {
            XCTAssertLessThanOrEqual(piece.x + piece.width, 720)
            XCTAssertGreaterThanOrEqual(piece.capHeight, geometry.largeCapHeight - 0.01, "\"\(piece.text)\" is drawn smaller")
        }
    }

    /// WCAG's contrast ratio between the lightest and the darkest pixel of a box of `canvas`.
    static func contrast(in canvas: Canvas, x: Double, y: Double, width: Double, height: Double) -> Double {
        canvas.withPixels { pixels, stride in
            let columns = stride   // pixels per row
            let rows = pixels.count / max(1, columns)
            let x0 = max(0, Int(x)), x1 = min(columns - 1, Int((x + width).rounded(.up)))
            let y0 = max(0, Int(y)), y1 = min(rows - 1, Int((y + height).rounded(.up)))
            guard x0 < x1, y0 < y1 else { return 1 }
            var (light, dark) = (0.0, 1.0)
            for row in y0...y1 {
                for column in x0...x1 {
                    let luminance = Self.luminance(pixels[row * columns + column])
                    light = max(light, luminance)
                    dark = min(dark, luminance)
                }
            }
            return (light + 0.05) / (dark + 0.05)
        }
    }

    /// The relative luminance of an RGB24 pixel (sRGB, as WCAG 2 defines it).
    static func luminance(_ pixel: UInt32) -> Double {
        func channel(_ value: UInt32) -> Double {
            let c = Double(value & 0xFF) / 255
            return c <= 0.040_45 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(pixel >> 16) + 0.7152 * channel(pixel >> 8) + 0.0722 * channel(pixel)
    }
}
