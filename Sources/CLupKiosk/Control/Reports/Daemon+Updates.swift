import CLupCore
import CLupProtocol
import Foundation

/// What the totem's update helper asks clupd (`Control.UpdateWindow`), and what clupd tells
/// the hub of the helper's last update.
extension Daemon {
    /// Whether an update now would reach a person: not while someone is in front, a ticket is
    /// printing, or a called ticket is on its way to the door (its holder would find the door
    /// without its totem); always when the store is closed.
    func updateWindow(now: Date = Date()) -> UpdateWindowReport {
        let day = kiosk.desk.day
        let printing = day.tickets.values.filter { $0.state == .printing }.count
        let called = day.tickets.values.filter { $0.state == .called }.count
        let screen = kiosk.screens.flow.screen.name
        let idle: Bool, why: String
        if !kiosk.isOpen(at: now) {
            (idle, why) = (true, "the store is closed")
        } else if printing > 0 {
            (idle, why) = (false, "a ticket is printing")
        } else if called > 0 {
            (idle, why) = (false, called == 1 ? "a called ticket is on its way to the door" : "\(called) called tickets are on their way to the door")
        } else if screen != Screen.asleep.name {
            (idle, why) = (false, "someone is in front (the screen shows \(screen))")
        } else {
            (idle, why) = (true, "nobody in front, nothing printing, no called ticket")
        }
        let printer = printerWatch.report()
        return UpdateWindowReport(
            target: hub.settings?.targetVersion, running: PackageVersion.current, idle: idle, why: why,
            deviceProblems: kiosk.deviceHealth.filter { $0.state != .ok }.map { "\($0.role) \($0.state.rawValue): \($0.detail)" },
            printerReady: printer.ready, lastSync: hub.sync?.report().lastSuccess, manifest: hub.settings?.targetManifest,
            runningManifest: hub.settings?.runningManifest)
    }

    /// Reads the update helper's last check of the installed files (`IntegrityCheck`), for
    /// the status, the metrics and the hub; the first read of a new one that found files
    /// changed (or could not run) logs it as an error.
    func readIntegrityReport() -> IntegrityReport? {
        guard let report = IntegrityCheck.lastReport(in: state.path) else { return nil }
        if !report.isClean, report.at != integrityLoggedAt {
            integrityLoggedAt = report.at
            logger.error("integrity check: \(report.summary)", metadata: ["checked at": "\(Date(timeIntervalSince1970: report.at).formatted(.iso8601))"])
        }
        return report
    }

    /// What `clupctl status` says of the last integrity check: nothing when it found the
    /// files as installed.
    var integrityWarning: String? {
        guard let report = readIntegrityReport(), !report.isClean else { return nil }
        return "integrity check at \(Date(timeIntervalSince1970: report.at).formatted(.iso8601)): \(report.summary)"
    }

    /// The update helper's report of its last update (`TotemUpdater.reportPath`), for the
    /// hub; nil when there is none or it is unreadable.
    var lastUpdateReport: UpdateReport? {
        let path = TotemUpdater.reportPath(in: state.path)
        guard let data = FileManager.default.contents(atPath: path), data.count <= 4096 else { return nil }
        return try? JSONDecoder().decode(UpdateReport.self, from: data)
    }
}
