import CLupCore
import CLupDrawing
import CLupHardware
import Foundation
import XCTest

final class SimulatedDeviceTests: XCTestCase {
    func test_aTapIsTheGestureOfThatPixelNormalisedToThePanel() throws {
        let panel = SimulatedTouchscreen(width: 720, height: 1280)
        let gesture = try panel.tap(x: 359, y: 639)
        XCTAssertEqual(gesture.kind, .tap)
        XCTAssertEqual(Int(gesture.x0 * 720), 359)
        XCTAssertEqual(Int(gesture.y0 * 1280), 639)
    }

    func test_aTapOffThePanelIsRefused() {
        let panel = SimulatedTouchscreen(width: 720, height: 1280)
        XCTAssertThrowsError(try panel.tap(x: 720, y: 0))
        XCTAssertThrowsError(try panel.tap(x: 0, y: -1))
    }

    func test_presenceReportsEdgesNotLevels() {
        let sensor = SimulatedPresenceSensor()
        XCTAssertEqual([true, true, false, false].map(sensor.set(present:)), [true, false, true, false])
        XCTAssertFalse(sensor.isPresent)
    }

    func test_turnstileCountsReleases() throws {
        let turnstile = SimulatedTurnstile()
        try turnstile.release()
        try turnstile.release()
        XCTAssertEqual(turnstile.releases, 2)
        XCTAssertEqual(turnstile.health.detail, "2 releases")
    }

    func test_theReaderTypesACodeThroughTheWedgeDecoder() {
        let reader = SimulatedDoorReader(keymap: .us)
        XCTAssertEqual(reader.scan("V5:A B$"), [.code("V5:A B$")])
        XCTAssertEqual(reader.scan("NEXT"), [.code("NEXT")])
    }

    func test_pngDisplayWritesEachFrameAndBlackWhenAsleep() throws {
        let directory = try temporaryFolder("clup-display")
        let display = PNGDisplay(width: 64, height: 48, directory: directory.path)
        let frame = try Canvas(width: 64, height: 48)
        frame.fillRect(x: 0, y: 0, width: 32, height: 48, color: .black)
        try display.show(frame)
        XCTAssertTrue(display.isAwake)
        display.waitUntilWritten()
        let shown = try Data(contentsOf: URL(fileURLWithPath: display.currentFramePath))
        XCTAssertEqual(Array(shown.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        try display.sleep()
        XCTAssertFalse(display.isAwake)
        display.waitUntilWritten()
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: display.currentFramePath)), shown)
        XCTAssertEqual(display.health.detail, "64x48 asleep, 2 frames")
    }
}
