import CLupCore
import CLupProtocol
import Foundation
import Logging
import PostgresNIO

#if canImport(Glibc)
import Glibc
#endif

/// Who did something the hub audits, and from where (IEC 62443-4-2's "source"): a manager
/// in the panel (the address the request came from), an administrator at the hub's shell
/// (the Unix user, and the SSH client's address when there is one), the hub on its own (a
/// rollout it paused), or a totem's report (its device id).
public struct AuditActor: Sendable, Equatable, CustomStringConvertible {
    public let who: String
    public let source: String

    public init(who: String, source: String) {
        self.who = TypedText.inMessage(who, maximum: Audit.maximumText)
        self.source = TypedText.inMessage(source, maximum: Audit.maximumText)
    }

    public var description: String { "\(who) (\(source))" }

    /// A manager signed in to the panel, from `address` (the client's, behind the chain's proxies).
    public static func panel(_ manager: String, from address: String) -> AuditActor {
        AuditActor(who: manager, source: "panel from \(address)")
    }

    /// The hub acting on its own (a rollout paused or done, retention).
    public static let hub = AuditActor(who: "clup-hub", source: "the hub itself")

    /// What a totem reported (an update refused, its files changed).
    public static func totem(_ device: DeviceID) -> AuditActor {
        AuditActor(who: "clup-hub", source: "report of totem \(device.rawValue)")
    }

    /// The administrator at the hub's shell: the Unix user this command runs as (often the
    /// hub's own, through `runuser`), the person behind it as far as the machine knows (the
    /// login uid, which `su`, `sudo` and `runuser` keep; `SUDO_USER`; the terminal), and the
    /// SSH client's address where the session came through SSH and it was kept.
    public static var shell: AuditActor {
        let uid = getuid()
        let name = getpwuid(uid).flatMap { $0.pointee.pw_name.map { String(cString: $0) } } ?? "uid \(uid)"
        let claim = CallerClaim.current
        var parts = ["shell, user \(name) (uid \(uid))"]
        if let login = claim.loginUID { parts.append("login \(claim.loginName ?? "?") (uid \(login))") }
        if let sudo = claim.sudoUser { parts.append("through sudo by \(sudo)") }
        if let terminal = claim.terminal { parts.append("on \(terminal)") }
        // "client-address client-port server-address server-port"
        if let ssh = ProcessInfo.processInfo.environment["SSH_CONNECTION"]?.split(separator: " ").first { parts.append("from \(ssh)") }
        return AuditActor(who: "clup-hub (shell)", source: parts.joined(separator: ", "))
    }
}

/// The chain's audit trail, one home for every feature that changes something (the panel,
/// the administrator's shell, rollouts, retention, employees, what totems report): when,
/// who and from where (`AuditActor`), to which store (nil: to the chain), what, how it ended
/// ("ok", or "refused: …" for an attempt the hub turned down), with the values before and
/// after. Written on the connection of the change's own transaction, so neither is ever
/// kept without the other. Listed by `clup-hub audit`.
public enum Audit {
    /// The longest who, source and result kept: they may hold what someone typed.
    static let maximumText = 200
    /// The result of what was done as asked.
    public static let ok = "ok"

    static func record(by actor: AuditActor, store: StoreID?, action: String, result: String = ok, before: String?, after: String?,
                       _ connection: PostgresConnection, _ logger: Logger) async throws {
        let result = TypedText.inMessage(result, maximum: maximumText)
        try await connection.query("""
            INSERT INTO audit (who, source, store_id, action, result, before, after)
            VALUES (\(actor.who), \(actor.source), \(store), \(action), \(result), \(before), \(after))
            """, logger: logger)
    }

    /// Records an attempt the hub refused, in a transaction of its own (the change it asked
    /// for was not made); `error`'s message is the result. Never throws: the refusal is what
    /// the caller reports, an audit that could not be kept is logged.
    /// `about`: what was asked for (a totem's id), kept as the record's `after`.
    public static func refused(by actor: AuditActor, store: StoreID?, action: String, error: any Error, database: HubDatabase,
                               about: String? = nil) async {
        let result = "refused: \(CodedError(describing: error))"
        do {
            try await database.transaction { connection in
                try await record(by: actor, store: store, action: action, result: result, before: nil, after: about,
                                 connection, database.logger)
            }
        } catch {
            database.logger.error("a refusal could not be audited", metadata: ["action": "\(action)", "error": "\(error)"])
        }
    }

    /// One record of the trail.
    public struct Entry: Codable, Sendable, Equatable {
        public let id: Int64
        public let at: Date
        public let who: String
        public let source: String
        public let store: String?
        public let action: String
        public let result: String
        public let before: String?
        public let after: String?

        /// The record in a line. Who, source and result were kept escaped: shown as they are
        /// (but for a control character an older release kept raw); the rest escaped here.
        public var line: String {
            let kept = { (text: String) in TypedText.shown(text) }, raw = { (text: String) in TypedText.escaped(text) }
            var out = "\(at.formatted(.iso8601))  \(kept(who)) (\(kept(source)))  \(store.map { "store \(raw($0))" } ?? "chain")"
                + "  \(raw(action))  \(kept(result))"
            if before != nil || after != nil { out += "  [\(before.map(raw) ?? "-") -> \(after.map(raw) ?? "-")]" }
            return out
        }
    }

    /// The newest `limit` records (of `store` only, when given; since `since`), oldest first.
    public static func entries(store: StoreID?, since: Date?, limit: Int, database: HubDatabase) async throws -> [Entry] {
        let limit = max(1, min(limit, 100_000))
        let since = since ?? Date(timeIntervalSince1970: 0)
        return try await database.withConnection { connection in
            let rows = try await connection.query("""
                SELECT audit_id, at, who, source, store_id, action, result, before, after FROM audit
                WHERE (\(store?.rawValue)::text IS NULL OR store_id = \(store?.rawValue)) AND at >= \(since)
                ORDER BY audit_id DESC LIMIT \(limit)
                """, logger: database.logger)
            var entries: [Entry] = []
            for try await (id, at, who, source, store, action, result, before, after)
                in rows.decode((Int64, Date, String, String, String?, String, String, String?, String?).self) {
                entries.append(Entry(id: id, at: at, who: who, source: source, store: store, action: action, result: result,
                                     before: before, after: after))
            }
            return entries.reversed()
        }
    }
}
