@testable import CLupHardware
import Foundation
import XCTest

final class DoorReaderDecoderTests: XCTestCase {
    /// A real ticket code: Base45, with capitals, digits, space and symbols.
    let code = "V50000C-0V505P0C2WCCO$%*+-./: AZ09"

    /// The key events a scanner set to `keymap` sends for `text` (and Enter, unless told not to).
    func keystrokes(_ text: String, _ keymap: Keymap, start: Double = 0, enter: Bool = true) -> [InputEvent] {
        guard var events = keymap.scannerEvents(typing: text, startingAt: start) else {
            XCTFail("the \(keymap.name) layout cannot type \(text)")
            return []
        }
        if !enter { events.removeLast(4) }
        return events
    }

    func test_aTicketCodeTypedByAScannerReadsBackInBothLayouts() {
        for keymap in [Keymap.us, Keymap.de] {
            var decoder = WedgeDecoder(keymap: keymap)
            XCTAssertEqual(keystrokes(code, keymap).flatMap { decoder.feed($0) }, [.code(code)], keymap.name)
        }
    }

    func test_theLayoutMatters_aGermanScannerReadAsUSGarblesTheCode() {
        var decoder = WedgeDecoder(keymap: .us)
        let outputs = keystrokes("ZY-:", .de).flatMap { decoder.feed($0) }
        XCTAssertEqual(outputs, [.code("YZ/>")])
    }

    func test_aCodeCutOffMidWayIsRefusedAndTheNextCodeStillReads() {
        var decoder = WedgeDecoder(keymap: .us, interKeyTimeout: 0.3)
        var outputs = keystrokes("V5000", .us, enter: false).flatMap { decoder.feed($0) }
        XCTAssertTrue(outputs.isEmpty)
        XCTAssertTrue(decoder.isPartial)
        outputs += decoder.expire(at: 10)
        outputs += keystrokes("AB12", .us, start: 10.5).flatMap { decoder.feed($0) }
        XCTAssertEqual(outputs, [.refused("a code cut off after 5 characters (no Enter)"), .code("AB12")])
    }

    func test_aKeyWithoutACharacterSpoilsTheCode() {
        var decoder = WedgeDecoder(keymap: .us)
        var events = keystrokes("AB", .us, enter: false)
        let t = (events.last?.time ?? 0) + 0.004
        events.append(InputEvent(time: t, type: EventCode.key, code: 59, value: 1))   // F1
        events += keystrokes("C", .us, start: t + 0.004)
        XCTAssertEqual(events.flatMap { decoder.feed($0) }, [.refused("key 59 has no character in the us layout")])
    }

    func test_aKeyboardsCtrlCIsNotATicket() throws {
        // A real keyboard (Logitech K400 Plus): Enter released, Ctrl held down and repeating, C.
        let text = try String(contentsOf: TouchRecordingTests.fixtures.appendingPathComponent("Logitech_K400_Plus.events"), encoding: .utf8)
        let recording = try EvemuRecording(parsing: text)
        var decoder = WedgeDecoder(keymap: .us)
        XCTAssertEqual(recording.events.flatMap { decoder.feed($0) }, [])
        XCTAssertEqual(decoder.expire(at: (recording.events.last?.time ?? 0) + 1),
                       [.refused("a code cut off after 0 characters (no Enter)")])
    }

    func test_anOverlongCodeIsRefused() {
        var decoder = WedgeDecoder(keymap: .us, maximumLength: 10)
        XCTAssertEqual(keystrokes(String(repeating: "A", count: 30), .us).flatMap { decoder.feed($0) },
                       [.refused("longer than 10 characters")])
    }

    func test_serialLinesEndWithCROrLFAndGarbageIsRefused() {
        var decoder = LineDecoder(interByteTimeout: 0.3, maximumLength: 64)
        var outputs = decoder.feed(Array("AB12\r\nCD".utf8), at: 0)
        outputs += decoder.feed(Array("34\n\r\n".utf8), at: 0.1)
        outputs += decoder.feed([0x41, 0xFF, 0x00, 0x0D], at: 0.2)
        outputs += decoder.feed(Array("PARTIAL".utf8), at: 0.3)
        outputs += decoder.expire(at: 1)
        XCTAssertEqual(outputs, [.code("AB12"), .code("CD34"), .refused("3 bytes that are not printable ASCII"),
                                 .refused("a code cut off after 7 bytes (no end of line)")])
    }

    func test_arbitraryKeyAndByteStreamsNeverCrashOrHang() {
        var state: UInt64 = 0xD00D
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        var outputs = 0
        for round in 0..<2000 {
            var wedge = WedgeDecoder(keymap: round % 2 == 0 ? .us : .de, maximumLength: 40)
            var line = LineDecoder(maximumLength: 40)
            var t = 0.0
            for _ in 0..<Int(next() % 200) {
                t += Double(next() % 100) / 1000
                let event = InputEvent(time: t, type: UInt16(next() % 3), code: UInt16(next() % 120), value: Int32(next() % 3))
                outputs += wedge.feed(event).count
                outputs += line.feed([UInt8(truncatingIfNeeded: next())], at: t).count
            }
            outputs += wedge.expire(at: t + 10).count + line.expire(at: t + 10).count
        }
        XCTAssertGreaterThan(outputs, 500, "the random streams must complete codes or refusals to be worth anything")
    }
}
