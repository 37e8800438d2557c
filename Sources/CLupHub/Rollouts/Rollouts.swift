import HTTPTypes
import CLupCore
import CLupProtocol
import Foundation
import Logging
import PostgresNIO

/// Rollouts of totem software, decided at the hub and carried out stage by stage.
///
/// A rollout names a version of the repository and its stages: first a few named canary
/// totems, then a share of each store's totems per stage (at least one of each store that
/// has any), then every totem. A totem taken in learns the version as its settings'
/// `targetVersion`, and its update helper installs it when the entrance is idle. A stage
/// moves on once every totem taken in so far runs the version, heard from lately, and has
/// stayed so for the rollout's healthy time. A totem that reports the version failed
/// (rolled back, or not installed) pauses the rollout for every totem: a paused rollout
/// targets nobody, so no other totem installs it, until an administrator resumes or aborts it.
///
/// The conductor (`advance`) runs every few seconds in each hub process; the live rollout's
/// row, locked first, makes them take turns. An upload reporting a failure pauses it too,
/// without waiting for the row (`pauseOnFailure`): the store's row is locked before it there,
/// so it only takes the rollout's row if no conductor holds it, and the conductor's next round
/// sees the failure otherwise.
public struct Rollouts: Sendable {
    let database: HubDatabase

    public init(database: HubDatabase) {
        self.database = database
    }

    /// A totem not heard from for longer does not count as healthy (as the fleet's SILENT).
    static let heardWithin: Double = Panel.silentAfter

    public struct Plan: Sendable, Equatable {
        public var version: String
        public var canaries: [String]
        /// The shares of each store's totems of the stages after the canaries, in %, rising.
        public var shares: [Int]
        public var healthySeconds: Double

        public init(version: String, canaries: [String], shares: [Int], healthySeconds: Double) {
            self.version = version
            self.canaries = canaries
            self.shares = shares
            self.healthySeconds = healthySeconds
        }
    }

    public enum State: String, Sendable {
        case running, paused, aborted, done
    }

    /// A rollout as the hub's administrators see it.
    public struct Status: Sendable, Equatable {
        public let id: Int64
        public let version: String
        public let state: State
        public let stage: Int
        public let shares: [Int]
        public let canaries: [String]
        public let healthySeconds: Double
        public let healthySince: Date?
        public let reason: String?
        /// Totems taken in so far, those of them running the version, and the fleet's totems.
        public let targeted: Int
        public let updated: Int
        public let totems: Int

        /// "canaries", "25 % of each store", "every totem".
        public var stageName: String {
            if stage == 0 { return "canaries (\(canaries.joined(separator: ", ")))" }
            if stage <= shares.count { return "\(shares[stage - 1]) % of each store's totems" }
            return "every totem"
        }

        public var summary: String {
            var line = "rollout \(id) of \(version): \(state.rawValue), stage \(stage) \(stageName); "
                + "\(updated) of \(targeted) taken in run it (\(totems) totems in the fleet)"
            if let healthySince, state == .running { line += "; healthy since \(healthySince.formatted(.iso8601))" }
            if let reason { line += "; \(reason)" }
            return line
        }
    }

    // MARK: Administrators' commands

