@testable import CLupHub
import XCTest

/// `docs/runbooks.md` as the hub serves it at `/runbooks`: each alert's section found by
/// the anchor its rule's runbook_url names, and the text escaped.
final class RunbookPageTests: XCTestCase {
    func test_eachAlertsSectionHasItsNameInLowerCaseAsItsId() throws {
        let html = RunbookPage.html
        let rules = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../prometheus/clup-hub.rules.yml").standardized, encoding: .utf8)
        let alerts = rules.matches(of: /- alert: (\w+)/).map { String($0.output.1) }
        XCTAssertGreaterThan(alerts.count, 10)
        for alert in alerts {
            XCTAssertTrue(html.contains("<h2 id=\"\(alert.lowercased())\">\(alert)</h2>"), "no section for \(alert)")
        }
    }

    func test_aCodeSpanAcrossTheLinesOfAListItemStaysOneSpanAndEverythingIsEscaped() {
        let html = RunbookPage.render("""
            ## ClupThing <b>

            - Check `clup-hub totems
              --store 7` first, then <script>.
            - Second item.

            ```
            psql -c "SELECT 1 < 2"
            ```
            """)
        XCTAssertTrue(html.contains("<h2 id=\"clupthing\">ClupThing &lt;b&gt;</h2>"), html)
        XCTAssertTrue(html.contains("<li>Check <code>clup-hub totems --store 7</code> first, then &lt;script&gt;.</li>\n<li>Second item.</li>"), html)
        XCTAssertTrue(html.contains("<pre><code>psql -c &quot;SELECT 1 &lt; 2&quot;\n</code></pre>"), html)
        XCTAssertFalse(html.contains("<script>"))
    }
}
