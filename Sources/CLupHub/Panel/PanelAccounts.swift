import HTTPTypes
import CLupCore
import Crypto
import Foundation
import HummingbirdBcrypt
import NIOPosix
import PostgresNIO

/// The managers of the web panel, their sessions, and the audit of what they change.
///
/// Passwords are kept only as bcrypt hashes (cost `cost`, hashed off the event loop) and are
/// never logged. Five wrong guesses in a row lock a name, a manager's or not, for `lockout`. A session is a
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
        public let store: StoreID?

        public func mayManage(_ store: StoreID) -> Bool { role == .chainAdmin || self.store == store }
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
    public func add(name: String, password: String, role: Role, store: StoreID?) async throws {
        guard Self.isManagerName(name) else {
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
                    store_id = excluded.store_id
                """, logger: logger)
            try await connection.query("DELETE FROM login_throttle WHERE name = \(name)", logger: logger)
            try await Audit.record(by: .shell, store: store, action: "manager \(name) set as \(role.rawValue)",
                                   before: nil, after: nil, connection, logger)
        }
    }

    public enum LoginOutcome: Sendable {
        case loggedIn(token: String, Session)
        case refused
        case locked(until: Date)
    }

    /// What a manager's name may be; a name typed at the login page that is not one is
    /// refused before anything is looked up (the rule is public, so this tells nothing).
    static func isManagerName(_ name: String) -> Bool {
        name.utf8.count <= 32 && name.range(of: "^[a-z][a-z0-9._-]{1,31}$", options: .regularExpression) != nil
    }

    static let nameRule = "A manager's name is 2 to 32 small letters, digits, . _ or -, starting with a letter."

    /// Checks a name and password; on success opens a new session.
    ///
    /// The guess is counted before its password is checked, in a transaction of its own that
    /// holds the name's `login_throttle` row: however many guesses arrive at once, at most
    /// `failuresBeforeLockout` of them are ever checked before the lock, and the last of them
    /// sets it. A name nobody has is counted and locked the same way, and checked against a
    /// decoy hash, so that its answers (and their time) are those of a real name.
    public func login(name: String, password: String, from address: String, now: Date = Date()) async throws -> LoginOutcome {
        guard Self.isManagerName(name) else { throw HubError.badRequest(Self.nameRule) }
        let logger = database.logger
        let guess = try await database.transaction { connection in
            try await connection.query("INSERT INTO login_throttle (name) VALUES (\(name)) ON CONFLICT (name) DO NOTHING", logger: logger)
            guard let (counted, locked) = try await connection.rows("""
                SELECT guesses, locked_until FROM login_throttle WHERE name = \(name) FOR UPDATE
                """, as: (Int, Date?).self, logger).first
            else { throw HubError(.internalServerError, .hubInternalError, "a login guess could not be counted") }
            var guesses = counted
            if let locked, locked > now { return Guess.refusedLocked(until: locked) }
            if locked != nil { guesses = 0 }  // a lock that ran out: five more guesses
            guesses += 1
            let lockedNow = guesses >= Self.failuresBeforeLockout ? now.addingTimeInterval(Self.lockout) : nil
            try await connection.query("""
                UPDATE login_throttle SET guesses = \(guesses), locked_until = \(lockedNow), last_guess = \(now) WHERE name = \(name)
                """, logger: logger)
            let manager = try await connection.rows("""
                SELECT password_hash, role, store_id FROM manager WHERE name = \(name)
                """, as: (String, String, String?).self, logger).first
            return Guess.check(manager, number: guesses, locksUntil: lockedNow)
        }
        // Now and then, not at every guess: a spray of names costs the table a few rows each.
        if UInt8.random(in: 0...15) == 0 { try await forgetOldGuesses(now: now) }
        guard case let .check(manager, number, locksUntil) = guess else {
            if case let .refusedLocked(until) = guess { return .locked(until: until) }
            return .refused
        }
        // An unknown name costs the same time as a wrong password.
        let matches = try await Self.verify(password.utf8.count <= Self.maximumPasswordLength ? password : "",
                                            hash: manager?.0 ?? Self.decoy)
        guard let (_, roleText, store) = manager, matches, let role = Role(rawValue: roleText) else {
            if manager != nil {
                try await database.transaction { connection in
                    let result = locksUntil == nil ? "refused: wrong password" : "refused: locked after \(number) wrong passwords"
                    try await Audit.record(by: .panel(name, from: address), store: nil, action: "log in", result: result,
                                           before: nil, after: nil, connection, logger)
                }
            }
            return locksUntil.map { .locked(until: $0) } ?? .refused
        }
        let token = Self.randomToken()
        let csrf = Self.randomToken()
        try await database.transaction { connection in
            try await connection.query("DELETE FROM login_throttle WHERE name = \(name)", logger: logger)
            try await connection.query("""
                INSERT INTO manager_session (token_hash, manager, csrf_token) VALUES (\(Self.digest(token)), \(name), \(csrf))
                """, logger: logger)
            try await Audit.record(by: .panel(name, from: address), store: nil, action: "log in", before: nil, after: nil,
                                   connection, logger)
        }
        return .loggedIn(token: token, Session(manager: Manager(name: name, role: role, store: store.map(StoreID.init)), csrf: csrf))
    }

    /// A guess as counted: refused unchecked because the name is locked, or to be checked
    /// (the `number`th since the last success, against the manager's hash if there is one).
    private enum Guess: Sendable {
        case refusedLocked(until: Date)
        case check((String, String, String?)?, number: Int, locksUntil: Date?)
    }

    /// Drops the rows of names last guessed at longer ago than a lock lasts and not locked
    /// now, so that the table holds only recent guesses (rows another login holds are left).
    private func forgetOldGuesses(now: Date) async throws {
        let before = now.addingTimeInterval(-Self.lockout)
        try await database.transaction { [logger = database.logger] connection in
            try await connection.query("""
                DELETE FROM login_throttle WHERE name IN (
                    SELECT name FROM login_throttle WHERE last_guess < \(before) AND (locked_until IS NULL OR locked_until < \(now))
                    FOR UPDATE SKIP LOCKED)
                """, logger: logger)
        }
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
            return Session(manager: Manager(name: name, role: role, store: store.map(StoreID.init)), csrf: csrf)
        }
    }

    public func logout(token: String) async throws {
        try await database.transaction { [logger = database.logger] connection in
            try await connection.query("DELETE FROM manager_session WHERE token_hash = \(Self.digest(token))", logger: logger)
        }
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
