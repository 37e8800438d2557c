import Foundation

/// `GET /runbooks`: `docs/runbooks.md`, compiled into the hub, as a page whose every
/// `## Alert` section has the alert's name in lower case as its id, the anchor of the
/// `runbook_url` each shipped alert rule carries (`https://HUB/runbooks#clupdoorsilent`).
///
/// The Markdown is the little the runbooks use: headings, paragraphs, `-` lists, fenced
/// code and `code`; everything else is shown as text, escaped.
enum RunbookPage {
    static let markdown = String(decoding: PackageResources.runbooks_md, as: UTF8.self)

    static let html: String = render(markdown)

    static func render(_ markdown: String) -> String {
        var body = ""
        var paragraph: [String] = []
        // The list's items so far, each with its continuation lines: a `code` span may
        // cross a line, so an item is made inline only once it is whole.
        var items: [[String]] = []
        var inCode = false
        func endParagraph() {
            if !paragraph.isEmpty { body += "<p>\(inline(paragraph.joined(separator: " ")))</p>\n" }
            paragraph = []
        }
        func endList() {
            guard !items.isEmpty else { return }
            body += "<ul>\n" + items.map { "<li>\(inline($0.joined(separator: " ")))</li>\n" }.joined() + "</ul>\n"
            items = []
        }
        func flush() {
            endParagraph()
            endList()
        }
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if inCode { body += "</code></pre>\n" } else { flush(); body += "<pre><code>" }
                inCode.toggle()
            } else if inCode {
                body += PanelPages.html(line) + "\n"
            } else if let level = heading(line) {
                flush()
                let title = line.dropFirst(level + 1).trimmingCharacters(in: .whitespaces)
                let id = level == 2 ? " id=\"\(PanelPages.html(anchor(title)))\"" : ""
                body += "<h\(level)\(id)>\(inline(title))</h\(level)>\n"
            } else if line.hasPrefix("- ") || line.hasPrefix("* ") {
                endParagraph()
                items.append([String(line.dropFirst(2))])
            } else if line.trimmingCharacters(in: .whitespaces).isEmpty {
                flush()
            } else if !items.isEmpty, line.hasPrefix("  ") {
                items[items.count - 1].append(line.trimmingCharacters(in: .whitespaces))
            } else {
                endList()
                paragraph.append(line.trimmingCharacters(in: .whitespaces))
            }
        }
        flush()
        if inCode { body += "</code></pre>\n" }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>CLup runbooks</title>
            <style>body{font-family:sans-serif;max-width:50em;margin:1em auto;padding:0 1em}pre{background:#f4f4f4;padding:.5em;overflow:auto}</style>
            </head><body>
            \(body)</body></html>
            """
    }

    /// The heading's level (1 to 3), if `line` is one.
    private static func heading(_ line: String) -> Int? {
        let hashes = line.prefix { $0 == "#" }.count
        return (1...3).contains(hashes) && line.dropFirst(hashes).hasPrefix(" ") ? hashes : nil
    }

    /// A section's id: its first word (the alert's name) in lower case.
    static func anchor(_ title: String) -> String {
        String(title.prefix { $0.isLetter || $0.isNumber }).lowercased()
    }

    /// `code` spans, the rest escaped.
    private static func inline(_ text: String) -> String {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().map { index, part in
            index % 2 == 1 ? "<code>\(PanelPages.html(String(part)))</code>" : PanelPages.html(String(part))
        }.joined()
    }
}
