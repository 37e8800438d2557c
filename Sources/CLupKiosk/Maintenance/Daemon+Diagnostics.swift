import CLupCore
import CLupProtocol
import CLupStore
import Foundation

/// `clupctl diagnostics`: everything support asks for, from every report the totem keeps.
extension Daemon {
    /// What support asks for: versions, the configuration without secrets, the database's
    /// integrity, the devices, the printer, the sync, the last 100 events and the audit trail.
    /// The database is checked on a worker, on a connection of its own.
    func diagnostics() -> PendingReply<DiagnosticsReport> {
        let pending = PendingReply<DiagnosticsReport>("the diagnostics", seconds: 120)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        func json<T: Encodable>(_ value: T) -> String { (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}" }
        var parts: [DiagnosticsReport.Part] = []
        parts.append(.init(name: "versions.txt", text: Self.versions()))
        parts.append(.init(name: "clupd.toml", text: Self.redacted(config.toml(comments: false))))
        parts.append(.init(name: "status.json", text: (try? statusReport()).map(json) ?? "{}"))
        parts.append(.init(name: "devices.json", text: json(devicesReport())))
        parts.append(.init(name: "printer.json", text: json(printerWatch.report())))
        parts.append(.init(name: "sync.json", text: json(syncReport())))
        parts.append(.init(name: "queue.json", text: json(QueueController(kiosk: kiosk).queueReport())))
        let last = Int((try? kiosk.desk.store.lastSeq()) ?? 0)
        let events = (try? kiosk.desk.store.events(after: max(0, last - 100))) ?? []
        parts.append(.init(name: "events.jsonl", text: events.map {
            "{\"seq\":\($0.seq),\"at\":\"\($0.wallTime.formatted(.iso8601))\",\"type\":\"\($0.type)\",\"payload\":\($0.payload)}"
        }.joined(separator: "\n") + "\n"))
        let trail = (try? Kiosk.auditTrail(in: kiosk.desk.store, last: 500)) ?? []
        parts.append(.init(name: "audit.txt", text: trail.map {
            "\($0.at.formatted(.iso8601))  \($0.entry.role.rawValue) \($0.entry.who) \($0.entry.action.rawValue) \($0.entry.result)"
                + ($0.entry.what.map { "  [\($0)]" } ?? "") + ($0.entry.uid.map { " uid \($0)" } ?? "")
        }.joined(separator: "\n") + "\n"))
        let path = state.databasePath
        loop.background({ () -> String in TotemStore.integrityCheck(path: path) }) { result in
            parts.append(.init(name: "integrity.txt", text: result))
            pending.finish(.success(DiagnosticsReport(parts: parts)))
        }
        return pending
    }

    /// Replaces the values of keys that name a secret, token, password or key.
    static func redacted(_ toml: String) -> String {
        toml.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let text = String(line)
            guard let equals = text.firstIndex(of: "="), !text.trimmingCharacters(in: .whitespaces).hasPrefix("#") else { return text }
            let key = text[..<equals].lowercased()
            guard ["secret", "token", "password", "key"].contains(where: key.contains) else { return text }
            return text[..<equals] + "= \"<removed>\""
        }.joined(separator: "\n")
    }

    static func versions() -> String {
        var lines = ["clupd \(PackageVersion.current)"]
        var names = utsname()
        uname(&names)
        let release = withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let machine = withUnsafeBytes(of: &names.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        lines.append("kernel \(release) \(machine)")
        if let debian = try? String(contentsOfFile: "/etc/debian_version", encoding: .utf8) {
            lines.append("debian \(debian.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        lines.append("sqlite \(TotemStore.sqliteVersion)")
        return lines.joined(separator: "\n") + "\n"
    }
}
