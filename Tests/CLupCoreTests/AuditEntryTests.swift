import CLupCore
import Foundation
import XCTest

final class AuditEntryTests: XCTestCase {
    func test_anEntryStoredBeforeCommandsWereAuditedIsStillRead() throws {
        let old = #"{"role":"employee","who":"104","action":"pin-refused","result":"wrong staff number or PIN"}"#
        let entry = try JSONDecoder().decode(AuditEntry.self, from: Data(old.utf8))
        XCTAssertEqual(entry.action, .pinRefused)
        XCTAssertNil(entry.uid)
        XCTAssertNil(entry.what)
        // And written the same way: nothing new appears in an entry that has no uid.
        XCTAssertFalse(String(decoding: try JSONEncoder().encode(entry), as: UTF8.self).contains("uid"))
    }

    func test_anActionThisReleaseDoesNotKnowIsKeptNotRefused() throws {
        let future = #"{"role":"technician","who":"tess","action":"firmware-flashed","result":"ok","uid":0,"what":"flash"}"#
        let entry = try JSONDecoder().decode(AuditEntry.self, from: Data(future.utf8))
        XCTAssertEqual(entry.action.rawValue, "firmware-flashed")
        XCTAssertEqual(entry.uid, 0)
        XCTAssertEqual(entry.what, "flash")
    }

    func test_whatComesFromOutsideIsBounded() throws {
        let long = String(repeating: "x", count: 500)
        let stored = #"{"role":"technician","who":"\#(long)","action":"\#(long)","result":"\#(long)","what":"\#(long)"}"#
        let entry = try JSONDecoder().decode(AuditEntry.self, from: Data(stored.utf8))
        XCTAssertEqual(entry.who.count, AuditEntry.maximumText)
        XCTAssertEqual(entry.action.rawValue.count, AuditEntry.maximumText)
        XCTAssertEqual(entry.result.count, AuditEntry.maximumText)
        XCTAssertEqual(entry.what?.count, AuditEntry.maximumCommand)
    }

    /// What a person typed cannot forge a line of the trail nor act on the terminal that
    /// shows it: a newline, an escape sequence or a NUL is kept written out.
    func test_aNewlineAnEscapeOrANulIsKeptEscaped() throws {
        let forged = "x\n1999-01-01T00:00:00Z  technician tess  login  ok"
        let entry = AuditEntry(role: .technician, who: forged, action: .loginRefused,
                               result: "E-CTL-009 A-1\u{1B}]0;pwned\u{07} is not a ticket number", uid: 0, what: "void A-001 \"a\u{0}b\"",
                               from: "clupctl\nforged")
        for field in [entry.who, entry.result, entry.what ?? "", entry.from ?? ""] {
            XCTAssertFalse(TypedText.hasControls(field), field)
            XCTAssertLessThanOrEqual(field.count, AuditEntry.maximumCommand)
        }
        XCTAssertTrue(entry.who.hasPrefix(#"x\n1999-01-01"#), entry.who)
        XCTAssertTrue(entry.result.contains(#"\u{1B}]0;pwned\u{7}"#), entry.result)
        XCTAssertEqual(entry.what, #"void A-001 "a\u{0}b""#)
        XCTAssertEqual(entry.from, #"clupctl\nforged"#)
        let long = AuditEntry(role: .technician, who: String(repeating: "\n", count: 100), action: .loginRefused, result: "", from: nil)
        XCTAssertEqual(long.who, String(repeating: #"\n"#, count: AuditEntry.maximumText / 2), "bounded once escaped")
        // Read back (by clupd, then by clupctl), it stays as kept: nothing is escaped twice.
        let again = try JSONDecoder().decode(AuditEntry.self, from: JSONEncoder().encode(entry))
        XCTAssertEqual(again, entry)
        XCTAssertEqual(try JSONDecoder().decode(AuditEntry.self, from: JSONEncoder().encode(again)), entry)
    }

    /// An entry a release before this one stored raw reads back harmless.
    func test_aHostileEntryStoredRawReadsBackEscaped() throws {
        let stored = #"{"role":"technician","who":"x\n1999-01-01T00:00:00Z  technician tess","action":"login\u001b[2J","#
            + #""result":"ok\u0000","what":"skip A-1\r\nfake"}"#
        let entry = try JSONDecoder().decode(AuditEntry.self, from: Data(stored.utf8))
        XCTAssertEqual(entry.who, #"x\n1999-01-01T00:00:00Z  technician tess"#)
        XCTAssertEqual(entry.action.rawValue, #"login\u{1B}[2J"#)
        XCTAssertEqual(entry.result, #"ok\u{0}"#)
        XCTAssertEqual(entry.what, #"skip A-1\r\nfake"#)
    }
}
