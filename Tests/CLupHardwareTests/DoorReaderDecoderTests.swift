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

    func test_aTicketCodeTypedByAScannerReadsBackInEveryShopsLayout() {
        for name in ["us", "de", "it", "fr", "es", "fr(oss)", "de(nodeadkeys)"] {
            let keymap = Keymap.layout(name)
            var decoder = WedgeDecoder(keymap: keymap)
            XCTAssertEqual(keystrokes(code, keymap).flatMap { decoder.feed($0) }, [.code(code)], name)
        }
    }

    func test_theLayoutsAreTheShopsKeyboards() throws {
        // AZERTY: the digits are on the shifted top row, A where QWERTY has Q.
        let french = Keymap.layout("fr")
        XCTAssertEqual(french.keystroke(for: "1"), .init(key: 2, modifiers: [42]))
        XCTAssertEqual(french.keystroke(for: "a"), .init(key: 16, modifiers: []))
        // Italian: @ and # take AltGr.
        let italian = Keymap.layout("it")
        XCTAssertEqual(italian.keystroke(for: "@")?.modifiers, [100])
        XCTAssertEqual(italian.keystroke(for: "#")?.modifiers, [100])
        XCTAssertEqual(italian.keystroke(for: "ò"), .init(key: 39, modifiers: []))
        // Spanish: ñ has its own key.
        XCTAssertEqual(Keymap.layout("es").keystroke(for: "ñ"), .init(key: 39, modifiers: []))
        for name in ["it", "fr", "es"] {
            var decoder = WedgeDecoder(keymap: Keymap.layout(name))
            let text = "staff@clup#42 àèìòù"
            let typeable = String(text.filter { Keymap.layout(name).keystroke(for: $0) != nil })
            XCTAssertGreaterThan(typeable.count, 12, name)
            XCTAssertEqual(keystrokes(typeable, Keymap.layout(name)).flatMap { decoder.feed($0) }, [.code(typeable)], name)
        }
    }

    /// A key press (1) or release (0), with its report.
    func key(_ code: UInt16, _ value: Int32, at time: Double) -> [InputEvent] {
        [InputEvent(time: time, type: EventCode.key, code: code, value: value),
         InputEvent(time: time, type: EventCode.synchronization, code: EventCode.report, value: 0)]
    }

    /// Keys pressed and released in turn, then Enter.
    func typing(_ codes: [UInt16]) -> [InputEvent] {
        (codes + [WedgeDecoder.enter]).enumerated().flatMap { index, code in
            key(code, 1, at: Double(index) * 0.01) + key(code, 0, at: Double(index) * 0.01 + 0.005)
        }
    }

    func test_deadKeysCombineAsOnTheShopsKeyboard() {
        // French: ^ (a dead key beside P) then e is ê; Spanish: ´ (beside Ñ) then a is á.
        var french = WedgeDecoder(keymap: Keymap.layout("fr"))
        XCTAssertEqual(typing([26, 18, 19]).flatMap { french.feed($0) }, [.code("êr")])
        var spanish = WedgeDecoder(keymap: Keymap.layout("es"))
        XCTAssertEqual(typing([40, 30, 49]).flatMap { spanish.feed($0) }, [.code("án")])
        // A dead key before a letter it does not combine with types neither; the next code reads.
        XCTAssertEqual(typing([26, 30]).flatMap { french.feed($0) },
                       [.refused("a dead key and key 30 make no character in the fr layout")])
        XCTAssertEqual(typing([16, 48]).flatMap { french.feed($0) }, [.code("ab")])
    }

    func test_aLayoutThatIsNotOneIsRefusedByName() {
        for name in ["xx", "../../etc/passwd", "fr(nosuchvariant)", "", "IT", String(repeating: "a", count: 40)] {
            XCTAssertThrowsError(try Keymap(name), name) { error in
                XCTAssertTrue("\(error)".contains("keyboard layout"), "\(error)")
            }
        }
        XCTAssertEqual(Keymap.named("fr(oss)")?.name, "fr(oss)")
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
        let layouts = ["us", "de", "it", "fr"].map(Keymap.layout)
        for round in 0..<2000 {
            var wedge = WedgeDecoder(keymap: layouts[round % layouts.count], maximumLength: 40)
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
