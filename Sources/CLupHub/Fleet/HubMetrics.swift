import CLupProtocol
import Foundation
import PostgresNIO
import Prometheus

/// The hub's figures for Prometheus, at `GET /metrics` with the `[hub] metrics_token` as a
/// bearer token (off without one): counters and timings kept as batches are stored, and
/// the fleet and the stores read from the database at each scrape.
///
/// Every family is made here with its HELP text, straight in the registry: swift-metrics
/// gives its backend no help text, and `promtool check metrics` refuses a family without.
public final class HubMetrics: Sendable {
    /// Where the ingest path counts: one registry for the process, whichever server scrapes it.
    static let registry = PrometheusCollectorRegistry()

    /// A server's `/metrics`: the process's counters and the fleet read at each scrape.
    public init() {}

    // What the ingest path records.
    static func batchStored(events: Int, deadLettered: Int, duration: Duration, from device: AuthenticatedDevice) {
        batches(result: "stored").increment()
        registry.makeCounter(name: "clup_hub_events_received_total",
                             help: "Events received in batches the hub stored, dead letters included.").increment(by: Int64(events))
        // Made at a totem's first dead letter, not before: the rule that alerts on a counter
        // new to Prometheus would otherwise take every totem's first batch for one.
        if deadLettered > 0 {
            registry.makeCounter(name: "clup_hub_dead_letters_total",
                                 labels: [("device", labelValue(device.deviceID.rawValue)), ("store", labelValue(device.storeID.rawValue))],
                                 help: "Events the hub kept as dead letters rather than applying them, by the totem that sent them.")
                .increment(by: Int64(deadLettered))
        }
        registry.makeDurationHistogram(name: "clup_hub_batch_duration_seconds", buckets: batchBuckets,
                                       help: "How long storing a batch took, for the batches stored.").record(duration)
    }

    static func batchFailed() {
        batches(result: "failed").increment()
    }

    /// A step after a stored batch (`BatchSteps`), and whether it failed.
    static func batchStep(_ step: String, failed: Bool) {
        registry.makeCounter(name: "clup_hub_batch_steps_total", labels: [("step", step), ("result", failed ? "failed" : "done")],
                             help: "Steps after a stored batch (health, rollout, door shares, notice rules), done or failed.").increment()
    }

    static func settingsVersionMade() {
        registry.makeCounter(name: "clup_hub_settings_versions_total",
                             help: "Versions of store settings the hub made (a change at the hub, a replan of the doors).").increment()
    }

    static func remoteJoined() {
        registry.makeCounter(name: "clup_hub_remote_places_total", help: "Places in stores' lines taken from phones.").increment()
    }

    /// A notice's attempt: sent, failed (to be tried again), dead, or dropped (no longer helps).
    static func notice(kind: String, channel: String, outcome: String) {
        registry.makeCounter(name: "clup_hub_notices_total", labels: [("kind", kind), ("channel", channel), ("outcome", outcome)],
                             help: "Notices to customers by kind, channel (gateway, push) and what came of an attempt (sent, failed, dead, dropped).")
            .increment()
    }

    private static func batches(result: String) -> Counter {
        registry.makeCounter(name: "clup_hub_batches_total", labels: [("result", result)],
                             help: "Batches of events from totems, by whether they were stored or failed.")
    }

    /// From 5 ms to 10 s (swift-prometheus' default for timers).
    private static let batchBuckets: [Duration] = [.milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
                                                   .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
                                                   .milliseconds(2500), .seconds(5), .seconds(10)]

