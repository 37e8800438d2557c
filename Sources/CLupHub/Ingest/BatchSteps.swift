import CLupCore
import CLupProtocol
import Foundation
import Logging
import PostgresNIO

/// What a totem's batch sets going once its events are committed (`Ingest.apply`): named
/// steps, each in a transaction of its own, in this order, before the batch is answered.
///
/// A step that fails is logged and counted (`clup_hub_batch_steps_total{step,result}`), and
/// the batch's answer stands: its events are held, and nothing would come of the totem
/// sending them again. Each step works from what the database holds, not from the events, so
/// the door's next batch (or its next report) does what a failed one left undone.
struct BatchSteps: Sendable {
    let database: HubDatabase

    /// Every step, after a batch of `device` that held `fresh` events new to the hub. (A
    /// ticket called or used was told to the other doors in the batch's own transaction.)
    func run(after batch: EventBatch, from device: AuthenticatedDevice, fresh: Bool, now: Date) async {
        if let health = batch.health {
            let paused = await step("health") { try await recordHealth(health, device: device.deviceID) } ?? nil
            // A rollout this report paused: its totems are told at once (each store under its own lock).
            if let paused {
                await step("rollout") { try await Rollouts(database: database).tellStores(ofRollout: paused) }
            }
        }
        await step("door shares") { try await planDoorShares(batch.door, store: device.storeID, device: device.deviceID) }
        if fresh { await step("notice rules") { try await applyNoticeRules(store: device.storeID, now: now) } }
    }

    /// The totem's last health, the version it runs (for the fleet and the rollouts) and how
    /// its last update went; returns the rollout that report paused, if it did. A new
    /// integrity check that found files changed outside an update raises the alert: an
    /// audit record of the totem's store, an error in the hub's log (and the fleet page and
    /// `clup_hub_totem_files_changed` show it for as long as it is the last check).
    func recordHealth(_ health: TotemHealth, device: DeviceID) async throws -> Int64? {
        let health = health.bounded()
        let text = String(decoding: try JSONEncoder().encode(health), as: UTF8.self)
        return try await database.transaction { [logger = database.logger] connection in
            // The store's row first, as every transaction that touches a store takes it
            // (`StoreTransaction`); a totem's store never changes, so it is read unlocked.
            // Holding the totem's row first deadlocked with `Enrolment.replace`, which holds
            // the store's and waits for the totem's.
            guard let store = try await connection.all("SELECT store_id FROM totem WHERE device_id = \(device)", as: StoreID.self,
                                                       logger).first,
                  try await StoreTransaction.lock(store, connection, logger) != nil
            else { return nil }
            let row = try await connection.rows("""
                SELECT store_id, last_health, door FROM totem WHERE device_id = \(device) FOR NO KEY UPDATE
                """, as: (String, String?, String).self, logger).first
            let before = row.map { ($0.0, $0.1) }
            try await connection.query("UPDATE totem SET last_health = \(text) WHERE device_id = \(device)", logger: logger)
            // Its door's counting figures: its own door only, of days about now.
            if let (store, _, door) = row {
                for figures in health.counting ?? [] where figures.door == door {
                    try await connection.query("""
                        INSERT INTO door_counting (store_id, business_day, door, device_id, without_release, releases_unused, wrong_way)
                        SELECT \(store), \(figures.day)::date, \(door), \(device), \(figures.withoutRelease), \(figures.releasesUnused),
                               \(figures.wrongWay)
                        WHERE \(figures.day)::date BETWEEN current_date - 2 AND current_date + 1
                        ON CONFLICT (store_id, business_day, door, device_id) DO UPDATE SET
                            without_release = excluded.without_release, releases_unused = excluded.releases_unused,
                            wrong_way = excluded.wrong_way, reported_at = now()
                        """, logger: logger)
                }
            }
            // Once per report, and once in 12 hours at most: a totem cannot fill the audit by
            // sending a new check's time with every batch.
            if let integrity = health.integrity, !integrity.isClean, let (store, last) = before,
               last.flatMap({ try? JSONDecoder().decode(TotemHealth.self, from: Data($0.utf8)) })?.integrity?.at != integrity.at,
               try await connection.all("""
                   SELECT count(*)::integer FROM audit WHERE action = 'integrity check' AND source = \(AuditActor.totem(device).source)
                       AND at > now() - interval '12 hours'
                   """, as: Int.self, logger).first == 0 {
                try await Audit.record(by: .totem(device), store: StoreID(store), action: "integrity check", result: integrity.summary,
                                       before: nil, after: nil, connection, logger)
                logger.error(integrity.problem == nil ? "a totem's integrity check found its files changed outside an update"
                                                      : "a totem's integrity check could not run",
                             metadata: ["device": "\(device)", "check": "\(integrity.summary)"])
            }
            if let version = health.softwareVersion, ReleaseRepository.isVersion(version) {
                try await connection.query("UPDATE totem SET software_version = \(version) WHERE device_id = \(device)", logger: logger)
            }
            guard let update = health.update else { return nil }
            return try await Rollouts.record(update, device: device, connection, logger)
        }
    }

    /// The door's figures, if it sent them, and the doors' shares of the capacity planned again.
    func planDoorShares(_ report: DoorReport?, store: StoreID, device: DeviceID) async throws {
        try await database.transaction { [logger = database.logger] connection in
            // The store's row first, as every transaction that touches a store takes it.
            guard let locked = try await StoreTransaction.lock(store, connection, logger) else { return }
            if let report { try await DoorShares.report(report, device: device, locked) }
            try await DoorShares.replan(locked, bump: .no)
        }
    }

    /// The store's notice rules (the app's bookings told of delays, cancelled after a major one).
    func applyNoticeRules(store: StoreID, now: Date) async throws {
        try await database.transaction { [logger = database.logger] connection in
            guard let locked = try await StoreTransaction.lock(store, connection, logger) else { return }
            try await Bookings.applyNoticeRules(now: now, locked)
        }
    }

    /// Runs one step; a failure is logged and counted, and nil.
    private func step<T: Sendable>(_ name: String, _ body: () async throws -> T) async -> T? {
        do {
            let value = try await body()
            HubMetrics.batchStep(name, failed: false)
            return value
        } catch {
            HubMetrics.batchStep(name, failed: true)
            database.logger.warning("a batch's step failed; the door's next batch does it again",
                                    metadata: ["step": "\(name)", "error": "\(HubDatabase.hubError(error).coded.message)"])
            return nil
        }
    }
}