    /// Starts a rollout of `plan`; `available` are the versions the repository holds.
    public func start(_ plan: Plan, available: [String], by actor: AuditActor, now: Date = Date()) async throws -> Status {
        guard ReleaseRepository.isVersion(plan.version) else {
            throw HubError.badRequest("\"\(plan.version.prefix(64))\" is not a Debian version")
        }
        guard available.contains(plan.version) else {
            throw HubError(.notFound, .releaseRefused, "the repository holds no clup-totem \(plan.version): clup-hub release add it first")
        }
        guard (1...20).contains(plan.canaries.count), Set(plan.canaries).count == plan.canaries.count else {
            throw HubError.badRequest("a rollout starts on 1 to 20 canary totems, each named once")
        }
        guard plan.shares.count <= 10, plan.shares.allSatisfy({ (1...99).contains($0) }), plan.shares == plan.shares.sorted(),
              Set(plan.shares).count == plan.shares.count
        else { throw HubError.badRequest("the stages' shares are 1 to 99 %, rising, at most 10 of them (every totem comes last)") }
        guard plan.healthySeconds.isFinite, (0...604_800).contains(plan.healthySeconds) else {
            throw HubError.badRequest("a stage stays healthy 0 to 7 days before the next")
        }
        let logger = database.logger
        let id = try await database.transaction { connection in
            let found = try await connection.all("""
                SELECT device_id FROM totem WHERE device_id = ANY(\(plan.canaries)) AND revoked_at IS NULL
                """, as: String.self, logger)
            if let missing = plan.canaries.first(where: { !found.contains($0) }) {
                throw HubError(.notFound, .unknownDevice, "no enrolled totem \(missing.prefix(64)) to be a canary")
            }
            if let live = try await connection.rows("""
                SELECT rollout_id, version FROM rollout WHERE state IN ('running', 'paused')
                """, as: (Int64, String).self, logger).first {
                throw HubError(.conflict, .badHubRequest, "rollout \(live.0) of \(live.1) is live: abort it first")
            }
            if let refusal = try await ReleaseManifests.refusal(of: plan.version, now: now, connection, logger) { throw refusal }
            let id: Int64
            do {
                guard let made = try await connection.all("""
                    INSERT INTO rollout (version, canaries, shares, healthy_seconds, state, stage_started_at, created_by)
                    VALUES (\(plan.version), \(plan.canaries), \(plan.shares), \(Int(plan.healthySeconds)), 'running', \(now), \(actor.who))
                    RETURNING rollout_id
                    """, as: Int64.self, logger).first
                else { throw HubError(.internalServerError, .hubInternalError, "the rollout was not made") }
                id = made
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                throw HubError(.conflict, .badHubRequest, "another rollout was started a moment ago")
            }
            try await connection.query("""
                INSERT INTO rollout_target (rollout_id, device_id, stage, added_at) SELECT \(id), unnest(\(plan.canaries)::text[]), 0, \(now)
                """, logger: logger)
            try await Audit.record(by: actor, store: nil, action: "rollout \(id) of \(plan.version) started",
                                   before: nil, after: Self.planText(plan), connection, logger)
            return id
        }
        try await tellStores(of: plan.canaries)
        guard let status = try await status(id: id) else { throw HubError(.internalServerError, .hubInternalError, "rollout \(id) vanished") }
        return status
    }

    /// Pauses the live rollout: no totem not yet updated installs it.
    public func pause(reason: String, by actor: AuditActor) async throws -> Status {
        try await change(from: [.running], to: .paused, reason: String(TypedText.escaped(reason).prefix(300)), by: actor)
    }

    /// Resumes a paused rollout: the stage it was at goes on, its health counted afresh.
    public func resume(by actor: AuditActor) async throws -> Status {
        try await change(from: [.paused], to: .running, reason: nil, by: actor)
    }

    /// Ends the live rollout: no totem is asked for its version any more.
    public func abort(by actor: AuditActor) async throws -> Status {
        try await change(from: [.running, .paused], to: .aborted, reason: "aborted by \(actor.who)", by: actor)
    }

    private func change(from: [State], to state: State, reason: String?, by actor: AuditActor, now: Date = Date()) async throws -> Status {
        let logger = database.logger
        let (id, devices) = try await database.transaction { connection in
            guard let (id, current) = try await connection.rows("""
                SELECT rollout_id, state FROM rollout WHERE state IN ('running', 'paused') FOR UPDATE
                """, as: (Int64, String).self, logger).first
            else { throw HubError(.notFound, .badHubRequest, "no rollout is live") }
            guard from.map(\.rawValue).contains(current) else {
                throw HubError(.conflict, .badHubRequest, "rollout \(id) is \(current)")
            }
            try await connection.query("""
                UPDATE rollout SET state = \(state.rawValue), reason = \(reason), healthy_since = NULL,
                    stage_started_at = CASE WHEN \(state.rawValue) = 'running' THEN \(now) ELSE stage_started_at END,
                    ended_at = CASE WHEN \(state.rawValue) = 'aborted' THEN \(now) END
                WHERE rollout_id = \(id)
                """, logger: logger)
            try await Audit.record(by: actor, store: nil, action: "rollout \(id) \(state.rawValue)", before: current,
                                   after: reason, connection, logger)
            return (id, try await connection.all("SELECT device_id FROM rollout_target WHERE rollout_id = \(id)", as: String.self, logger))
        }
        try await tellStores(of: devices)
        guard let status = try await status(id: id) else { throw HubError(.internalServerError, .hubInternalError, "rollout \(id) vanished") }
        return status
    }

