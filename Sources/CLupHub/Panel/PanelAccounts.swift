import CLupCore
import Crypto
import Foundation
import HummingbirdBcrypt
import NIOPosix
import PostgresNIO

/// The managers of the web panel, their sessions, and the audit of what they change.
///
/// Passwords are kept only as bcrypt hashes (cost `cost`, hashed off the event loop) and are
/// never logged. Five wrong passwords in a row lock a name for `lockout`. A session is a
/// random token in a cookie, kept at the hub as its SHA-256 with a CSRF token of its own;
/// a new one is made at every login (a token chosen before the login is never honoured)
/// and it ends after `idleLimit` without a request or `lifetime` in all.
public struct PanelAccounts: Sendable {
    let database: HubDatabase

    public init(database: HubDatabase) {
        self.database = database
    }

    public enum Role: String, Sendable, CaseIterable {
        /// Every store of the chain.
        case chainAdmin = "chain-admin"
        /// One store.
        case storeManager = "store-manager"
    }

    /// Who is logged in.
    public struct Manager: Sendable, Equatable {
        public let name: String
        public let role: Role
        /// The store of a store manager; nil for a chain administrator.
        public let store: String?

        public func mayManage(_ store: String) -> Bool { role == .chainAdmin || self.store == store }
    }

    public struct Session: Sendable {
        public let manager: Manager
        public let csrf: String
    }

    static let cost: UInt8 = 11
    static let failuresBeforeLockout = 5
    static let lockout: Double = 15 * 60
    static let idleLimit: Double = 30 * 60
    static let lifetime: Double = 8 * 3600
    static let minimumPasswordLength = 12
    static let maximumPasswordLength = 72

    /// Adds a manager (or sets a new password and role for one).
    public func add(name: String, password: String, role: Role, store: String?) async throws {
        guard name.range(of: "^[a-z][a-z0-9._-]{1,31}$", options: .regularExpression) != nil else {
            throw HubError.badRequest("a manager's name is 2 to 32 small letters, digits, . _ or -, starting with a letter")
        }
        guard (Self.minimumPasswordLength...Self.maximumPasswordLength).contains(password.utf8.count) else {
            throw HubError.badRequest("a password has \(Self.minimumPasswordLength) to \(Self.maximumPasswordLength) bytes")
        }
        guard (role == .storeManager) == (store != nil) else {
            throw HubError.badRequest("a store manager names one store (--store); a chain administrator none")
        }
        let hash = try await Self.hash(password)
        try await database.transaction { [logger = database.logger] connection in
            if let store, try await connection.all("SELECT store_id FROM store WHERE store_id = \(store)", as: String.self, logger).isEmpty {
                throw HubError(.notFound, .unknownStore, "no store \"\(store)\"")
            }
            try await connection.query("""
                INSERT INTO manager (name, password_hash, role, store_id) VALUES (\(name), \(hash), \(role.rawValue), \(store))
                ON CONFLICT (name) DO UPDATE SET password_hash = excluded.password_hash, role = excluded.role,
                    store_id = excluded.store_id, failed_logins = 0, locked_until = NULL
                """, logger: logger)
            try await Self.audit(who: "clup-hub (shell)", store: store, action: "manager \(name) set as \(role.rawValue)",
                                 before: nil, after: nil, connection, logger)
        }
    }

    public enum LoginOutcome: Sendable {
        case loggedIn(token: String, Session)
        case refused
        case locked(until: Date)
    }

    /// Checks a name and password; on success opens a new session.
    public func login(name: String, password: String, now: Date = Date()) async throws -> LoginOutcome {
        let logger = database.logger
        let found = try await database.transaction { connection in
            try await connection.rows("""
                SELECT password_hash, role, store_id, locked_until FROM manager WHERE name = \(name) FOR UPDATE
                """, as: (String, String, String?, Date?).self, logger).first
        }
        if let locked = found?.3, locked > now { return .locked(until: locked) }
        // An unknown name costs the same time as a wrong password.
        let matches = try await Self.verify(password.utf8.count <= Self.maximumPasswordLength ? password : "",
                                            hash: found?.0 ?? Self.decoy)
        guard let (_, roleText, store, _) = found, matches, let role = Role(rawValue: roleText) else {
            if found != nil {
                return try await database.transaction { connection in
                    let failures = try await connection.all("""
                        UPDATE manager SET failed_logins = failed_logins + 1 WHERE name = \(name) RETURNING failed_logins
                        """, as: Int.self, logger).first ?? 0
                    guard failures >= Self.failuresBeforeLockout else {
                        try await Self.audit(who: name, store: nil, action: "login refused (wrong password)", before: nil, after: nil,
                                             connection, logger)
                        return .refused
                    }
                    let until = now.addingTimeInterval(Self.lockout)
                    try await connection.query("""
                        UPDATE manager SET failed_logins = 0, locked_until = \(until) WHERE name = \(name)
                        """, logger: logger)
                    try await Self.audit(who: name, store: nil, action: "locked after \(failures) wrong passwords", before: nil,
                                         after: nil, connection, logger)
                    return .locked(until: until)
                }
            }
            return .refused
        }
        let token = Self.randomToken()
        let csrf = Self.randomToken()
        try await database.transaction { connection in
            try await connection.query("UPDATE manager SET failed_logins = 0, locked_until = NULL WHERE name = \(name)", logger: logger)
            try await connection.query("""
                INSERT INTO manager_session (token_hash, manager, csrf_token) VALUES (\(Self.digest(token)), \(name), \(csrf))
                """, logger: logger)
            try await Self.audit(who: name, store: nil, action: "logged in", before: nil, after: nil, connection, logger)
        }
        return .loggedIn(token: token, Session(manager: Manager(name: name, role: role, store: store), csrf: csrf))
    }

    /// The session of `token`, if it is live (and its last use moved to now).
    public func session(token: String, now: Date = Date()) async throws -> Session? {
        guard (20...100).contains(token.utf8.count) else { return nil }
        let logger = database.logger
        return try await database.transaction { connection in
            guard let (name, roleText, store, csrf) = try await connection.rows("""
                UPDATE manager_session s SET last_seen = \(now) FROM manager m
                WHERE s.token_hash = \(Self.digest(token)) AND m.name = s.manager
                    AND s.last_seen > \(now.addingTimeInterval(-Self.idleLimit)) AND s.created_at > \(now.addingTimeInterval(-Self.lifetime))
                RETURNING m.name, m.role, m.store_id, s.csrf_token
                """, as: (String, String, String?, String).self, logger).first,
                let role = Role(rawValue: roleText)
            else { return nil }
            return Session(manager: Manager(name: name, role: role, store: store), csrf: csrf)
        }
    }

    public func logout(token: String) async throws {
        try await database.transaction { [logger = database.logger] connection in
            try await connection.query("DELETE FROM manager_session WHERE token_hash = \(Self.digest(token))", logger: logger)
        }
    }

    /// One line of the audit: who did what to which store, and the values before and after.
    static func audit(who: String, store: String?, action: String, before: String?, after: String?,
                      _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO audit (who, store_id, action, before, after) VALUES (\(who), \(store), \(action), \(before), \(after))
            """, logger: logger)
    }

    static func randomToken() -> String {
        Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func digest(_ token: String) -> Data { Data(SHA256.hash(data: Data(token.utf8))) }

    /// A hash no password matches, checked for unknown names so that they take as long.
    static let decoy = Bcrypt.hash(randomToken(), cost: cost)

    static func hash(_ password: String) async throws -> String {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    static func verify(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}
