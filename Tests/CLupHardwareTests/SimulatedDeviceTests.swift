import CLupCore
import CLupDrawing
import CLupHardware
import Foundation
import XCTest

final class SimulatedDeviceTests: XCTestCase {
    func test_aTapIsReportedNormalisedToThePanel() throws {
        let panel = SimulatedTouchscreen(width: 720, height: 1280)
        var gestures: [TouchGesture] = []
        panel.onGesture = { gestures.append($0) }
        try panel.simulateTap(x: 359, y: 639)
        XCTAssertEqual(gestures.count, 1)
        XCTAssertEqual(gestures[0].kind, .tap)
        XCTAssertEqual(Int(gestures[0].x0 * 720), 359)
        XCTAssertEqual(Int(gestures[0].y0 * 1280), 639)
    }

    func test_aTapOffThePanelIsRefused() {
        let panel = SimulatedTouchscreen(width: 720, height: 1280)
        panel.onGesture = { _ in XCTFail("no gesture expected") }
        XCTAssertThrowsError(try panel.simulateTap(x: 720, y: 0))
        XCTAssertThrowsError(try panel.simulateTap(x: 0, y: -1))
    }

    func test_presenceReportsEdgesNotLevels() {
        let sensor = SimulatedPresenceSensor()
        var changes: [Bool] = []
        sensor.onChange = { changes.append($0) }
        sensor.simulate(present: true)
        sensor.simulate(present: true)
        sensor.simulate(present: false)
        sensor.simulate(present: false)
        XCTAssertEqual(changes, [true, false])
    }

    func test_turnstileReportsPassagesAndCountsReleases() throws {
        let turnstile = SimulatedTurnstile()
        var passages: [PassageDirection] = []
        turnstile.onPassage = { passages.append($0) }
        turnstile.simulatePassage(.entry)
        turnstile.simulatePassage(.exit)
        try turnstile.release()
        XCTAssertEqual(passages, [.entry, .exit])
        XCTAssertEqual(turnstile.releases, 1)
    }

    func test_pngDisplayWritesEachFrameAndBlackWhenAsleep() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clup-display-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let display = PNGDisplay(width: 64, height: 48, directory: directory.path)
        let frame = try Canvas(width: 64, height: 48)
        frame.fillRect(x: 0, y: 0, width: 32, height: 48, color: .black)
        try display.show(frame)
        XCTAssertTrue(display.isAwake)
        let shown = try Data(contentsOf: URL(fileURLWithPath: display.currentFramePath))
        XCTAssertEqual(Array(shown.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        try display.sleep()
        XCTAssertFalse(display.isAwake)
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: display.currentFramePath)), shown)
        XCTAssertEqual(display.framesShown, 2)
    }
}
