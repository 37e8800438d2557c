import HTTPTypes
import CLupCore
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The hub's PostgreSQL: one connection pool (`PostgresClient`) per hub process. Nothing
/// about totems is held in the process: every request reads and writes the database, so
/// any number of hub processes may serve one database.
///
/// The database may be one server, or the members of a replicated cluster (Patroni's, with
/// synchronous replication: a commit is on two servers before the hub answers): then the
/// hub keeps a pool per member and serves from the primary, which it finds by asking each
/// member whether it is in recovery, every second (`followPrimary`). When the primary dies,
/// requests fail with 503 (totems send again) until a replica is promoted and found.
public final class HubDatabase: Service, Sendable {
    /// The pool of the member serving now (the only one, or the primary last found).
    public var client: PostgresClient { members[primary.withLock { $0 }].client }
    let logger: Logger
    /// For a connection of its own, outside the pool (the settings listener's), to the primary.
    var directConfiguration: PostgresConnection.Configuration { members[primary.withLock { $0 }].direct }
    /// The database's servers: one, or a cluster's members (`[database] members`).
    private let members: [Member]
    private let primary = Mutex(0)
    /// Days of events the chain keeps, as last read (`Retention.refresh`); ingest accepts
    /// the days within it.
    private let kept = Mutex(Retention.standardEventDays)
    /// Days whose partitions this process made or saw made: a batch of such a day needs no
    /// DDL round trip. A day leaves the set when this process retires it.
    private let partitioned = Mutex(Set<String>())
    /// How many members' pools have been started by `run` (`running()` waits for all).
    private let started = Mutex(0)

    struct Member: Sendable {
        let name: String
        let client: PostgresClient
        let direct: PostgresConnection.Configuration
    }

