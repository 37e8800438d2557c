import CLupCore
import CLupProtocol
import Foundation
import Metrics
import Prometheus

/// clupd's figures for Prometheus, printed by `clupctl metrics` (the totem opens no port:
/// a node_exporter textfile collector, or whatever scrapes the fleet, runs the command).
/// Counters are kept by swift-metrics as things happen (every event recorded, by type;
/// sync batches); the state (queue, occupancy, this door's places, sync, printer, devices)
/// is read when asked.
public enum KioskMetrics {
    /// Where swift-metrics writes once `bootstrap` ran, and the scrape-time gauges always.
    public static let registry = PrometheusCollectorRegistry()

    /// Makes the registry the process's metrics backend: clupd's main calls it once.
    public static func bootstrap() {
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    }

    static func recorded(_ events: [DomainEvent]) {
        for event in events { Counter(label: "clup_totem_events_total", dimensions: [("type", event.type)]).increment() }
    }

    static func batchSent(ok: Bool) {
        Counter(label: "clup_totem_sync_batches_total", dimensions: [("result", ok ? "ok" : "failed")]).increment()
    }
}

extension Daemon {
    /// The Prometheus text of clupd now.
    func metricsText() -> String {
        let registry = KioskMetrics.registry
        func gauge(_ name: String, _ value: Double, _ labels: [(String, String)] = []) {
            registry.makeGauge(name: name, labels: labels).set(value)
        }
        let day = kiosk.desk.day
        let policy = config.queue
        gauge("clup_totem_inside", Double(day.inside))
        gauge("clup_totem_capacity", Double(policy.capacity))
        gauge("clup_totem_waiting", Double(day.queueLength))
        gauge("clup_totem_called_or_at_the_door", Double(day.promised))
        gauge("clup_totem_door_places", Double(policy.placesHere))
        gauge("clup_totem_door_held", Double(day.placesTaken(policy)))
        gauge("clup_totem_hub_settings_version", Double(hubSettings?.version ?? 0))
        let sync = syncReport()
        for state in ["off", "online", "offline", "stuck", "refused"] {
            gauge("clup_totem_sync_state", sync.state.rawValue == state ? 1 : 0, [("state", state)])
        }
        gauge("clup_totem_outbox_depth", Double(sync.outboxDepth ?? sync.lastSeq))
        gauge("clup_totem_sync_seconds_since_success", sync.lastSuccess.map { Date().timeIntervalSince($0) } ?? -1)
        gauge("clup_totem_clock_skew_seconds", sync.clockSkew ?? 0)
        gauge("clup_totem_dead_letters", Double(sync.deadLettered))
        gauge("clup_totem_printer_ready", printerStatus?.status?.isReady == true && printerStatus?.error == nil ? 1 : 0)
        for device in (kiosk.deviceHealth + [usb.health]).map(DeviceStatus.init) {
            gauge("clup_totem_device_ok", device.state == .ok ? 1 : 0, [("role", device.role), ("backend", device.backend)])
        }
        return registry.emitToString()
    }
}
