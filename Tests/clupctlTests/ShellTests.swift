import ArgumentParser
@testable import ClupctlCommand
import CLupCore
import CLupProtocol
import Foundation
import Logging
import XCTest

/// The shell's parts that need no terminal: splitting a line into words, the command tree
/// read from the argument parser, and what Tab offers.
final class ShellTests: XCTestCase {
    func test_aLineSplitsIntoWordsAsAPosixShellWouldForPlainWords() throws {
        XCTAssertEqual(try ShellWords.split("void A-001 --reason 'printed twice'"), ["void", "A-001", "--reason", "printed twice"])
        XCTAssertEqual(try ShellWords.split(#"ledger correct --delta -1 --reason "he said \"hi\"""#),
                       ["ledger", "correct", "--delta", "-1", "--reason", #"he said "hi""#])
        XCTAssertEqual(try ShellWords.split(#"logs --grep a\ b  "#), ["logs", "--grep", "a b"])
        XCTAssertEqual(try ShellWords.split("void A-1 --reason ''"), ["void", "A-1", "--reason", ""])
        XCTAssertEqual(try ShellWords.split("   "), [])
        XCTAssertThrowsError(try ShellWords.split("void A-1 --reason 'no end")) { error in
            XCTAssertEqual(error as? ShellWords.Problem, .unterminatedQuote("'"))
        }
        XCTAssertThrowsError(try ShellWords.split(#"status \"#)) { error in
            XCTAssertEqual(error as? ShellWords.Problem, .trailingBackslash)
        }
    }

    func test_theCommandTreeHasEveryCommandTheParserKnows() {
        let tree = CommandTree.clupctl
        XCTAssertEqual(tree.subcommands.map(\.name), Clupctl.configuration.subcommands.map { $0._commandName })
        XCTAssertEqual(tree.child("technician")?.subcommands.map(\.name), ["list", "add", "secret", "remove"])
        XCTAssertEqual(tree.child("sim")?.subcommands.map(\.name).contains("press"), true)
        let calibrate = tree.child("calibrate")
        XCTAssertEqual(Set(calibrate?.options ?? []), ["--socket", "--timeout", "--force", "--yes", "--help"])
        XCTAssertEqual(calibrate?.takesValue, ["--socket", "--timeout"])
        XCTAssertEqual(tree.child("selftest")?.positionalValues.first, SelfTestStep.allCases.map(\.rawValue))
    }

    func test_everyCommandThatReadsHasJSON() {
        let tree = CommandTree.clupctl
        let reads = [["status"], ["tickets"], ["queue"], ["ledger", "show"], ["config", "show"], ["printer"], ["devices"],
                     ["screen"], ["sync", "show"], ["metrics"], ["errors"], ["employee", "list"], ["technician", "list"],
                     ["audit"], ["logs"], ["selftest"], ["skip"], ["void"]]
        for path in reads {
            let node = path.reduce(Optional(tree)) { $0?.child($1) }
            XCTAssertEqual(node?.options.contains("--json"), true, "\(path.joined(separator: " ")) has --json")
        }
    }

    func test_tabOffersCommandsOptionsValuesAndWhatClupdKnows() {
        var asked: [[String]] = []
        let dynamic = { (path: [String], position: Int) -> [String] in
            asked.append(path + ["#\(position)"])
            return path == ["skip"] && position == 0 ? ["A-001", "A-002"] : []
        }
        func offered(_ before: String, _ word: String) -> [String] {
            ShellCompleter.candidates(before: before, word: word, dynamic: dynamic)
        }
        XCTAssertEqual(offered("", "rep"), ["reprint"])
        XCTAssertEqual(offered("", "ex"), ["exit"], "the shell's own words, at the start of a line")
        XCTAssertEqual(offered("", "se"), ["selftest"])
        XCTAssertEqual(offered("skip ", "A-00"), ["A-001", "A-002"])
        XCTAssertEqual(offered("selftest ", "pri"), ["printer"], "a closed list, without asking clupd")
        XCTAssertEqual(offered("calibrate ", "--t"), ["--timeout"])
        XCTAssertEqual(offered("technician ", ""), ["add", "list", "remove", "secret"])
        XCTAssertEqual(offered("help ", "sk"), ["skip"])
        XCTAssertEqual(offered("void --reason ", ""), [], "an option's value is not a ticket")
        XCTAssertEqual(offered("void --reason dup ", "A"), [], "the ticket after an option and its value")
        XCTAssertEqual(asked.last, ["void", "#0"])
        XCTAssertEqual(offered("skip A-001 ", ""), [], "skip takes one ticket")
    }

    func test_libeditIsGivenTheCommonPrefixFirst() {
        XCTAssertEqual(LineEditor.commonPrefix(["A-001", "A-002", "A-010"]), "A-0")
        XCTAssertEqual(LineEditor.commonPrefix(["presence", "printer"]), "pr")
        XCTAssertNil(LineEditor.matchArray([]))
        let array = LineEditor.matchArray(["A-001", "A-002"])!
        defer {
            for index in 0..<3 { free(array[index]) }
            array.deallocate()
        }
        XCTAssertEqual(String(cString: array[0]!), "A-00")
        XCTAssertEqual(String(cString: array[2]!), "A-002")
        XCTAssertNil(array[3])
    }

    func test_metricsAsJSONKeepEachSampleWithItsLabels() {
        let samples = Metrics.samples("""
            # HELP clup_events_total Events kept, by type.
            # TYPE clup_events_total counter
            clup_events_total{type="ticket.issued"} 3
            clup_queue_waiting 2
            """)
        XCTAssertEqual(samples.count, 2)
        XCTAssertEqual(samples[0].name, "clup_events_total")
        XCTAssertEqual(samples[0].labels, ["type": "ticket.issued"])
        XCTAssertEqual(samples[0].value, 3)
        XCTAssertEqual(samples[1].labels, [:])
    }

    func test_aLogLineIsKeptBySinceAndPattern() throws {
        let line = "2026-11-23T07:57:10+0000 info clupd: [CLupKiosk] ticket issued"
        let since = try XCTUnwrap(LineFilter.instant("2026-11-23T07:00:00+0000"))
        XCTAssertTrue(try LineFilter(since: since, pattern: LogPattern("issued$")).keeps(line))
        XCTAssertFalse(try LineFilter(since: since.addingTimeInterval(7200), pattern: nil).keeps(line))
        XCTAssertFalse(try LineFilter(since: nil, pattern: LogPattern("printed")).keeps(line))
        XCTAssertTrue(try LineFilter(since: since, pattern: nil).keeps("a line with no time is kept"))
    }

    /// A line as clupd writes it to a file (LineSafeLogHandler outside the journal) is one
    /// `--since` reads the time of.
    func test_sinceReadsTheTimeOfClupdsOwnLines() throws {
        final class Lines: @unchecked Sendable {
            private let lock = NSLock()
            private var lines: [String] = []
            var all: [String] { lock.withLock { lines } }
            func write(_ line: String) { lock.withLock { lines.append(line) } }
        }
        let lines = Lines()
        let logger = Logger(label: "clupd") { LineSafeLogHandler(label: $0, journal: false, sink: lines.write) }
        let now = Date()
        logger.warning("printer out of paper", metadata: ["reason": "x\n2099-01-01T00:00:00+0000 info clupd: forged"])
        let line = try XCTUnwrap(lines.all.first).trimmingCharacters(in: .newlines)
        XCTAssertTrue(try LineFilter(since: now.addingTimeInterval(-60), pattern: LogPattern("out of paper$")).keeps(line), line)
        XCTAssertFalse(try LineFilter(since: now.addingTimeInterval(3_600), pattern: nil).keeps(line), line)
    }
}