    public init(settings: DatabaseSettings, logger: Logger, deadline: Duration = HubDatabase.standardDeadline) throws(HubError) {
        var password: String? = nil
        if let file = HubSecret.databasePassword.path(else: settings.passwordFile) {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                let sealed = HubSecret.databasePassword.isSealed() && !FileManager.default.fileExists(atPath: file)
                throw HubError(.internalServerError, .hubDatabaseUnavailable, "cannot read the password file \(file)"
                    + (sealed ? " (sealed by clup-hub seal: run the command with systemd-run --pipe --wait -p User=clup-hub "
                        + "-p LoadCredentialEncrypted=\(HubSecret.databasePassword.rawValue) /usr/bin/clup-hub …)" : ""))
            }
            password = text.split(separator: "\n").first.map(String.init)
        }
        // PostgreSQL ends a statement a second before the hub would stop waiting for it, so
        // that a statement held up (by a lock, say) fails and rolls its transaction back
        // before the answer is 503, rather than commit after it.
        let milliseconds = deadline.components.seconds * 1000 + deadline.components.attoseconds / 1_000_000_000_000_000
        func member(_ name: String, _ configuration: PostgresClient.Configuration, _ direct: PostgresConnection.Configuration) -> Member {
            var configuration = configuration
            configuration.options.maximumConnections = settings.connections
            configuration.options.connectTimeout = .seconds(5)
            configuration.options.additionalStartupParameters = [("statement_timeout", "\(max(500, milliseconds - 1000))")]
            // A member that does not answer (its machine gone) holds a question of the primary
            // for 2 s at most.
            var direct = direct
            direct.options.connectTimeout = .seconds(2)
            return Member(name: name, client: PostgresClient(configuration: configuration, backgroundLogger: logger), direct: direct)
        }
        if !settings.members.isEmpty {
            var members: [Member] = []
            for text in settings.members {
                guard let (host, port) = Self.hostAndPort(text) else {
                    throw HubError(.internalServerError, .hubDatabaseUnavailable,
                                   "[database] members: \"\(text.prefix(80))\" is not host:port")
                }
                members.append(member(text, .init(host: host, port: port, username: settings.user, password: password,
                                                  database: settings.name, tls: .disable),
                                      .init(host: host, port: port, username: settings.user, password: password,
                                            database: settings.name, tls: .disable)))
            }
            self.members = members
        } else if let folder = settings.socketDirectory {
            let path = "\(folder)/.s.PGSQL.\(settings.port)"
            members = [member(path, .init(unixSocketPath: path, username: settings.user, password: password, database: settings.name),
                              .init(unixSocketPath: path, username: settings.user, password: password, database: settings.name))]
        } else {
            members = [member("\(settings.host):\(settings.port)",
                              .init(host: settings.host, port: settings.port, username: settings.user, password: password,
                                    database: settings.name, tls: .disable),
                              .init(host: settings.host, port: settings.port, username: settings.user, password: password,
                                    database: settings.name, tls: .disable))]
        }
        self.logger = logger
        self.deadline = deadline
    }

    /// `host:port` (an IPv6 address in brackets), or nil.
    static func hostAndPort(_ text: String) -> (String, Int)? {
        guard text.utf8.count <= 300, let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (1...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }) else { return nil }
        return (host, port)
    }

    /// Runs the pools until cancelled or the hub's graceful shutdown; with several members,
    /// follows the primary. The hub's first service: the others wait for `running()`.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            for member in members {
                group.addTask {
                    // Counted just before its run(), whose first act (no suspension between)
                    // marks the pool running: what waits for `running()` leases after that.
                    self.started.withLock { $0 += 1 }
                    await member.client.run()
                }
            }
            if members.count > 1 { group.addTask { await cancelWhenGracefulShutdown { await self.followPrimary() } } }
        }
    }

    /// Returns once every member's pool runs (`run`), or the task is cancelled: a background
    /// round or the server that leased before would be queued behind a pool not yet running
    /// (postgres-nio warns "PostgresClient.run() hasn't been called yet").
    public func running() async {
        while started.withLock({ $0 }) < members.count, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Connects once to the member serving now, outside the pool, and throws if that fails
    /// within `reachableWithin` (a refused connection fails at once, a silent host after the
    /// connect timeout, 2 s; a server that accepts but never finishes the start-up is given up
    /// on too): a command run by hand says the database is not there in seconds, where the
    /// pool would keep trying for a minute first.
    public func checkReachable() async throws {
        let (configuration, logger) = (directConfiguration, self.logger)
        do {
            try await Self.withTimeout(Self.reachableWithin) {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                // Reached: a failure to say goodbye is not the database's absence.
                try? await connection.close()
            }
        } catch is CancellationError {
            throw HubError(.serviceUnavailable, .hubDatabaseUnavailable,
                           "the hub's database cannot be reached: no answer within \(Self.reachableWithin)")
        }
    }
    static let reachableWithin: Duration = .seconds(5)

    /// With several members: finds the primary before the first request (within the
    /// deadline; else the first member serves, and requests fail until it is found).
    public func findPrimary() async {
        guard members.count > 1 else { return }
        let deadline = ContinuousClock.now + self.deadline
        while ContinuousClock.now < deadline, !Task.isCancelled {
            if await lookForPrimary() { return }
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    /// Asks every member each second whether it is the primary, until cancelled.
    private func followPrimary() async {
        while !Task.isCancelled {
            _ = await lookForPrimary()
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Asks each member, on a connection of its own, whether it is in recovery; the first
    /// that is not serves from now on. Returns whether one was found.
    private func lookForPrimary() async -> Bool {
        let answers = await withTaskGroup(of: (Int, Bool).self) { group in
            for (index, member) in members.enumerated() {
                group.addTask { [logger] in
                    let primary = try? await Self.withTimeout(.seconds(2)) {
                        let connection = try await PostgresConnection.connect(configuration: member.direct, id: index, logger: logger)
                        do {
                            let primary = try await connection.all("SELECT NOT pg_is_in_recovery()", as: Bool.self, logger).first
                            try? await connection.close()
                            return primary ?? false
                        } catch {
                            try? await connection.close()
                            throw error
                        }
                    }
                    return (index, primary ?? false)
                }
            }
            return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        guard let found = answers.filter(\.value).map(\.key).min() else { return false }
        let before = primary.withLock { current in
            defer { current = found }
            return current
        }
        if before != found {
            logger.notice("the database's primary is now \(members[found].name)", metadata: ["before": "\(members[before].name)"])
        }
        return true
    }

    /// What `body` returns, or a `CancellationError` once `limit` has passed.
    private static func withTimeout<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask { try await Task.sleep(for: limit); return nil }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw CancellationError() }
            return value
        }
    }

    /// A request the database does not let finish within `deadline` (PostgreSQL down: the
    /// pool waits for a connection that never comes; restarted: a query whose connection
    /// died unseen; a lock held elsewhere) is answered 503, so the totem retries instead of
    /// hanging. The serving connections also carry a `statement_timeout` a second shorter,
    /// so that a statement PostgreSQL holds up fails there first and its transaction rolls
    /// back. What is left: a transaction slow over several statements may still commit
    /// after its 503: a totem's batch is idempotent; an app's retried booking may be made
    /// twice (the bookings API has no idempotency key yet).
    public let deadline: Duration
    public static let standardDeadline: Duration = .seconds(8)

    /// Runs `body`, or fails with 503 once `deadline` has passed, whether or not `body`
    /// notices that it was cancelled: the answer never waits for the database.
    func withDeadline<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let deadline = self.deadline
        let answer = FirstAnswer<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                answer.wait(with: continuation)
                let work = Task {
                    do { answer.give(.success(try await body())) } catch { answer.give(.failure(error)) }
                }
                let timer = Task {
                    try await Task.sleep(for: deadline)
                    answer.give(.failure(HubError(.serviceUnavailable, .hubDatabaseUnavailable,
                                                  "the hub's database did not answer within \(deadline)")))
                }
                // Whoever answers first (the work, the deadline, the caller's cancellation),
                // the other two stop: the work rolls back at its next statement.
                answer.whenGiven {
                    timer.cancel()
                    work.cancel()
                }
            }
        } onCancel: {
            answer.give(.failure(CancellationError()))
        }
    }

    /// Runs `body` in one transaction within `deadline`; a failure of PostgreSQL becomes the hub's error.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await withDeadline { [self] in
                try await withConnection { connection in
                    try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
                }
            }
        } catch let error as HubError {
            throw error
        } catch let error as PostgresTransactionError {
            if let hub = error.closureError as? HubError { throw hub }
            throw Self.hubError(error.closureError ?? error.beginError ?? error.commitError ?? error)
        } catch {
            throw Self.hubError(error)
        }
    }

    /// Runs `body` on a connection of the pool. A connection on which PostgreSQL reported an
    /// error that may have come while preparing a statement is closed (the pool opens
    /// another): postgres-nio keeps a statement whose preparation failed failing on its
    /// connection for good (its state stays `.error`), so a lock waited on past the deadline
    /// while a statement was first prepared (a partition made, an administrator's lock)
    /// would otherwise fail every later batch that lands on that connection.
    func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await client.withConnection { connection in
            do {
                return try await body(connection)
            } catch {
                if Self.mayHaveSpoiledAStatement(error) {
                    logger.notice("a connection closed after PostgreSQL's error, lest a statement prepared on it stay failed",
                                  metadata: ["error": "\(Self.hubError(error).detail ?? "-")"])
                    try? await connection.close()
                }
                throw error
            }
        }
    }

    /// Whether PostgreSQL reported `error` (itself, or inside a transaction's failure) in a
    /// way that may have ended a statement's preparation: anything but bad data (class 22)
    /// and a broken constraint (class 23), which come only once a statement runs.
    static func mayHaveSpoiledAStatement(_ error: any Error) -> Bool {
        let transaction = error as? PostgresTransactionError
        let found = (transaction?.closureError ?? transaction?.beginError ?? transaction?.commitError ?? error) as? PSQLError
        guard let psql = found, psql.code == .server, let state = psql.serverInfo?[.sqlState] else { return false }
        return !(state.hasPrefix("22") || state.hasPrefix("23"))
    }

    /// A PostgreSQL failure as the hub reports it: unavailable for now (503, the totem
    /// retries: unreachable, restarting, a deadlock or a statement it cancelled) or a refused
    /// statement (500). PostgreSQL's words go to `detail`, for the log, never to the client.
    public static func hubError(_ error: any Error) -> HubError {
        if let hub = error as? HubError { return hub }
        if error is CancellationError {
            return HubError(.serviceUnavailable, .hubDatabaseUnavailable, "the request was cancelled (the hub is stopping)")
        }
        if let psql = error as? PSQLError {
            switch psql.code {
            case .server:
                let message = psql.serverInfo?[.message] ?? "server error"
                let state = psql.serverInfo?[.sqlState] ?? "?"
                let detail = "\(state) \(message)"
                // 57P01 admin shutdown, 57P02/57P03 crash or starting up, 57014 a statement cancelled
                // (statement_timeout), 53300 too many connections, 40P01 deadlock, 40001 serialization,
                // 55P03 a lock not available: each passes; the request is worth sending again.
                // 25006: a read-only transaction, on a member no longer the primary (a failover).
                if state.hasPrefix("57") || state.hasPrefix("40") || ["53300", "55P03", "25006"].contains(state) {
                    return HubError(.serviceUnavailable, .hubDatabaseUnavailable, "the hub's database is busy or restarting; try again",
                                    detail: detail)
                }
                return HubError(.internalServerError, .hubDatabaseError, "the hub's database refused a statement", detail: detail)
            default:
                return HubError(.serviceUnavailable, .hubDatabaseUnavailable, "the hub's database cannot be reached",
                                detail: String(reflecting: psql))
            }
        }
        return HubError(.serviceUnavailable, .hubDatabaseUnavailable, "the hub's database cannot be reached",
                        detail: String(String(reflecting: error).prefix(500)))
    }

    // MARK: Migrations

    /// Applies the migrations the database lacks, each in its own transaction; returns their names.
    public func migrate() async throws -> [String] {
        try await client.query("CREATE TABLE IF NOT EXISTS schema_migration (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())", logger: logger)
        var applied: [String] = []
        for migration in HubMigrations.all {
            let done = try await transaction { [logger] connection -> Bool in
                // One migrator at a time, whichever hub process runs it.
                try await connection.query("LOCK TABLE schema_migration IN EXCLUSIVE MODE", logger: logger)
                let applied = try await connection.all("SELECT 1 FROM schema_migration WHERE version = \(migration.version)",
                                                       as: Int.self, logger)
                if !applied.isEmpty { return true }
                // One statement at a time: the extended protocol takes no more.
                for statement in HubMigrations.statements(of: migration.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO schema_migration (version, name) VALUES (\(migration.version), \(migration.name))", logger: logger)
                return false
            }
            if !done { applied.append("\(migration.version): \(migration.name)") }
        }
        return applied
    }

    /// Refuses to serve a database whose schema is older than this hub.
    public func checkSchema() async throws {
        let latest = HubMigrations.all.last!.version
        var version = 0
        do {
            version = try await client.withConnection { [logger] connection in
                try await connection.all("SELECT coalesce(max(version), 0) FROM schema_migration", as: Int.self, logger).first ?? 0
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P01" {
            version = 0
        } catch {
            throw Self.hubError(error)
        }
        guard version >= latest else {
            throw HubError(.internalServerError, .migrationMissing, "the database is at schema \(version), this clup-hub needs \(latest)")
        }
    }

    // MARK: Partitions

    /// Creates the daily partitions of the tables partitioned by business day, for `days`
    /// (each `YYYY-MM-DD`, already checked). Idempotent; safe when another hub process
    /// creates the same partition at the same moment.
    func ensurePartitions(for days: Set<String>) async throws {
        let missing = partitioned.withLock { days.subtracting($0) }
        guard !missing.isEmpty else { return }
        try await withDeadline { [self] in try await createPartitions(for: missing) }
        partitioned.withLock { $0.formUnion(missing) }
    }

    /// Forgets that `day` has partitions (it was retired).
    func forgetPartitions(of day: String) {
        _ = partitioned.withLock { $0.remove(day) }
    }

    public var keptEventDays: Int {
        get { kept.withLock { $0 } }
        set { kept.withLock { $0 = newValue } }
    }

    private func createPartitions(for days: Set<String>) async throws {
        for day in days.sorted() {
            guard let next = CivilDay.next(day) else { continue }
            let suffix = day.replacingOccurrences(of: "-", with: "")
            for table in ["event", "ticket"] {
                let sql = "CREATE TABLE IF NOT EXISTS \(table)_\(suffix) PARTITION OF \(table) FOR VALUES FROM ('\(day)') TO ('\(next)')"
                do {
                    try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger)
                } catch let error as PSQLError where ["42P07", "23505"].contains(error.serverInfo?[.sqlState] ?? "") {
                    // Made by another process between IF NOT EXISTS and CREATE.
                } catch {
                    throw Self.hubError(error)
                }
            }
        }
    }
}

/// The first of several possible answers (the work's, the deadline's, a cancellation's)
/// resumes the waiting caller; the others are dropped.
final class FirstAnswer<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var early: Result<T, any Error>?
    private var given = false
    private var onGiven: (@Sendable () -> Void)?

    func wait(with continuation: CheckedContinuation<T, any Error>) {
        lock.lock()
        if let early {
            lock.unlock()
            continuation.resume(with: early)
            return
        }
        self.continuation = continuation
        lock.unlock()
    }

    /// Called once the answer is given (at once if it already was).
    func whenGiven(_ action: @escaping @Sendable () -> Void) {
        lock.lock()
        if given { lock.unlock(); action(); return }
        onGiven = action
        lock.unlock()
    }

    func give(_ result: Result<T, any Error>) {
        lock.lock()
        guard !given else { lock.unlock(); return }
        given = true
        let continuation = self.continuation, action = onGiven
        self.continuation = nil
        onGiven = nil
        if continuation == nil { early = result }
        lock.unlock()
        continuation?.resume(with: result)
        action?()
    }
}
