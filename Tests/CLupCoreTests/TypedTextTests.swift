import CLupCore
import XCTest

/// Text from outside as data: nothing in it can act on whoever reads it.
final class TypedTextTests: XCTestCase {
    static let hostile = "x\n1999-01-01T00:00:00Z  technician tess\u{1B}]0;pwned\u{07}\u{1B}[2J\u{0}\u{202E}\r\t\u{2028}"

    func test_noControlLineBreakOrBidiOverrideSurvivesEscaping() {
        for text in [TypedText.escaped(Self.hostile), TypedText.shown(Self.hostile)] {
            XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" || $0 == "\u{2028}" }, text)
            XCTAssertTrue(text.hasPrefix(#"x\n1999"#), text)
            XCTAssertTrue(text.contains(#"\u{1B}]0;pwned\u{7}"#), text)
        }
        XCTAssertTrue(TypedText.hasControls(Self.hostile))
        XCTAssertFalse(TypedText.hasControls("Groß-Markt Café € 日本"))
        XCTAssertEqual(TypedText.escaped("Groß-Markt Café € 日本"), "Groß-Markt Café € 日本")
    }

    func test_aBackslashTypedByHandCannotPassForAnEscapeButStoredEscapesShowOnce() {
        XCTAssertEqual(TypedText.escaped(#"a\nb"#), #"a\\nb"#)
        XCTAssertEqual(TypedText.shown(TypedText.escaped("a\nb")), #"a\nb"#)
    }

    func test_aQuotedPieceIsBoundedAndSaysItWasCut() {
        XCTAssertEqual(TypedText.inMessage(String(repeating: "7", count: 100)), String(repeating: "7", count: 32) + "…")
        XCTAssertEqual(TypedText.inMessage("A-001\nforged"), #"A-001\nforged"#)
    }

    func test_aBoundCountsScalarsSoCombiningMarksCannotHideBulk() {
        let heavy = "e" + String(repeating: "\u{301}", count: 60_000)
        XCTAssertEqual(heavy.count, 1)
        XCTAssertEqual(TypedText.kept(heavy, maximum: 160).unicodeScalars.count, 160)
        XCTAssertTrue(TypedText.inMessage(heavy).hasSuffix("…"))
    }
}
