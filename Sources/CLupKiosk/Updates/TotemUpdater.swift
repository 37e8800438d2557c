import CLupCore
import CLupProtocol
import CLupStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The totem's update helper (`clupd update`, root, run every minute by `clup-update.timer`):
/// installs the clup-totem version the hub's rollout wants here, only when the entrance is
/// idle, and undoes it by itself when the new clupd does not come up healthy.
///
/// One run: nothing to do (no target, or it runs already, or it failed here before); wait
/// (someone in front, a ticket printing, a called ticket on its way to the door: the next
/// run looks again); or update. An update first takes a copy of both packages into its
/// cache (the one running, to go back to offline, and the target, fetched by apt, so signed
/// by the chain's key) and a consistent copy of the database, writes down what it is about
/// to do (`pending.json`, so that a run cut short by a power cut is finished by the next),
/// installs the target (the package's own postinst backs the database up and restarts
/// clupd), then waits up to `deadline` for the new clupd: active (READY), answering,
/// running the target, its devices ok, its printer ready, and an upload to the hub since
/// it started. Else it stops clupd, reinstalls the version before from its cache, puts the
/// database copy back if the new one had migrated it (the migrated file kept beside it),
/// and starts clupd again. Either way it leaves its report (`update-report.json` in clupd's
/// state folder), which clupd sends to the hub with its next upload: a failure there pauses
/// the rollout for every totem.
public struct TotemUpdater {
    /// What the updater does to the machine, so that its decisions are tested without apt.
    public protocol System {
        /// The clup-totem version installed (`dpkg-query`); nil if none.
        func installedVersion() throws -> String?
        /// What clupd says (`Control.UpdateWindow`); throws when it does not answer.
        func window() throws -> UpdateWindowReport
        /// The package of `version`, fetched by apt from the chain's repository into
        /// `cache`; its path.
        func fetch(_ version: String, into cache: String) throws -> String
        /// Installs the package file at `path` (a downgrade too).
        func install(_ path: String) throws
        /// Whether clupd's unit is active (it signalled READY).
        func clupdActive() -> Bool
        func stopClupd() throws
        func startClupd() throws
        func sleep(seconds: Double)
        func now() -> Date
    }

    public let system: any System
    /// clupd's state folder (its database, and the report it sends).
    public let stateDirectory: String
    /// The helper's own folder (root's): the package cache, the database copy, `pending.json`.
    public let workDirectory: String
    /// How long the new clupd has to come up healthy.
    public let deadline: Double

    public init(system: any System, stateDirectory: String, workDirectory: String, deadline: Double = 180) {
        self.system = system
        self.stateDirectory = stateDirectory
        self.workDirectory = workDirectory
        self.deadline = deadline
    }

    public static let package = "clup-totem"
    public static func reportPath(in stateDirectory: String) -> String { stateDirectory + "/update-report.json" }
    var cache: String { workDirectory + "/cache" }
    var pendingPath: String { workDirectory + "/pending.json" }
    var database: String { stateDirectory + "/" + TotemBackup.databaseName }

    public enum Outcome: Equatable, Sendable {
        case nothingToDo(String)
        case waiting(String)
        case installed(String)
        case rolledBack(String, because: String)
        case failed(String, because: String)
    }

    /// What an update is about to do, written before it starts.
    struct Pending: Codable, Equatable {
        var target: String
        var previous: String
        var previousPackage: String
        var targetPackage: String
        var databaseCopy: String?
        var schema: String?
        var startedAt: Date
        /// The devices not ok before the update (by role) and whether the printer was ready:
        /// the new version is not blamed for what was wrong already.
        var problemsBefore: [String]
        var printerReadyBefore: Bool

        /// Whether `window` shows the new clupd as healthy as the old one was: no device newly
        /// not ok, the printer ready if it was, and an upload to the hub since it started.
        func healthy(_ window: UpdateWindowReport) -> (Bool, String) {
            let fresh = window.deviceProblems.filter { !problemsBefore.contains(TotemUpdater.role(of: $0)) }
            var reasons = fresh
            if printerReadyBefore && !window.printerReady { reasons.append("the printer is not ready") }
            if window.lastSync == nil { reasons.append("no upload to the hub yet") }
            return (reasons.isEmpty, reasons.joined(separator: "; "))
        }
    }

    /// The role a device problem names ("display fault: …" is the display's).
    static func role(of problem: String) -> String { String(problem.prefix { $0 != " " }) }

    // MARK: One run

    public func run() -> Outcome {
        if let pending = loadPending() { return finish(pending, interrupted: true) }
        let window: UpdateWindowReport
        do {
            window = try system.window()
        } catch {
            return .waiting("clupd does not answer (\(CodedError(describing: error).message)): no update without it")
        }
        guard let target = window.target else { return .nothingToDo("the hub wants no update here") }
        let installed: String?
        do {
            installed = try system.installedVersion()
        } catch {
            return .waiting("cannot tell which clup-totem is installed: \(CodedError(describing: error).message)")
        }
        guard let previous = installed else { return .nothingToDo("clup-totem is not installed from a package") }
        if previous == target { return .nothingToDo("clup-totem \(target) is installed") }
        if let last = lastReport(), last.version == target, last.outcome != .installed {
            return .nothingToDo("clup-totem \(target) \(last.outcome.rawValue) here before (\(last.detail)); it is not tried again by itself")
        }
        guard window.idle else { return .waiting(window.why) }
        return update(to: target, from: previous, before: window)
    }

