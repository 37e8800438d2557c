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
}
