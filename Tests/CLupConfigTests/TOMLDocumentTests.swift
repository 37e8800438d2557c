@testable import CLupConfig
import XCTest

final class TOMLDocumentTests: XCTestCase {
    func test_readsTablesAndEveryValueTypeAsDottedKeys() throws {
        let document = try TOMLDocument(parsing: """
            # a totem
            title = "CLup"   # trailing comment
            [store]
            id = 1_024
            name = 'Via "Roma"'
            ratio = 0.25
            open = true
            [printer.rolls]
            widths = [80, 58]
            "quoted key" = "a\\tb\\u00e8"
            """)
        XCTAssertEqual(document.values["title"]?.value, .string("CLup"))
        XCTAssertEqual(document.values["store.id"]?.value, .integer(1024))
        XCTAssertEqual(document.values["store.name"]?.value, .string("Via \"Roma\""))
        XCTAssertEqual(document.values["store.ratio"]?.value, .float(0.25))
        XCTAssertEqual(document.values["store.open"]?.value, .boolean(true))
        XCTAssertEqual(document.values["printer.rolls.widths"]?.value, .array([.integer(80), .integer(58)]))
        XCTAssertEqual(document.values["printer.rolls.quoted key"]?.value, .string("a\tbè"))
        XCTAssertEqual(document.values["store.id"]?.line, 4)
    }

    func test_readsAFileWithWindowsLineEndings() throws {
        let document = try TOMLDocument(parsing: "# totem\r\n[queue]\r\ncapacity = 3\r\n")
        XCTAssertEqual(document.values["queue.capacity"]?.value, .integer(3))
        XCTAssertEqual(document.values["queue.capacity"]?.line, 3)
    }

    func test_errorsNameTheLine() {
        let cases: [(String, Int, String)] = [
            ("a = 1\nb = \"open", 2, "unterminated string"),
            ("[store\n", 1, "expected ']'"),
            ("a = 1\na = 2", 2, "a is already set on line 1"),
            ("x = hello", 1, "'hello' is not a TOML value (strings need quotes)"),
            ("x = 1 2", 1, "unexpected text after the value"),
            ("x = {a = 1}", 1, "inline tables are not supported"),
            ("= 3", 1, "expected a key"),
            ("x = [1, 2", 1, "expected ',' or ']' in array"),
        ]
        for (text, line, message) in cases {
            XCTAssertThrowsError(try TOMLDocument(parsing: text), text) { error in
                let syntax = error as? TOMLDocument.SyntaxError
                XCTAssertEqual(syntax?.line, line, text)
                XCTAssertTrue(syntax?.message.contains(message) == true, "\(text): \(String(describing: syntax))")
            }
        }
    }

    func test_arbitraryTextNeverCrashesTheParser() {
        var state: UInt64 = 0x5EED
        let pieces = ["[", "]", "=", "\"", "'", "\\", "a", "1", ".", ",", " ", "\n", "#", "{", "true", "-", "\u{0}", "é", "\r", "u"]
        var nonEmpty = 0
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for _ in 0..<20_000 {
            var text = ""
            for _ in 0..<Int(next() % 40) {
                text += pieces[Int(next() % UInt64(pieces.count))]
            }
            if !text.isEmpty { nonEmpty += 1 }
            _ = try? TOMLDocument(parsing: text)
        }
        XCTAssertGreaterThan(nonEmpty, 19_000, "the generator must actually produce text")
    }

    func test_deeplyNestedArraysAreAnErrorNotACrash() {
        let deep = "[tickets]\nlanguages = " + String(repeating: "[", count: 10_000) + "\n"
        XCTAssertThrowsError(try TOMLDocument(parsing: deep)) { error in
            XCTAssertEqual(error as? TOMLDocument.SyntaxError,
                           TOMLDocument.SyntaxError(line: 2, message: "arrays nested more than 8 deep"))
        }
        let allowed = "a = " + String(repeating: "[", count: 8) + "1" + String(repeating: "]", count: 8)
        XCTAssertNoThrow(try TOMLDocument(parsing: allowed))
    }
}
