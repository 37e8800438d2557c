@testable import CLupHardware
import Foundation
import XCTest

/// Every touch recording in Tests/Fixtures/evemu/ through the live decoder and pipeline,
/// with the contacts a person made written out: count, gesture, start and end.
final class TouchRecordingTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/evemu")

    struct Expected {
        let kind: TouchGesture.Kind
        let x0, y0, x1, y1: Double
    }

    func gestures(_ device: String, _ recording: String) throws -> [TouchGesture] {
        let desc = try String(contentsOf: Self.fixtures.appendingPathComponent("\(device).desc"), encoding: .utf8)
        let events = try String(contentsOf: Self.fixtures.appendingPathComponent("\(device).\(recording).events"), encoding: .utf8)
        return try TouchReplay.gestures(of: EvemuRecording(parsing: desc, events))
    }

    func check(_ device: String, _ recording: String, _ expected: [Expected], file: StaticString = #filePath, line: UInt = #line) throws {
        let got = try gestures(device, recording)
        XCTAssertEqual(got.count, expected.count, "contacts", file: file, line: line)
        for (gesture, want) in zip(got, expected) {
            XCTAssertEqual(gesture.kind, want.kind, file: file, line: line)
            XCTAssertEqual(gesture.x0, want.x0, accuracy: 0.01, "x0", file: file, line: line)
            XCTAssertEqual(gesture.y0, want.y0, accuracy: 0.01, "y0", file: file, line: line)
            XCTAssertEqual(gesture.x1, want.x1, accuracy: 0.01, "x1", file: file, line: line)
            XCTAssertEqual(gesture.y1, want.y1, accuracy: 0.01, "y1", file: file, line: line)
        }
    }

    func test_atmelMaxTouch_oneFingerDragUpAndDownIsOneDrag() throws {
        // Starts at (361, 379) of 799x479; the finger goes up to y 89 and back down.
        try check("Atmel_maXTouch_Touchscreen", "1-finger-drag-up-down",
                  [Expected(kind: .drag, x0: 0.452, y0: 0.791, x1: 0.478, y1: 0.821)])
    }

    func test_atmelMaxTouch_fastTapsAreNineTapsNearTheCentre() throws {
        let got = try gestures("Atmel_maXTouch_Touchscreen", "1-finger-fast-taps")
        XCTAssertEqual(got.map(\.kind), Array(repeating: .tap, count: 9))
        XCTAssertTrue(got.allSatisfy { $0.milliseconds < 150 }, "\(got.map(\.milliseconds))")
        try check("Atmel_maXTouch_Touchscreen", "1-finger-fast-taps", [
            Expected(kind: .tap, x0: 0.426, y0: 0.505, x1: 0.426, y1: 0.505),
            Expected(kind: .tap, x0: 0.443, y0: 0.476, x1: 0.443, y1: 0.476),
            Expected(kind: .tap, x0: 0.447, y0: 0.499, x1: 0.447, y1: 0.499),
            Expected(kind: .tap, x0: 0.456, y0: 0.532, x1: 0.456, y1: 0.532),
            Expected(kind: .tap, x0: 0.456, y0: 0.524, x1: 0.456, y1: 0.524),
            Expected(kind: .tap, x0: 0.432, y0: 0.524, x1: 0.432, y1: 0.524),
            Expected(kind: .tap, x0: 0.437, y0: 0.522, x1: 0.437, y1: 0.522),
            Expected(kind: .tap, x0: 0.437, y0: 0.551, x1: 0.437, y1: 0.551),
            Expected(kind: .tap, x0: 0.467, y0: 0.526, x1: 0.467, y1: 0.526),
        ])
    }

    func test_atmelMaxTouch_twoFingersHeldAreTwoLongPresses() throws {
        try check("Atmel_maXTouch_Touchscreen", "2-fingers-touch-release", [
            Expected(kind: .longPress, x0: 0.278, y0: 0.639, x1: 0.280, y1: 0.651),
            Expected(kind: .longPress, x0: 0.675, y0: 0.349, x1: 0.673, y1: 0.367),
        ])
    }

    func test_atmelMaxTouch_fourFingersDraggedDownAreFourDragsDownwards() throws {
        try check("Atmel_maXTouch_Touchscreen", "4-finger-drag-down", [
            Expected(kind: .drag, x0: 0.167, y0: 0.512, x1: 0.178, y1: 0.873),
            Expected(kind: .drag, x0: 0.519, y0: 0.223, x1: 0.527, y1: 0.599),
            Expected(kind: .drag, x0: 0.323, y0: 0.240, x1: 0.330, y1: 0.616),
            Expected(kind: .drag, x0: 0.800, y0: 0.432, x1: 0.810, y1: 0.722),
        ])
    }

    func test_ep0430m09_oneFingerDragUpAndDownIsOneDrag() throws {
        try check("EP0430M09", "1-finger-drag-up-down",
                  [Expected(kind: .drag, x0: 0.473, y0: 0.177, x1: 0.475, y1: 0.164)])
    }

    func test_ep0430m09_twoFingersTouchAndReleaseAreTwoTaps() throws {
        try check("EP0430M09", "2-fingers-touch-release", [
            Expected(kind: .tap, x0: 0.316, y0: 0.533, x1: 0.314, y1: 0.535),
            Expected(kind: .tap, x0: 0.730, y0: 0.540, x1: 0.730, y1: 0.542),
        ])
    }

    func test_aBrokenRecordingNamesItsLine() {
        XCTAssertThrowsError(try EvemuRecording(parsing: "N: x\nE: 0.1 0003 zz 1\n")) { error in
            XCTAssertEqual(error as? EvemuRecording.ParseError, .init(line: 2, message: "expected E: SEC.USEC TYPE CODE VALUE"))
        }
    }
}
