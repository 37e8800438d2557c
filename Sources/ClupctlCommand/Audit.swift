import ArgumentParser
import CLupCore
import CLupProtocol
import Foundation

/// `clupctl audit`: what staff did at the totem: logins and refused PINs at the PIN pad,
/// its locks, priority tickets, employees added or removed, and by whom.
struct Audit: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show what staff did at the totem, oldest first.")
    @OptionGroup var connection: Connection
    @Option(help: "Only the last so long: 30m, 2h, 7d; or from an ISO 8601 instant.") var since: String?
    @Option(help: "Only what this technician, staff number or user did.") var who: String?
    @Flag(help: "As JSON.") var json = false

    func run() throws {
        let from = try since.map(Self.instant)
        var report = try connection.client.send(Control.Audit(since: from))
        if let who { report = AuditReport(entries: report.entries.filter { $0.who == who }, truncated: report.truncated) }
        if json { return try printJSON(report) }
        if report.truncated { print("(older entries left out: the newest \(AuditReport.limit) shown)") }
        if report.entries.isEmpty { print("nothing audited" + (since.map { " in the last \(quoted($0))" } ?? "")) }
        for line in Self.lines(report) { print(line) }
    }

    /// One line per entry: when, role, who, what, how it ended, and where it came from
    /// (with the command as typed). Every field is escaped: a name or a reason typed with a
    /// newline in it cannot pass for an entry of its own, nor act on the terminal.
    static func lines(_ report: AuditReport) -> [String] {
        report.entries.map { entry in
            let command: String
            if let from = entry.from {
                command = "  from \(shown(from))" + (entry.what.map { ": \(shown($0))" } ?? "")
            } else {
                // An entry from before 0.12 knows the caller's uid only.
                command = entry.what.map { "  uid \(entry.uid.map(String.init) ?? "?"): \(shown($0))" } ?? ""
            }
            return "\(entry.at.formatted(.iso8601))  \(column(shown(entry.role), 10)) \(column(shown(entry.who), 10)) "
                + "\(column(shown(entry.action), 16)) \(shown(entry.result))\(command)"
        }
    }

    /// "30m", "2h", "7d" back from now, or an ISO 8601 instant.
    static func instant(_ text: String) throws -> Date {
        let units: [Character: Double] = ["m": 60, "h": 3600, "d": 86400]
        if let unit = text.last.flatMap({ units[$0] }), let count = Double(text.dropLast()), count >= 0, count <= 3650 {
            return Date().addingTimeInterval(-count * unit)
        }
        if let date = try? Date(text, strategy: .iso8601) { return date }
        throw ValidationError("--since takes 30m, 2h, 7d (up to 3650 days) or an ISO 8601 instant, not \(quoted(text))")
    }
}
