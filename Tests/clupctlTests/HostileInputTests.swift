@testable import ClupctlCommand
import ArgumentParser
import CLupProtocol
import Foundation
import XCTest

/// What clupctl prints of text it did not write, the work a `--grep` pattern may take, and
/// the diagnostics archive's file: against input made to do harm.
final class HostileInputTests: XCTestCase {
    /// A terminal's window title (OSC 0 … BEL), a clear screen (CSI 2J) and a NUL.
    let escapes = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{0}"

    /// The package's /usr/bin/clupctl is a link to clupd: clupd runs clupctl by that name only.
    func test_clupdRunsClupctlOnlyWhenStartedByThatName() {
        XCTAssertTrue(ClupctlMain.isInvoked(as: "/usr/bin/clupctl"))
        XCTAssertTrue(ClupctlMain.isInvoked(as: "clupctl"))
        XCTAssertTrue(ClupctlMain.isInvoked(as: "-clupctl"), "a technician's login shell")
        XCTAssertFalse(ClupctlMain.isInvoked(as: "--clupctl"))
        XCTAssertFalse(ClupctlMain.isInvoked(as: "/usr/bin/clupd"))
        XCTAssertFalse(ClupctlMain.isInvoked(as: "/usr/lib/clupctl/clupd"))
        XCTAssertFalse(ClupctlMain.isInvoked(as: "/usr/bin/clupctl-old"))
        XCTAssertTrue(ClupctlMain.isInvoked(as: "clupctl/"), "a trailing slash names the same program")
        XCTAssertFalse(ClupctlMain.isInvoked(as: nil))
    }