    // MARK: What the hub says

    /// The live rollout, else the last one; nil if there never was one.
    public func status() async throws -> Status? {
        let id = try await database.transaction { [logger = database.logger] connection in
            try await connection.all("""
                SELECT rollout_id FROM rollout ORDER BY (state IN ('running', 'paused')) DESC, rollout_id DESC LIMIT 1
                """, as: Int64.self, logger).first
        }
        guard let id else { return nil }
        return try await status(id: id)
    }

    func status(id: Int64) async throws -> Status? {
        try await database.transaction { [logger = database.logger] connection in
            guard let row = try await connection.rows("""
                SELECT r.version, r.state, r.stage, r.shares::bigint[], r.canaries, r.healthy_seconds, r.healthy_since, r.reason,
                    (SELECT count(*) FROM rollout_target t WHERE t.rollout_id = r.rollout_id)::integer,
                    (SELECT count(*) FROM rollout_target t JOIN totem o ON o.device_id = t.device_id
                     WHERE t.rollout_id = r.rollout_id AND o.software_version = r.version)::integer,
                    (SELECT count(*) FROM totem WHERE revoked_at IS NULL)::integer
                FROM rollout r WHERE r.rollout_id = \(id)
                """, as: (String, String, Int, [Int], [String], Int, Date?, String?, Int, Int, Int).self, logger).first
            else { return nil }
            return Status(id: id, version: row.0, state: State(rawValue: row.1) ?? .aborted, stage: row.2, shares: row.3,
                          canaries: row.4, healthySeconds: Double(row.5), healthySince: row.6, reason: row.7, targeted: row.8,
                          updated: row.9, totems: row.10)
        }
    }

    /// The version `device` is to run now: the running rollout's, if it took the totem in.
    static func targetVersion(device: DeviceID, _ connection: PostgresConnection, _ logger: Logger) async throws -> String? {
        try await connection.all("""
            SELECT r.version FROM rollout r JOIN rollout_target t ON t.rollout_id = r.rollout_id
            WHERE r.state = 'running' AND t.device_id = \(device)
            """, as: String.self, logger).first
    }

    // MARK: The conductor

