import CLupCore
import CLupDrawing
@testable import CLupKiosk
import Foundation
import XCTest

/// Every screen in every language, drawn: written as PNG into a folder to be looked at
/// (`$CLUP_SCREENSHOTS/screens`, else `test-screenshots/screens` in the checkout), and no
/// text runs off the screen or out of its button.
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
    ]

    func test_everyScreenInEveryLanguageIsDrawnWithNothingOffTheScreenOrOutOfItsButton() throws {
        var geometry = ScreenGeometry(width: 720, height: 1280)
        geometry.offersBookings = true
        let renderer = ScreenRenderer(geometry: geometry)
        let facts = ScreenFacts(storeName: "CLup Market", inside: 27, capacity: 30, waiting: 12, called: ["A-015", "AP-003", "A-016"],
                                wait: WaitEstimate(low: 10, high: 18))
        var written = 0
        for language in TextCatalog.languages {
            let folder = Self.folder.appendingPathComponent(language)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let texts = TextCatalog.of(language)
            for (name, screen) in Self.screens {
                // The ready line, as the kiosk words it in the customer's language.
                var shown = screen
                if case let .ticketReady(number, _) = screen {
                    shown = .ticketReady(number: number, wait: texts(.readyWait, ["wait": texts.wait(WaitEstimate(low: 10, high: 18))]))
                }
                let canvas = try renderer.render(shown, facts: facts, language: language)
                try canvas.writePNG(to: folder.appendingPathComponent("\(name).png").path)
                written += 1
                for line in canvas.drawnTexts {
                    XCTAssertGreaterThanOrEqual(line.x, 0, "\(language) \(name): \"\(line.text)\" runs off the left")
                    XCTAssertLessThanOrEqual(line.x + line.width, geometry.width, "\(language) \(name): \"\(line.text)\" runs off the right")
                }
                for button in geometry.buttons(on: shown, language: language) {
                    guard let label = canvas.drawnTexts.first(where: { $0.text == button.label }) else {
                        XCTFail("\(language) \(name): the label \"\(button.label)\" was not drawn")
                        continue
                    }
                    XCTAssertGreaterThanOrEqual(label.x, button.x, "\(language) \(name): \"\(label.text)\" out of its button")
                    XCTAssertLessThanOrEqual(label.x + label.width, button.x + button.width,
                                             "\(language) \(name): \"\(label.text)\" out of its button")
                }
            }
        }
        XCTAssertEqual(written, TextCatalog.languages.count * Self.screens.count)
        print("screens: \(written) PNGs in \(Self.folder.path)")
    }
}