    func test_anAuditEntryTypedWithANewlineAndEscapesPrintsAsOneVisibleLine() {
        let forged = "x\n1999-01-01T00:00:00Z  technician tess       login            ok"
        let report = AuditReport(entries: [
            .init(at: Date(timeIntervalSince1970: 0), role: "technician", who: forged, action: "login-refused", result: "wrong" + escapes),
            .init(at: Date(timeIntervalSince1970: 60), role: "technician", who: "tess", action: "command", result: "E-Q-003 unknown ticket A-1\nok",
                  uid: 0, what: "skip 'A-1\n" + escapes + "'"),
        ], truncated: false)
        let printed = Audit.lines(report).joined(separator: "\n")
        XCTAssertEqual(printed.split(separator: "\n").count, 2, "one line per entry: \(printed)")
        XCTAssertFalse(printed.split(separator: "\n").contains { $0.hasPrefix("1999-01-01") }, "no forged line")
        XCTAssertTrue(printed.contains(#"x\n1999-01-01T00:00:00Z"#), "the newline shows as \\n")
        XCTAssertTrue(printed.contains(#"wrong\u{1B}]0;pwned\u{7}\u{1B}[2J\u{0}"#))
        XCTAssertFalse(printed.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "no control character reaches the terminal")
    }

    func test_aLedgerCorrectionsReasonCannotActOnTheTerminal() {
        let report = LedgerReport(businessDay: "2026-11-23", inside: 3,
                                  doors: [DoorLedger(door: "A\u{1B}[2J", carried: 0, entries: 4, exits: 1, corrections: 0, inside: 3)],
                                  corrections: [CorrectionLine(at: Date(), door: "A", delta: -1, by: "tess",
                                                               reason: "counted\nevent log: agrees with the ledger" + escapes)],
                                  matchesEventLog: false)
        let lines = ledgerLines(report)
        XCTAssertEqual(lines.count, 4)
        XCTAssertEqual(lines.filter { $0.hasPrefix("event log:") }, ["event log: DISAGREES with the ledger"], "no forged verdict")
        XCTAssertTrue(lines[2].hasSuffix(#"by tess: counted\nevent log: agrees with the ledger\u{1B}]0;pwned\u{7}\u{1B}[2J\u{0}"#), lines[2])
        XCTAssertFalse(lines.joined().unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    func test_whatTheUserTypedIsQuotedEscapedAndBounded() {
        XCTAssertEqual(quoted("A-1\n\u{1B}[2J"), #"A-1\n\u{1B}[2J"#)
        let long = quoted(String(repeating: "x", count: 10_000))
        XCTAssertEqual(long, String(repeating: "x", count: 60) + "…")
        XCTAssertThrowsError(try Audit.instant("1\u{1B}]0;t\u{07}" + String(repeating: "y", count: 500))) { error in
            let message = String(describing: error)
            XCTAssertFalse(message.contains("\u{1B}"), message)
            XCTAssertLessThan(message.count, 200, message)
        }
    }

    func test_aBacktrackingGrepPatternStopsWithAClearMessage() throws {
        let pattern = try LogPattern("(a+)+b")
        let line = "2026-11-23T07:57:10+0000 info clupd: " + String(repeating: "a", count: 40)
        XCTAssertThrowsError(try LineFilter(since: nil, pattern: pattern).keeps(line)) { error in
            let message = String(describing: error)
            XCTAssertTrue(message.contains("--grep: (a+)+b takes too long on a line"), message)
            XCTAssertTrue(message.contains("write it without nesting"), message)
        }
        // The same pattern on lines it settles at once, and ordinary patterns, still match.
        XCTAssertTrue(try pattern.matches("aaab"))
        XCTAssertFalse(try pattern.matches("ccc"))
        XCTAssertTrue(try LogPattern("ticket issued|recorded").matches(String(repeating: "x", count: 50_000) + " recorded"))
        XCTAssertThrowsError(try LogPattern("(unclosed")) { error in
            XCTAssertTrue(String(describing: error).contains("--grep: not a regular expression: (unclosed"))
        }
    }

    func test_theArchiveIsNotWrittenThroughALinkPlantedBesideItOrAtIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clupctl-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let victim = folder + "/victim"
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
        chmod(victim, 0o644)
        let archive = folder + "/d.tgz"
        // The name the old code used for its temporary file, planted as a link to the victim.
        try FileManager.default.createSymbolicLink(atPath: archive + ".tmp", withDestinationPath: victim)
        try ExclusiveFile.write(archive) { descriptor in
            _ = "archive".withCString { write(descriptor, $0, 7) }
        }
        XCTAssertEqual(try String(contentsOfFile: archive, encoding: .utf8), "archive")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: archive)[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious\n", "the victim is unchanged")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: victim)[.posixPermissions] as? Int, 0o644, "and its mode too")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["d.tgz", "d.tgz.tmp", "victim"],
                       "no temporary file left behind")

        // The archive's own name a link to the victim: refused, the victim untouched.
        let linked = folder + "/linked.tgz"
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: victim)
        XCTAssertThrowsError(try ExclusiveFile.write(linked) { _ in XCTFail("nothing is written") }) { error in
            XCTAssertTrue(String(describing: error).contains("is a symbolic link"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious\n")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: linked), victim)
    }

    func test_thePromptSaysDownWhenClupdDoesNotAnswer() {
        let hello = HelloReply(storeID: 7, letter: "A", state: "ok", technician: "tess", clupdVersion: "1.0")
        XCTAssertEqual(Shell.prompt(hello, lastKnown: hello), "tess@store-7/A ok> ")
        XCTAssertEqual(Shell.prompt(nil, lastKnown: hello), "store-7/A DOWN> ")
        XCTAssertEqual(Shell.prompt(nil, lastKnown: nil), "clupd DOWN> ")
        let hostile = HelloReply(storeID: 7, letter: "A\u{1B}]0;x\u{07}", state: "ok\n", technician: nil, clupdVersion: "1.0")
        XCTAssertFalse(Shell.prompt(hostile, lastKnown: hostile).unicodeScalars.contains { $0.value < 0x20 })
    }
}
