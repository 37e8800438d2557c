import Foundation
import Logging
import PostgresNIO

/// How long the hub keeps the totems' events, and their retirement.
///
/// The chain sets how many days of events it keeps (`chain_setting.event_days`,
/// `clup-hub retention set`). Older days are retired by the hub itself, with PostgreSQL's
/// own partition commands: each day of `event` is a partition the hub made when the day's
/// first batch came (`HubDatabase.ensurePartitions`), so retiring a day is detaching its
/// partition (CONCURRENTLY: ingest never waits on it) and dropping the table. What people
/// read stays: the statistics come from projections (`occupancy`, `occupancy_quarter`,
/// `ticket`), which are kept. Ingest accepts days within the window only, one day short
/// of it (`Ingest.acceptedDays`), so no batch writes into a day being retired, and an old
/// event sent again after its day was retired is a dead letter, never applied twice.
public struct Retention: Sendable {
    let database: HubDatabase

    public init(database: HubDatabase) {
        self.database = database
    }

    /// What a new chain keeps: as long as ingest accepts a totem's old events.
    public static let standardEventDays = 400
    /// What the chain may choose (`chain_setting`'s check says the same).
    public static let eventDaysRange = 30...3660

    /// Reads the chain's setting into this process (ingest's window); returns it.
    @discardableResult
    public func refresh() async throws -> Int {
        let days = try await database.transaction { [logger = database.logger] connection in
            try await connection.all("SELECT event_days FROM chain_setting", as: Int.self, logger).first
        } ?? Self.standardEventDays
        database.keptEventDays = days
        return days
    }

    /// Sets the days of events the chain keeps, audited; returns the days it kept before.
    public func setEventDays(_ days: Int, by actor: AuditActor) async throws -> Int {
        guard Self.eventDaysRange.contains(days) else {
            throw HubError.badRequest("the chain keeps between \(Self.eventDaysRange.lowerBound) and \(Self.eventDaysRange.upperBound) days of events, not \(days)")
        }
        let before = try await database.transaction { [logger = database.logger] connection in
            let before = try await connection.all("SELECT event_days FROM chain_setting FOR UPDATE", as: Int.self, logger).first
                ?? Self.standardEventDays
            try await connection.query("UPDATE chain_setting SET event_days = \(days)", logger: logger)
            try await Audit.record(by: actor, store: nil, action: "retention", before: "events kept \(before) days",
                                   after: "events kept \(days) days", connection, logger)
            return before
        }
        database.keptEventDays = days
        return before
    }

    /// The days whose events are kept now: `(first, partitions)`, the first day kept and how
    /// many daily partitions of `event` there are.
    public struct Window: Sendable {
        public let days: Int
        public let firstDay: String
        public let partitions: Int
        public let oldestPartition: String?
    }

    public func window(now: Date = Date()) async throws -> Window {
        let days = try await refresh()
        let partitions = try await eventPartitions().filter(\.attached).map(\.day).sorted()
        return Window(days: days, firstDay: Self.firstKeptDay(keeping: days, now: now), partitions: partitions.count,
                      oldestPartition: partitions.first)
    }

    /// The first day kept when keeping `days` days: older days are retired.
    static func firstKeptDay(keeping days: Int, now: Date) -> String {
        let today = Int((now.timeIntervalSince1970 / 86_400).rounded(.down))
        return CivilDay.text(today - days)
    }

    /// Retires the days of events older than the chain keeps; returns the days retired.
    /// Safe to run from several hub processes at once, and again after one was stopped half
    /// way (a partition left detaching is finished, a table left detached is dropped).
    public func retire(now: Date = Date()) async throws -> [String] {
        // The networks the website's places came from are kept for the limits of a day only,
        // and the app's idempotency keys as long as the app may send a request again.
        try await database.client.query("""
            UPDATE remote_ticket SET client_net = NULL WHERE client_net IS NOT NULL AND joined_at < \(now.addingTimeInterval(-86_400))
            """, logger: database.logger)
        try await database.client.query("""
            DELETE FROM app_request WHERE made_at < \(now.addingTimeInterval(-IdempotencyKey.keptSeconds))
            """, logger: database.logger)
        // A visitor's browser is told about the place of a day, not more.
        try await database.client.query("""
            DELETE FROM push_subscription WHERE made_at < \(now.addingTimeInterval(-86_400))
            """, logger: database.logger)
        let days = try await refresh()
        let first = Self.firstKeptDay(keeping: days, now: now)
        var retired: [String] = []
        // Oldest first: the days retired are returned in order.
        for partition in try await eventPartitions().sorted(by: { $0.day < $1.day }) where partition.day < first {
            let name = "event_\(partition.day.replacingOccurrences(of: "-", with: ""))"
            do {
                if partition.attached {
                    let how = partition.detaching ? "FINALIZE" : "CONCURRENTLY"
                    try await database.client.query(PostgresQuery(unsafeSQL: "ALTER TABLE event DETACH PARTITION \(name) \(how)"),
                                                    logger: database.logger)
                }
                try await database.client.query(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(name)"), logger: database.logger)
                database.forgetPartitions(of: partition.day)
                retired.append(partition.day)
            } catch let error as PSQLError where ["42P01", "42704", "55000"].contains(error.serverInfo?[.sqlState] ?? "") {
                // Another hub process retired it (or is retiring it) at the same moment.
                continue
            } catch {
                throw HubDatabase.hubError(error)
            }
        }
        return retired
    }

    struct Partition {
        let day: String
        let attached: Bool
        let detaching: Bool
    }

    /// The daily tables of `event`: attached partitions, and tables a stopped retirement
    /// left detached. Only names the hub makes (`event_YYYYMMDD`) are taken.
    func eventPartitions() async throws -> [Partition] {
        let rows = try await database.transaction { [logger = database.logger] connection in
            try await connection.rows("""
                SELECT c.relname::text, i.inhrelid IS NOT NULL, coalesce(i.inhdetachpending, false)
                FROM pg_class c
                JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
                LEFT JOIN pg_inherits i ON i.inhrelid = c.oid AND i.inhparent = 'event'::regclass
                WHERE c.relkind = 'r' AND c.relname ~ '^event_[0-9]{8}$'
                """, as: (String, Bool, Bool).self, logger)
        }
        return rows.compactMap { name, attached, detaching in
            let digits = Array(name.dropFirst("event_".count))
            let day = "\(String(digits[0..<4]))-\(String(digits[4..<6]))-\(String(digits[6..<8]))"
            guard CivilDay.number(day) != nil else { return nil }
            return Partition(day: day, attached: attached, detaching: detaching)
        }
    }
}

extension Retention {
    /// The hub's round that reads how long the chain keeps events and retires the days older
    /// than that (`retire`) every `interval`.
    static func round(_ database: HubDatabase, every interval: Duration = .seconds(600), logger: Logger) -> Round {
        let retention = Retention(database: database)
        return Round(name: "retiring old days", interval: interval, database: database, logger: logger) {
            let retired = try await retention.retire()
            if let first = retired.first, let last = retired.last {
                logger.notice("retired the events of \(retired.count) days older than the chain keeps",
                              metadata: ["first": "\(first)", "last": "\(last)"])
            }
        }
    }
}
