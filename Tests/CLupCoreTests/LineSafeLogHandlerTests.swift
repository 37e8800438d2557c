@testable import CLupCore
import Foundation
import Logging
import XCTest

/// The log lines of clupd and the hub: no logged field can start a line of its own or act
/// on a terminal, and under the journal each line carries its priority.
final class LineSafeLogHandlerTests: XCTestCase {
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        var all: [String] { lock.withLock { lines } }
        var text: String { all.joined() }
        func write(_ line: String) { lock.withLock { lines.append(line) } }
    }

    private func logger(journal: Bool, into lines: Lines) -> Logger {
        var logger = Logger(label: "clupd") { LineSafeLogHandler(label: $0, journal: journal, sink: lines.write) }
        logger.logLevel = .trace
        return logger
    }

    func test_aMessageOrAValueWithANewlineAnEscapeOrANulStaysOnItsLine() {
        let lines = Lines()
        var logger = logger(journal: false, into: lines)
        logger[metadataKey: "totem"] = "A\n1999-01-01T00:00:00Z info clupd: forged"
        logger.notice("ticket voided\u{1B}[2J", metadata: ["reason": "dup\u{1B}]0;pwned\u{07}", "by": "x\n1999",
                                                           "list": ["a\u{0}b"], "nested": ["k\n": "\r\n"], "key\nx": "v"])
        let written = lines.text
        XCTAssertEqual(written.filter { $0 == "\n" }.count, 1, "one line: \(written)")
        XCTAssertTrue(written.hasSuffix("\n"))
        XCTAssertFalse(written.dropLast().unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, written)
        XCTAssertTrue(written.contains(#"reason=dup\u{1B}]0;pwned\u{7}"#), written)
        XCTAssertTrue(written.contains(#"by=x\n1999"#), written)
        XCTAssertTrue(written.contains(#"key\nx=v"#), written)
        // A nested value is printed as Swift prints a dictionary, which escapes the escapes again.
        XCTAssertTrue(written.contains(#"nested=["k\\n": "\\r\\n"]"#), written)
        XCTAssertTrue(written.contains(#"totem=A\n1999-01-01T00:00:00Z info clupd: forged"#), written)
        XCTAssertTrue(written.hasSuffix(#"ticket voided\u{1B}[2J"# + "\n"), written)
    }

    /// Outside the journal the line is swift-log's, stamp first, which `clupctl logs
    /// --since` reads back from a log file.
    func test_outsideTheJournalALineStartsWithItsTimeStampAndHasNoPriority() throws {
        let lines = Lines()
        logger(journal: false, into: lines).warning("printer out of paper", metadata: ["queue": "clup-ticket"])
        let line = try XCTUnwrap(lines.all.first)
        let stamp = try XCTUnwrap(line.split(separator: " ").first)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssZ"
        XCTAssertNotNil(formatter.date(from: String(stamp)), line)
        XCTAssertTrue(line.hasSuffix(" warning clupd: queue=clup-ticket [CLupCoreTests] printer out of paper\n"), line)
        XCTAssertFalse(line.hasPrefix("<"), line)
    }

    func test_underTheJournalEachLineStartsWithItsSyslogPriorityAndNoStamp() {
        let lines = Lines()
        let logger = logger(journal: true, into: lines)
        logger.trace("t")
        logger.debug("d")
        logger.info("i")
        logger.notice("n")
        logger.warning("w")
        logger.error("e")
        logger.critical("c")
        XCTAssertEqual(lines.all, ["<7>trace clupd: [CLupCoreTests] t\n", "<7>debug clupd: [CLupCoreTests] d\n",
                                   "<6>info clupd: [CLupCoreTests] i\n", "<5>notice clupd: [CLupCoreTests] n\n",
                                   "<4>warning clupd: [CLupCoreTests] w\n", "<3>error clupd: [CLupCoreTests] e\n",
                                   "<2>critical clupd: [CLupCoreTests] c\n"])
    }

    /// journald reads a priority only at the start of a line: a typed "\n<3>…" must not
    /// make a second, forged error entry.
    func test_aTypedPriorityPrefixCannotStartAnEntryOfItsOwn() throws {
        let lines = Lines()
        logger(journal: true, into: lines).info("scanned", metadata: ["code": "x\n<3>clupd: the database is lost"])
        let line = try XCTUnwrap(lines.all.first)
        XCTAssertEqual(lines.all.count, 1)
        XCTAssertEqual(line.filter { $0 == "\n" }.count, 1, line)
        XCTAssertTrue(line.hasPrefix("<6>info clupd: code=x\\n<3>clupd: the database is lost"), line)
    }

    /// The message itself, typed with a newline and a priority: still one entry, at info.
    func test_aTypedPriorityInTheMessageStaysInsideItsLine() throws {
        let lines = Lines()
        logger(journal: true, into: lines).info("ticket A-001 for \nforged\n<3>forged: the database is lost\r\n<0>")
        XCTAssertEqual(lines.all, [#"<6>info clupd: [CLupCoreTests] ticket A-001 for \nforged\n<3>forged: the database is lost\r\n<0>"# + "\n"])
    }

    /// Outside the journal the line is, byte for byte, the one swift-log's own stream
    /// handler writes (the format `clupctl logs --file` reads), stamp and all.
    func test_outsideTheJournalTheLineIsSwiftLogsOwn() throws {
        final class Stream: TextOutputStream, @unchecked Sendable {
            var text = ""
            func write(_ string: String) { text += string }
        }
        let stream = Stream()
        var plain = StreamLogHandler(label: "clupd", stream: stream, metadataProvider: nil)
        plain.logLevel = .trace
        plain[metadataKey: "door"] = "A"
        for level in Logger.Level.allCases {
            let lines = Lines()
            var logger = logger(journal: false, into: lines)
            logger[metadataKey: "door"] = "A"
            repeat {
                stream.text = ""
                logger.log(level: level, "ticket issued", metadata: ["number": "A-001"])
                plain.log(event: LogEvent(level: level, message: "ticket issued", metadata: ["number": "A-001"], source: "CLupCoreTests",
                                          file: #fileID, function: #function, line: #line))
                // The two stamps were read a second apart: try again.
            } while lines.all.last?.split(separator: " ").first != stream.text.split(separator: " ").first
            XCTAssertEqual(lines.all.last, stream.text)
            XCTAssertTrue(stream.text.hasSuffix(" \(level) clupd: door=A number=A-001 [CLupCoreTests] ticket issued\n"), stream.text)
        }
    }

    /// Standard error is the journal only when JOURNAL_STREAM names that very stream.
    func test_theJournalIsStandardErrorOnlyWhenJournalStreamNamesIt() {
        var info = stat()
        XCTAssertEqual(fstat(STDERR_FILENO, &info), 0)
        XCTAssertTrue(Journal.isStandardError(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]))
        XCTAssertFalse(Journal.isStandardError(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino &+ 1)"]))
        XCTAssertFalse(Journal.isStandardError(environment: [:]))
    }
}
