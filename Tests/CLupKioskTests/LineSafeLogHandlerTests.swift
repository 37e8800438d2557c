@testable import CLupKiosk
import Foundation
import Logging
import XCTest

/// clupd's log lines: no logged field can start a line of its own or act on a terminal.
final class LineSafeLogHandlerTests: XCTestCase {
    final class Lines: TextOutputStream, @unchecked Sendable {
        var text = ""
        func write(_ string: String) { text += string }
    }

    func test_aMessageOrAValueWithANewlineAnEscapeOrANulStaysOnItsLine() {
        let lines = Lines()
        var logger = Logger(label: "clupd") { LineSafeLogHandler(StreamLogHandler(label: $0, stream: lines, metadataProvider: nil)) }
        logger[metadataKey: "totem"] = "A\n1999-01-01T00:00:00Z info clupd: forged"
        logger.notice("ticket voided\u{1B}[2J", metadata: ["reason": "dup\u{1B}]0;pwned\u{07}", "by": "x\n1999",
                                                           "list": ["a\u{0}b"], "nested": ["k": "\r\n"]])
        let written = lines.text
        XCTAssertEqual(written.filter { $0 == "\n" }.count, 1, "one line: \(written)")
        XCTAssertTrue(written.hasSuffix("\n"))
        XCTAssertFalse(written.dropLast().unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, written)
        XCTAssertTrue(written.contains(#"reason=dup\u{1B}]0;pwned\u{7}"#), written)
        XCTAssertTrue(written.contains(#"by=x\n1999"#), written)
        XCTAssertTrue(written.contains(#"totem=A\n1999-01-01T00:00:00Z info clupd: forged"#), written)
        XCTAssertTrue(written.hasSuffix(#"ticket voided\u{1B}[2J"# + "\n"), written)
    }
}