    func update(to target: String, from previous: String, before: UpdateWindowReport) -> Outcome {
        let previousPackage: String, targetPackage: String, copy: TotemBackup.Copy?
        do {
            try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            previousPackage = try system.fetch(previous, into: cache)
            targetPackage = try system.fetch(target, into: cache)
            copy = FileManager.default.fileExists(atPath: database)
                ? try TotemBackup.copy(database: database, to: workDirectory + "/before-\(target).sqlite") : nil
        } catch {
            // Nothing has changed yet: the version running stays, and the hub hears why.
            let because = "not installed: \(CodedError(describing: error).message)"
            report(target, .failed, because)
            return .failed(target, because: because)
        }
        let pending = Pending(target: target, previous: previous, previousPackage: previousPackage, targetPackage: targetPackage,
                              databaseCopy: copy?.path, schema: copy?.schema, startedAt: system.now(),
                              problemsBefore: before.deviceProblems.map(Self.role(of:)), printerReadyBefore: before.printerReady)
        do {
            try write(pending)
            try system.install(targetPackage)
        } catch {
            return rollBack(pending, because: "the install failed: \(CodedError(describing: error).message)")
        }
        return finish(pending, interrupted: false)
    }

    /// Waits for the new clupd to come up healthy (a run cut short waits afresh); keeps it or undoes it.
    func finish(_ pending: Pending, interrupted: Bool) -> Outcome {
        let until = system.now().addingTimeInterval(deadline)
        var last = "clupd did not start"
        while system.now() < until {
            if system.clupdActive() {
                do {
                    let window = try system.window()
                    let (healthy, because) = pending.healthy(window)
                    if window.running != pending.target {
                        last = "clupd runs \(window.running), not \(pending.target)"
                    } else if healthy {
                        report(pending.target, .installed, interrupted ? "healthy after a run cut short" : "healthy")
                        clearPending(keeping: [pending.previousPackage, pending.targetPackage])
                        return .installed(pending.target)
                    } else {
                        last = because
                    }
                } catch {
                    last = "clupd does not answer: \(CodedError(describing: error).message)"
                }
            } else {
                last = "clupd is not active (no READY)"
            }
            system.sleep(seconds: 2)
        }
        return rollBack(pending, because: "not healthy within \(Int(deadline)) s: \(last)")
    }

    /// Puts the version before back, and the database as it was if the new one migrated it.
    func rollBack(_ pending: Pending, because: String) -> Outcome {
        var detail = because
        do {
            try system.stopClupd()
            try system.install(pending.previousPackage)
            if let copy = pending.databaseCopy, TotemBackup.schema(of: database) != pending.schema {
                try restore(copy, migratedBy: pending.target)
                detail += "; its database, migrated, put aside and the copy from before restored"
            }
            try system.startClupd()
        } catch {
            // The totem is left to a technician: the hub hears it failed, not that it was undone.
            let failure = "\(because); going back to \(pending.previous) failed too: \(CodedError(describing: error).message)"
            report(pending.target, .failed, failure)
            return .failed(pending.target, because: failure)
        }
        report(pending.target, .rolledBack, detail)
        clearPending(keeping: [pending.previousPackage, pending.targetPackage])
        return .rolledBack(pending.target, because: detail)
    }

    /// Moves the migrated database aside (never deleted: what it recorded stays for a
    /// technician) and puts the copy in its place, as clupd's user owns the folder.
    func restore(_ copy: String, migratedBy version: String) throws {
        let aside = database + ".from-\(version)"
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: database + suffix) {
            try? FileManager.default.removeItem(atPath: aside + suffix)
            try FileManager.default.moveItem(atPath: database + suffix, toPath: aside + suffix)
        }
        try FileManager.default.copyItem(atPath: copy, toPath: database)
        var folder = stat()
        if stat(stateDirectory, &folder) == 0 { _ = chown(database, folder.st_uid, folder.st_gid) }
    }

    // MARK: Files

    /// Where the cache keeps the package of `version`.
    public static func cachedPackage(_ version: String, in cache: String) -> String { cache + "/\(package)_\(version).deb" }

    func loadPending() -> Pending? {
        guard let data = FileManager.default.contents(atPath: pendingPath) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(Pending.self, from: data)
    }

    func write(_ pending: Pending) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try DurableFile.write(try encoder.encode(pending), to: pendingPath, mode: 0o600)
    }

    /// Removes `pending.json` and the database copy, and every cached package but `keeping`.
    func clearPending(keeping: [String]) {
        if let pending = loadPending(), let copy = pending.databaseCopy { try? FileManager.default.removeItem(atPath: copy) }
        try? FileManager.default.removeItem(atPath: pendingPath)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: cache)) ?? [] where !keeping.contains(cache + "/" + name) {
            try? FileManager.default.removeItem(atPath: cache + "/" + name)
        }
    }

    func lastReport() -> UpdateReport? {
        guard let data = FileManager.default.contents(atPath: Self.reportPath(in: stateDirectory)) else { return nil }
        return try? JSONDecoder().decode(UpdateReport.self, from: data)
    }

    /// Leaves the report clupd sends the hub (readable by clupd's user).
    func report(_ version: String, _ outcome: UpdateReport.Outcome, _ detail: String) {
        let report = UpdateReport(version: version, outcome: outcome, detail: String(detail.prefix(300)),
                                  at: system.now().timeIntervalSince1970)
        guard let data = try? JSONEncoder().encode(report) else { return }
        try? DurableFile.write(data, to: Self.reportPath(in: stateDirectory), mode: 0o644)
    }
}
