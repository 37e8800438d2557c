import CLupCore
import CLupProtocol
import Foundation
import Prometheus

/// clupd's figures for Prometheus, printed by `clupctl metrics` (the totem opens no port:
/// a node_exporter textfile collector, or whatever scrapes the fleet, runs the command).
/// Counters are kept as things happen (every event recorded, by type, audit lines
/// included; sync batches); the state (queue, occupancy, this door's places, sync, printer,
/// devices) is read when asked.
///
/// Every family is made here with its HELP text, straight in the registry: swift-metrics
/// gives its backend no help text, and `promtool check metrics` refuses a family without.
public enum KioskMetrics {
    /// Where the counters are kept, and the gauges set at each `metricsText()`.
    public static let registry = PrometheusCollectorRegistry()

    static func recorded(_ events: [DomainEvent]) {
        for event in events {
            registry.makeCounter(name: "clup_totem_events_total", labels: [("type", event.type)],
                                 help: "Events recorded in the totem's event log since clupd started, by type.").increment()
        }
    }

    static func batchSent(ok: Bool) {
        registry.makeCounter(name: "clup_totem_sync_batches_total", labels: [("result", ok ? "ok" : "failed")],
                             help: "Batches of events sent to the hub since clupd started, by whether the hub took them.").increment()
    }
}

extension Daemon {
    /// The Prometheus text of clupd now.
    func metricsText() -> String {
        let registry = KioskMetrics.registry
        func gauge(_ name: String, _ help: String, _ value: Double, _ labels: [(String, String)] = []) {
            registry.makeGauge(name: name, labels: labels, help: help).set(value)
        }
        let day = kiosk.desk.day
        let policy = config.queue
        gauge("clup_totem_inside", "People inside the store, over all its doors, as this totem knows them.", Double(day.inside))
        gauge("clup_totem_capacity", "The store's capacity in force.", Double(policy.capacity))
        gauge("clup_totem_waiting", "Tickets waiting to be called.", Double(day.queueLength))
        gauge("clup_totem_called_or_at_the_door", "Tickets called or admitted whose holders are not inside yet.",
              Double(day.promised))
        gauge("clup_totem_door_places", "The places this door may fill: its share of the capacity where the hub shares it, else the capacity.", Double(policy.placesHere))
        gauge("clup_totem_door_held", "The places taken now, counted as against clup_totem_door_places.", Double(day.placesTaken(policy)))
        gauge("clup_totem_hub_settings_version", "The version of the hub's store settings in force (0: none).",
              Double(hub.settings?.version ?? 0))
        let sync = syncReport()
        for state in ["off", "online", "offline", "stuck", "refused"] {
            gauge("clup_totem_sync_state", "1 for the sync state the totem is in, 0 for the others.",
                  sync.state.rawValue == state ? 1 : 0, [("state", state)])
        }
        gauge("clup_totem_outbox_depth", "Events not yet acknowledged by the hub.", Double(sync.outboxDepth ?? sync.lastSeq))
        // A timestamp, not an age (Prometheus' advice: `time() - …` in the query), and 0 rather
        // than absent for "never since clupd started", so an alert on its age fires for a
        // totem that never got through too.
        gauge("clup_totem_sync_last_success_timestamp_seconds",
              "When the hub last took a batch, in Unix seconds (0: not since clupd started).",
              sync.lastSuccess?.timeIntervalSince1970 ?? 0)
        gauge("clup_totem_clock_skew_seconds", "The totem's clock minus the hub's (0: not measured).", sync.clockSkew ?? 0)
        gauge("clup_totem_dead_letters", "Events the hub kept as dead letters since clupd started.", Double(sync.deadLettered))
        gauge("clup_totem_printer_ready", "1 when cupsd last said the ticket printer is ready and its USB port (where one is read) says nothing against it, else 0.",
              printerWatch.isReady ? 1 : 0)
        for device in (kiosk.deviceHealth + [usb.health]) {
            gauge("clup_totem_device_ok", "1 for a device working, else 0, by role and backend.",
                  device.state == .ok ? 1 : 0, [("role", device.role), ("backend", device.backend)])
        }
        let paper = paperReport()
        gauge("clup_totem_paper_low", "1 when the paper on the roll is low (by the count, or the printer's near-end sensor), else 0.",
              paper.low ? 1 : 0)
        if let left = paper.ticketsLeft {
            gauge("clup_totem_paper_tickets_left", "About how many tickets the roll has left, counted since the last new roll.", Double(left))
        }
        gauge("clup_totem_not_recording", "1 while the disk is too full to record anything (tickets and entries are refused), else 0.",
              kiosk.desk.storageProblem == nil ? 0 : 1)
        if let disk = DiskFill.of(state.path) {
            gauge("clup_totem_disk_used_ratio", "The share used of the filesystem holding clupd's state.", disk.usedShare)
        }
        let today = kiosk.desk.day.businessDay.date
        for figures in counting.report(today: today) where figures.day == today {
            let door = [("door", figures.door)]
            gauge("clup_totem_passages_without_release", "Entries through the turnstile today with no release for them (tailgating), by door.",
                  Double(figures.withoutRelease), door)
            gauge("clup_totem_releases_unused", "Releases of the turnstile today nobody passed (the admission lapsed), by door.",
                  Double(figures.releasesUnused), door)
            gauge("clup_totem_passages_wrong_way", "Exits through the turnstile today while it was released for an entry, by door.",
                  Double(figures.wrongWay), door)
        }
        let trail = kiosk.desk.auditTrailFill
        gauge("clup_totem_audit_trail_entries", "Audit entries the totem keeps now.", Double(trail.entries))
        gauge("clup_totem_audit_trail_bound", "The audit entries past which the oldest the hub holds are deleted (the totem warns at 80 %).",
              Double(trail.bound))
        if let integrity = readIntegrityReport() {
            gauge("clup_totem_integrity_check_timestamp_seconds", "When the update helper last checked the installed files, in Unix seconds.",
                  integrity.at)
            gauge("clup_totem_files_changed", "Files of clup-totem changed or missing outside an update at the last check (-1: it could not run).",
                  integrity.problem == nil ? Double(integrity.changedCount) : -1)
        }
        return registry.emitToString()
    }
}