    /// One round: pauses the running rollout if a totem it took in reports its version
    /// failed; else notes whether the stage is healthy and, once it has been for the healthy
    /// time, takes in the next stage's totems (or, after every totem, ends it as done).
    /// Returns what it did, for the log.
    @discardableResult
    public func advance(now: Date = Date()) async throws -> String? {
        let logger = database.logger
        let (said, devices) = try await database.transaction { connection -> (String?, [String]) in
            guard let (id, version, stage, shares, healthySeconds, healthySince, started) = try await connection.rows("""
                SELECT rollout_id, version, stage, shares::bigint[], healthy_seconds, healthy_since, stage_started_at
                FROM rollout WHERE state = 'running' FOR UPDATE
                """, as: (Int64, String, Int, [Int], Int, Date?, Date).self, logger).first
            else { return (nil, []) }
            if let failure = try await Self.failure(of: id, version: version, since: started, connection, logger) {
                let reason = "paused: \(failure)"
                try await connection.query("""
                    UPDATE rollout SET state = 'paused', reason = \(reason), healthy_since = NULL WHERE rollout_id = \(id)
                    """, logger: logger)
                try await Audit.record(by: .hub, store: nil, action: "rollout \(id) paused", before: "running",
                                       after: reason, connection, logger)
                return ("rollout \(id) \(reason)", try await Self.targets(of: id, connection, logger))
            }
            let (targeted, healthy) = try await connection.rows("""
                SELECT count(*)::integer, count(*) FILTER (WHERE o.software_version = \(version)
                    AND o.last_contact > \(now.addingTimeInterval(-Self.heardWithin)))::integer
                FROM rollout_target t JOIN totem o ON o.device_id = t.device_id
                WHERE t.rollout_id = \(id) AND o.revoked_at IS NULL
                """, as: (Int, Int).self, logger).first ?? (0, 0)
            guard targeted > 0, healthy == targeted else {
                if healthySince != nil {
                    try await connection.query("UPDATE rollout SET healthy_since = NULL WHERE rollout_id = \(id)", logger: logger)
                }
                return (nil, [])
            }
            guard let since = healthySince else {
                try await connection.query("UPDATE rollout SET healthy_since = \(now) WHERE rollout_id = \(id)", logger: logger)
                return ("rollout \(id): stage \(stage) all \(targeted) on \(version)", [])
            }
            guard now.timeIntervalSince(since) >= Double(healthySeconds) else { return (nil, []) }
            let total = try await connection.all("SELECT count(*)::integer FROM totem WHERE revoked_at IS NULL", as: Int.self, logger)
                .first ?? 0
            if stage > shares.count || targeted >= total {
                try await connection.query("""
                    UPDATE rollout SET state = 'done', ended_at = \(now), reason = NULL WHERE rollout_id = \(id)
                    """, logger: logger)
                try await Audit.record(by: .hub, store: nil, action: "rollout \(id) done", before: "running",
                                       after: "\(targeted) totems on \(version)", connection, logger)
                return ("rollout \(id) of \(version) done: \(targeted) totems run it", try await Self.targets(of: id, connection, logger))
            }
            let next = stage + 1
            let added = try await Self.takeIn(rollout: id, stage: next, share: next <= shares.count ? shares[next - 1] : 100, now: now,
                                              connection, logger)
            try await connection.query("""
                UPDATE rollout SET stage = \(next), stage_started_at = \(now), healthy_since = NULL WHERE rollout_id = \(id)
                """, logger: logger)
            return ("rollout \(id) of \(version): stage \(next), \(added.count) more totems", added)
        }
        try await tellStores(of: devices)
        return said
    }

    /// A failure a totem taken in reported for `version` since `since`, in a line.
    static func failure(of rollout: Int64, version: String, since: Date, _ connection: PostgresConnection,
                        _ logger: Logger) async throws -> String? {
        try await connection.rows("""
            SELECT u.device_id, u.outcome, u.detail FROM totem_update u
            JOIN rollout_target t ON t.device_id = u.device_id AND t.rollout_id = \(rollout)
            WHERE u.version = \(version) AND u.outcome <> 'installed' AND u.at >= \(since) ORDER BY u.at LIMIT 1
            """, as: (String, String, String).self, logger).first.map { "\($0.0) \($0.1): \($0.2)" }
    }

    /// Takes in, for every store, its totems up to `share` % of them (rounded up: a store
    /// with any totem gives at least one), in an order fixed by the rollout (a hash of its
    /// number and the device), so that a stage's choice does not depend on when it is made.
    static func takeIn(rollout: Int64, stage: Int, share: Int, now: Date, _ connection: PostgresConnection,
                       _ logger: Logger) async throws -> [String] {
        try await connection.all("""
            WITH ranked AS (
                SELECT o.device_id, o.store_id,
                    row_number() OVER (PARTITION BY o.store_id
                        ORDER BY (t.device_id IS NULL), md5(\(String(rollout)) || o.device_id)) AS place,
                    count(*) OVER (PARTITION BY o.store_id) AS store_totems,
                    t.device_id IS NOT NULL AS taken
                FROM totem o LEFT JOIN rollout_target t ON t.rollout_id = \(rollout) AND t.device_id = o.device_id
                WHERE o.revoked_at IS NULL
            )
            INSERT INTO rollout_target (rollout_id, device_id, stage, added_at)
            SELECT \(rollout), device_id, \(stage), \(now) FROM ranked
            WHERE NOT taken AND place <= ceil(store_totems * \(share) / 100.0)
            RETURNING device_id
            """, as: String.self, logger)
    }