    /// A label's value as the exposition format writes it: `\`, `"` and line ends escaped.
    /// Unicode scalars, not `Character`s: "\r\n" is one Character, and a control character
    /// inside one would pass a Character-wise replacement. Other control characters go.
    static func labelValue(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(64) {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case _ where scalar.properties.generalCategory == .control: continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The Prometheus text of everything: the process's counters, the hub's own disk, and
    /// the fleet and the stores read now from `database`. A database that does not answer
    /// leaves the rest and says so (`clup_hub_database_up 0`), for the alert to fire.
    func scrape(_ database: HubDatabase, stateDirectory: String) async -> String {
        var text = Self.registry.emitToString()
        if let disk = DiskFill.of(stateDirectory) {
            text += Self.family("clup_hub_disk_used_ratio", "The share used of the filesystem holding the hub's state directory.",
                                [("path=\"\(Self.labelValue(stateDirectory))\"", "\(disk.usedShare)")])
        }
        // Whether the database answers, asked alone: a figure the hub could not read below
        // is not the database down.
        let up: Bool
        do {
            _ = try await database.withDeadline { try await database.client.query("SELECT 1", logger: database.logger) }
            up = true
        } catch {
            database.logger.warning("the metrics could not reach the database", metadata: ["error": "\(error)"])
            up = false
        }
        text += Self.family("clup_hub_database_up", "Whether the hub reached its database at this scrape (1) or not (0).", [("", up ? "1" : "0")])
        guard up else { return text }
        do {
            text += try await database.withDeadline { [self] in try await fleet(database) }
        } catch {
            database.logger.warning("the metrics could not read the fleet", metadata: ["error": "\(error)"])
            text += Self.family("clup_hub_metrics_fleet_read", "Whether the fleet's and the stores' figures were read at this scrape (1) or not (0).",
                                [("", "0")])
        }
        return text
    }

    /// One gauge family in the exposition format.
    static func family(_ name: String, _ help: String, _ samples: [(labels: String, value: String)]) -> String {
        var text = "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
        for sample in samples { text += sample.labels.isEmpty ? "\(name) \(sample.value)\n" : "\(name){\(sample.labels)} \(sample.value)\n" }
        return text
    }

    /// What the database says of the fleet and the stores.
    private func fleet(_ database: HubDatabase, now: Date = Date()) async throws -> String {
        let totems = try await database.transaction { connection in
            try await connection.rows("""
                SELECT t.device_id, t.store_id, coalesce(extract(epoch FROM t.last_contact)::float8, 0),
                       coalesce(t.last_outbox_depth, 0), coalesce(t.last_clock_skew, 0),
                       coalesce(g.issued_limit, 0), coalesce(g.held, 0), coalesce(g.waiting, 0), t.software_version,
                       u.version, u.outcome, coalesce(extract(epoch FROM u.at)::float8, 0), t.last_health
                FROM totem t LEFT JOIN door_grant g ON g.device_id = t.device_id LEFT JOIN totem_update u ON u.device_id = t.device_id
                WHERE t.revoked_at IS NULL ORDER BY t.device_id
                """, as: (String, String, Double, Int64, Double, Int, Int, Int, String, String?, String?, Double, String?).self, database.logger)
        }
        let health = totems.map { totem in totem.12.flatMap { try? JSONDecoder().decode(TotemHealth.self, from: Data($0.utf8)) } }
        let stores = try await database.transaction { connection in
            try await connection.rows("""
                SELECT o.store_id, sum(o.carried + o.entries - o.exits + o.corrections)::int8 FROM occupancy o
                WHERE o.business_day = (SELECT max(business_day) FROM occupancy l WHERE l.store_id = o.store_id)
                GROUP BY o.store_id ORDER BY o.store_id
                """, as: (String, Int64).self, database.logger)
        }
        // Each store as the website shows it (open, waiting, the wait for a new place), and
        // when its manager wants its staff alerted.
        // Each door's counting figures of its store's current day, and each store's people
        // left inside at the end of its last closed day as counted (either way).
        let (counting, closed, tolerance) = try await database.transaction { connection in
            let counting = try await connection.rows("""
                SELECT c.store_id, c.door, sum(c.without_release)::int8, sum(c.releases_unused)::int8, sum(c.wrong_way)::int8
                FROM door_counting c
                WHERE c.business_day = (SELECT max(business_day) FROM occupancy o WHERE o.store_id = c.store_id)
                GROUP BY c.store_id, c.door ORDER BY 1, 2
                """, as: (String, String, Int64, Int64, Int64).self, database.logger)
            let closed = try await connection.rows("""
                SELECT o.store_id, sum(o.carried + o.entries - o.exits + o.corrections)::int8 FROM occupancy o
                WHERE o.business_day = (SELECT max(business_day) FROM occupancy l WHERE l.store_id = o.store_id
                                        AND l.business_day < (SELECT max(business_day) FROM occupancy m WHERE m.store_id = o.store_id))
                GROUP BY o.store_id ORDER BY 1
                """, as: (String, Int64).self, database.logger)
            let tolerance = try await connection.all("SELECT counting_tolerance FROM chain_setting", as: Int.self, database.logger).first ?? 2
            return (counting, closed, tolerance)
        }
        // A store whose view cannot be read is left out and counted, not the whole scrape.
        let (views, unread) = try await database.transaction { connection in
            var views: [(RemoteLine.StoreView, HubAdmin.StaffAlerts)] = []
            var unread = 0
            for (store, wait, waiting) in try await connection.rows("""
                SELECT store_id, alert_wait_minutes, alert_waiting FROM store ORDER BY store_id
                """, as: (StoreID, Int, Int).self, database.logger) {
                do {
                    views.append((try await RemoteLine.view(store: store, now: now, connection, database.logger),
                                  HubAdmin.StaffAlerts(waitMinutes: wait, waiting: waiting)))
                } catch let error as HubError {
                    database.logger.warning("the metrics could not read a store", metadata: ["store": "\(store)", "error": "\(error)"])
                    unread += 1
                }
            }
            return (views, unread)
        }
        // The streaming replicas as the primary sees them, by name, address and pid (two
        // replicas may share a name). Their lag needs pg_monitor: where it is hidden (state
        // NULL too) there is no figure, rather than a lag of 0; an idle replica caught up
        // has a NULL lag and a state, and lags by 0.
        let replicas = try await database.transaction { connection in
            try await connection.rows("""
                SELECT coalesce(application_name, '') || ' ' || coalesce(host(client_addr), 'local') || ' pid ' || pid,
                       extract(epoch FROM coalesce(replay_lag, interval '0'))::float8, state IS NOT NULL
                FROM pg_stat_replication ORDER BY 1
                """, as: (String, Double, Bool).self, database.logger)
        }
        var text = ""
        func family(_ name: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            text += Self.family(name, help, samples)
        }
        let labels = totems.map { "device=\"\($0.0)\",store=\"\($0.1)\"" }
        // A timestamp, not an age (`time() - …` in the query), 0 for never: see the totem's.
        family("clup_hub_totem_last_contact_timestamp_seconds", "When the totem's last batch came, in Unix seconds (0: never).",
               zip(labels, totems).map { ($0, "\($1.2)") })
        family("clup_hub_totem_outbox_depth", "Events the totem still held after its last batch.", zip(labels, totems).map { ($0, "\($1.3)") })
        family("clup_hub_totem_clock_skew_seconds", "The totem's clock minus the hub's.", zip(labels, totems).map { ($0, "\($1.4)") })
        family("clup_hub_door_limit", "The places the hub granted the totem's door.", zip(labels, totems).map { ($0, "\($1.5)") })
        family("clup_hub_door_held", "The places the door last reported holding.", zip(labels, totems).map { ($0, "\($1.6)") })
        family("clup_hub_door_waiting", "Tickets waiting at the door, as last reported.", zip(labels, totems).map { ($0, "\($1.7)") })
        family("clup_hub_store_inside", "People inside each store on its current business day (the latest its doors opened), summed over its doors.",
               stores.map { ("store=\"\($0.0)\"", "\($0.1)") })
        family("clup_hub_totem_software_info", "The clup-totem version the totem last reported running (always 1).",
               zip(labels, totems).map { ("\($0),version=\"\(Self.labelValue($1.8))\"", "1") })
        family("clup_hub_totem_last_update_timestamp_seconds", "When the totem's last software update ended, by version and outcome.",
               zip(labels, totems).compactMap { labels, totem in
                   guard let version = totem.9, let outcome = totem.10 else { return nil }
                   return ("\(labels),version=\"\(Self.labelValue(version))\",outcome=\"\(Self.labelValue(outcome))\"", "\(totem.11)")
               })
        let checked = zip(labels, health).compactMap { labels, health in health?.integrity.map { (labels, $0) } }
        family("clup_hub_totem_files_changed",
               "Files of clup-totem the totem's last daily check found changed or missing outside an update (-1: the check could not run).",
               checked.map { ($0, $1.problem == nil ? "\($1.changedCount)" : "-1") })
        family("clup_hub_totem_integrity_check_timestamp_seconds", "When the totem last checked its installed files, in Unix seconds.",
               checked.map { ($0, "\($1.at)") })
        family("clup_hub_totem_audit_trail_fill_ratio", "The share of its bound the totem's audit trail holds (it warns from 0.8).",
               zip(labels, health).compactMap { labels, health in health?.auditTrail.map { (labels, "\($0.share)") } })
        family("clup_hub_totem_printer_ready", "Whether the totem's print queue takes and prints jobs (1) or not (0), as last reported.",
               zip(labels, health).compactMap { labels, health in health?.printerReady.map { (labels, $0 ? "1" : "0") } })
        family("clup_hub_totem_printer_paper_out", "Whether the totem's printer said it has no paper (1) or not (0), as last reported.",
               zip(labels, health).compactMap { labels, health in
                   guard let health, health.printerReasons != nil else { return nil }
                   return (labels, health.paperOut ? "1" : "0")
               })
        family("clup_hub_totem_device_ok", "Whether each device of the totem works (1) or is missing or faulty (0), as last reported.",
               zip(labels, health).flatMap { labels, health in
                   (health?.devices ?? []).map { ("\(labels),role=\"\(Self.labelValue($0.role))\"", $0.state == "ok" ? "1" : "0") }
               })
        family("clup_hub_totem_paper_low", "Whether the totem said the paper on its roll is low (1) or not (0), as last reported.",
               zip(labels, health).compactMap { labels, health in health?.paper.map { (labels, $0.low ? "1" : "0") } })
        family("clup_hub_totem_paper_tickets_left", "About how many tickets the totem's roll has left, as it last counted.",
               zip(labels, health).compactMap { labels, health in health?.paper?.ticketsLeft.map { (labels, "\($0)") } })
        family("clup_hub_totem_not_recording", "Whether the totem said its disk is too full to record anything (1) or not (0), as last reported.",
               zip(labels, health).compactMap { labels, health in health.map { (labels, $0.notRecording == nil ? "0" : "1") } })
        family("clup_hub_totem_disk_used_ratio", "The share used of the filesystem holding the totem's state, as last reported.",
               zip(labels, health).compactMap { labels, health in health?.disk.map { (labels, "\($0.usedShare)") } })
        let storeLabels = views.map { "store=\"\(Self.labelValue($0.0.store.rawValue))\"" }
        family("clup_hub_store_open", "Whether the store is within its opening hours on its own clock (1) or not (0).",
               zip(storeLabels, views).map { ($0, $1.0.isOpen ? "1" : "0") })
        family("clup_hub_store_waiting", "Tickets waiting in the store's line, at every door and from phones.",
               zip(storeLabels, views).map { ($0, "\($1.0.waiting)") })
        family("clup_hub_store_estimated_wait_seconds", "The estimated wait for a new place in the store's line, as the website shows it (whole minutes).",
               zip(storeLabels, views).map { ($0, "\($1.0.estimatedWaitMinutes * 60)") })
        family("clup_hub_store_alert_wait_seconds", "The wait past which the store's manager wants its staff alerted (whole minutes; 0: none set).",
               zip(storeLabels, views).map { ($0, "\($1.1.waitMinutes * 60)") })
        family("clup_hub_store_alert_waiting", "The line's length past which the store's manager wants its staff alerted (0: none set).",
               zip(storeLabels, views).map { ($0, "\($1.1.waiting)") })
        let doors = counting.map { "store=\"\(Self.labelValue($0.0))\",door=\"\(Self.labelValue($0.1))\"" }
        family("clup_hub_door_entries_without_release", "Entries through the door's turnstile with no release for them (tailgating), its store's current day.",
               zip(doors, counting).map { ($0, "\($1.2)") })
        family("clup_hub_door_releases_unused", "Releases of the door's turnstile nobody passed (the admission lapsed), its store's current day.",
               zip(doors, counting).map { ($0, "\($1.3)") })
        family("clup_hub_door_exits_while_released", "Exits through the door's turnstile while it was released for an entry, its store's current day.",
               zip(doors, counting).map { ($0, "\($1.4)") })
        family("clup_hub_store_left_inside_at_close", "People inside at the end of the store's last closed day as counted (in - out +- corrections, either way).",
               closed.map { ("store=\"\(Self.labelValue($0.0))\"", "\($0.1)") })
        family("clup_hub_counting_tolerance", "People left inside at closing, either way, past which the panel flags a store-day.",
               [("", "\(tolerance)")])
        family("clup_hub_database_replicas", "Streaming replicas connected to the hub's primary, as it sees them.",
               [("", "\(replicas.count)")])
        family("clup_hub_database_replica_lag_seconds", "How far each streaming replica's replay is behind the primary (needs pg_monitor).",
               replicas.filter(\.2).map { ("replica=\"\(Self.labelValue($0.0))\"", "\($0.1)") })
        family("clup_hub_metrics_stores_unread", "Stores whose figures the hub could not read at this scrape (see its log).", [("", "\(unread)")])
        family("clup_hub_metrics_fleet_read", "Whether the fleet's and the stores' figures were read at this scrape (1) or not (0).", [("", "1")])
        if let rollout = try await Rollouts(database: database).status() {
            let labels = "version=\"\(Self.labelValue(rollout.version))\",state=\"\(rollout.state.rawValue)\""
            family("clup_hub_rollout_stage", "The stage of the live (or last) rollout: 0 the canaries, then each share, then every totem.",
                   [(labels, "\(rollout.stage)")])
            family("clup_hub_rollout_totems", "Totems the live (or last) rollout has taken in, and of them those running its version.",
                   [("\(labels),of=\"targeted\"", "\(rollout.targeted)"), ("\(labels),of=\"updated\"", "\(rollout.updated)")])
        }
        return text
    }
}
