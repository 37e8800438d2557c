import Foundation
import Metrics
import PostgresNIO
import Prometheus

/// The hub's figures for Prometheus, at `GET /metrics` with the `[hub] metrics_token` as a
/// bearer token (off without one): counters and timings kept as batches are stored
/// (swift-metrics, into a Prometheus registry), and the fleet and the stores read from the
/// database at each scrape.
public final class HubMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry

    /// Makes the registry the process's metrics backend: call once, before serving.
    public static func bootstrap() -> HubMetrics {
        let metrics = HubMetrics(registry: PrometheusCollectorRegistry())
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics.registry))
        return metrics
    }

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    // What the ingest path records (no-ops until `bootstrap`).
    static func batchStored(events: Int, deadLettered: Int, duration: Duration) {
        Counter(label: "clup_hub_batches_total", dimensions: [("result", "stored")]).increment()
        Counter(label: "clup_hub_events_received_total").increment(by: events)
        if deadLettered > 0 { Counter(label: "clup_hub_dead_letters_total").increment(by: deadLettered) }
        Metrics.Timer(label: "clup_hub_batch_duration_seconds").recordNanoseconds(
            duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    static func batchFailed() {
        Counter(label: "clup_hub_batches_total", dimensions: [("result", "failed")]).increment()
    }

    static func settingsVersionMade() {
        Counter(label: "clup_hub_settings_versions_total").increment()
    }

    /// The Prometheus text of everything, the fleet read now from `database`.
    func scrape(_ database: HubDatabase) async throws -> String {
        let totems = try await database.transaction { connection in
            try await connection.rows("""
                SELECT t.device_id, t.store_id, coalesce(extract(epoch FROM now() - t.last_contact)::float8, -1),
                       coalesce(t.last_outbox_depth, 0), coalesce(t.last_clock_skew, 0),
                       coalesce(g.issued_limit, 0), coalesce(g.held, 0), coalesce(g.waiting, 0)
                FROM totem t LEFT JOIN door_grant g ON g.device_id = t.device_id
                WHERE t.revoked_at IS NULL ORDER BY t.device_id
                """, as: (String, String, Double, Int64, Double, Int, Int, Int).self, database.logger)
        }
        let stores = try await database.transaction { connection in
            try await connection.rows("""
                SELECT o.store_id, sum(o.carried + o.entries - o.exits + o.corrections)::int8 FROM occupancy o
                WHERE o.business_day = (SELECT max(business_day) FROM occupancy l WHERE l.store_id = o.store_id)
                GROUP BY o.store_id ORDER BY o.store_id
                """, as: (String, Int64).self, database.logger)
        }
        var text = registry.emitToString()
        func family(_ name: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
            for sample in samples { text += "\(name){\(sample.labels)} \(sample.value)\n" }
        }
        let labels = totems.map { "device=\"\($0.0)\",store=\"\($0.1)\"" }
        family("clup_hub_totem_seconds_since_contact", "Seconds since the totem's last batch (-1: never).",
               zip(labels, totems).map { ($0, "\($1.2)") })
        family("clup_hub_totem_outbox_depth", "Events the totem still held after its last batch.", zip(labels, totems).map { ($0, "\($1.3)") })
        family("clup_hub_totem_clock_skew_seconds", "The totem's clock minus the hub's.", zip(labels, totems).map { ($0, "\($1.4)") })
        family("clup_hub_door_limit", "The places the hub granted the totem's door.", zip(labels, totems).map { ($0, "\($1.5)") })
        family("clup_hub_door_held", "The places the door last reported holding.", zip(labels, totems).map { ($0, "\($1.6)") })
        family("clup_hub_door_waiting", "Tickets waiting at the door, as last reported.", zip(labels, totems).map { ($0, "\($1.7)") })
        family("clup_hub_store_inside", "People inside each store on its current business day (the latest its doors opened), summed over its doors.",
               stores.map { ("store=\"\($0.0)\"", "\($0.1)") })
        return text
    }
}