    static func targets(of rollout: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws -> [String] {
        try await connection.all("SELECT device_id FROM rollout_target WHERE rollout_id = \(rollout)", as: String.self, logger)
    }

    /// A totem's report of its last update, kept; a failure pauses the running rollout of
    /// that version at once if no conductor holds it (else the conductor's next round does).
    /// Returns the rollout it paused, if it did.
    static func record(_ report: UpdateReport, device: DeviceID, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int64? {
        guard ReleaseRepository.isVersion(report.version), report.at.isFinite, (0...Double(UInt32.max)).contains(report.at) else {
            return nil
        }
        let at = Date(timeIntervalSince1970: report.at)
        let detail = String(TypedText.escaped(report.detail).prefix(200))
        try await connection.query("""
            INSERT INTO totem_update (device_id, version, outcome, detail, at)
            VALUES (\(device), \(report.version), \(report.outcome.rawValue), \(detail), \(at))
            ON CONFLICT (device_id) DO UPDATE SET version = excluded.version, outcome = excluded.outcome,
                detail = excluded.detail, at = excluded.at
            WHERE totem_update.at <= excluded.at
            """, logger: logger)
        guard report.outcome != .installed,
              let (id, started) = try await connection.rows("""
                SELECT r.rollout_id, r.stage_started_at FROM rollout r JOIN rollout_target t ON t.rollout_id = r.rollout_id
                WHERE r.state = 'running' AND r.version = \(report.version) AND t.device_id = \(device)
                FOR UPDATE OF r SKIP LOCKED
                """, as: (Int64, Date).self, logger).first,
              at >= started
        else { return nil }
        let reason = report.isRefusal ? "paused: \(device) \(detail)" : "paused: \(device) \(report.outcome.rawValue): \(detail)"
        try await connection.query("""
            UPDATE rollout SET state = 'paused', reason = \(reason), healthy_since = NULL WHERE rollout_id = \(id)
            """, logger: logger)
        try await Audit.record(by: .totem(device), store: nil, action: "rollout \(id) paused", before: "running", after: reason,
                               connection, logger)
        return id
    }

    /// Tells the stores of every totem `rollout` took in.
    func tellStores(ofRollout rollout: Int64) async throws {
        let devices = try await database.transaction { [logger = database.logger] connection in
            try await Self.targets(of: rollout, connection, logger)
        }
        try await tellStores(of: devices)
    }

    /// Gives the stores of `devices` a new settings version, so that their long polls answer
    /// with the target each totem now has (one store at a time, each under its own lock).
    func tellStores(of devices: [String]) async throws {
        guard !devices.isEmpty else { return }
        let logger = database.logger
        let stores = try await database.transaction { connection in
            try await connection.all("SELECT DISTINCT store_id FROM totem WHERE device_id = ANY(\(devices))", as: StoreID.self, logger)
        }
        for store in stores {
            try await database.transaction { connection in
                guard let locked = try await StoreTransaction.lock(store, connection, logger) else { return }
                try await DoorShares.replan(locked, bump: .configuration)
            }
        }
    }

    static func planText(_ plan: Plan) -> String {
        "canaries \(plan.canaries.joined(separator: ", ")); stages \((plan.shares.map { "\($0) %" } + ["all"]).joined(separator: ", ")); "
            + "healthy \(Int(plan.healthySeconds)) s"
    }
}

extension Rollouts {
    /// The hub's round that moves the running rollout on (`advance`) every `interval`.
    static func round(_ database: HubDatabase, every interval: Duration = .seconds(5), logger: Logger) -> Round {
        let rollouts = Rollouts(database: database)
        return Round(name: "the rollout's round", interval: interval, database: database, logger: logger) {
            if let said = try await rollouts.advance() { logger.notice("\(said)") }
        }
    }
}
