import CLupCore
import CLupProtocol
import CLupStore
import Crypto
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
/// it started. Else (at the deadline, or as soon as systemd has restarted the new clupd
/// twice after a failure, or given it up) it stops clupd, reinstalls the version before from its cache, puts the
/// database copy back if the new one had migrated it (the migrated file kept beside it),
/// and starts clupd again. Either way it leaves its report (`update-report.json` in clupd's
/// state folder), which clupd sends to the hub with its next upload: a failure there pauses
/// the rollout for every totem.
///
/// Nothing is installed on the hub's word alone: the hub sends, with the version, the
/// release manifest the release manager signed (`clup-release`), and the helper checks it
/// against the release keys it trusts (those the package shipped, kept at the first update,
/// replaced only by a manifest signed by them): the signature, the expiry, that the version
/// is not older than the one installed unless the manifest allows it, and, once fetched,
/// that the package's SHA-256 is the one the manifest lists. The copy of the version running,
/// which it would go back to, is checked the same way (against the manifest it kept when it
/// installed that version, or the one the hub sends; its expiry does not matter): a hub
/// cannot slip its own package in as the way back. A refusal changes nothing here and is
/// reported like a failure ("refused: …"), which pauses the rollout.
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
        /// dpkg's architecture here (amd64, arm64).
        func architecture() throws -> String
        /// The delta file `name` from the hub's repository into `directory`, at most `limit`
        /// bytes: its path; nil when the hub has none.
        func fetchDelta(_ name: String, atMost limit: Int64, into directory: String) throws -> String?
        /// The package the (checked) delta at `delta` makes from the installed files
        /// (debpatch), written at `path`.
        func applyDelta(_ delta: String, making path: String) throws
        /// Keeps clupd's own files installed now (its executable, and /usr/share/clup: its
        /// version and data) in the folder `path` (hard links: the same files, which an
        /// upgrade's dpkg replaces by renaming new ones over them), the quick way back.
        /// Whatever was at `path` goes first, and nothing is left there when it throws: the
        /// way back takes the folder's existence for the files kept.
        func keepClupd(at path: String) throws
        /// Puts the files kept in `path` back in place of the installed ones, at once (each
        /// renamed over its namesake), while their whole package is yet to be put back: the
        /// clupd started then is the version before, and says so.
        func putClupdBack(from path: String) throws
        /// Installs the package file at `path` (a downgrade too).
        func install(_ path: String) throws
        /// Installs the package file at `path` again over a package a cut left half-installed
        /// (`dpkg -i`, as a technician mends it: apt refuses a package that needs reinstalling).
        func reinstall(_ path: String) throws
        /// Whether clupd's unit is active (it signalled READY).
        func clupdActive() -> Bool
        /// clupd's unit as systemd tells it (`systemctl show`): how its starts went.
        func clupdUnit() -> UnitState
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

    /// The release keys the installed package ships: trusted at the first update.
    public let shippedKeys: String

    /// Where a run says what it fetched, as it goes (the helper prints it).
    public let say: @Sendable (String) -> Void

    public init(system: any System, stateDirectory: String, workDirectory: String, deadline: Double = 180,
                shippedKeys: String = TotemUpdater.shippedKeysPath, say: @escaping @Sendable (String) -> Void = { _ in }) {
        self.system = system
        self.say = say
        self.stateDirectory = stateDirectory
        self.workDirectory = workDirectory
        self.deadline = deadline
        self.shippedKeys = shippedKeys
    }

    public static let shippedKeysPath = "/usr/share/clup-totem/release-keys.pub"
    /// The release keys trusted here, root's (a copy of the shipped ones at first, then
    /// whatever a manifest signed by them handed over to).
    var trustPath: String { workDirectory + "/trusted-release-keys.pub" }
    /// The signed manifests of the versions the helper checked, by version: the way back
    /// stays checkable when the hub no longer sends its manifest.
    var keptManifests: String { workDirectory + "/manifests" }
    /// The keys a hand-over retired: they still vouch for the manifests kept here (checked
    /// when they were trusted), never for one the hub sends.
    var retiredPath: String { workDirectory + "/retired-release-keys.pub" }

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
        /// Not installed: no signed manifest vouches for it (or an expired one, or a downgrade).
        case refused(String, because: String)
    }

    /// clupd's unit as systemd tells it: its state, how many times systemd restarted it after
    /// a failure (`NRestarts`: at start or later, the watchdog's kills included; a start by
    /// hand, such as the package's restart, and a boot set it back to 0), and how its main
    /// process last ended.
    public struct UnitState: Equatable, Sendable {
        /// `ActiveState`: active, activating, deactivating, inactive, failed (given up).
        public var state: String
        public var restarts: Int
        /// "exit status 1", "signal SEGV"…; nil when no process has ended yet.
        public var lastExit: String?
        /// A unit clupd needs (clup-keys) that failed, as "clup-keys.service (last exit
        /// status 1)": clupd's start then fails with no restart to count.
        public var neededFailed: String?

        public init(state: String, restarts: Int, lastExit: String?, neededFailed: String? = nil) {
            self.state = state
            self.restarts = restarts
            self.lastExit = lastExit
            self.neededFailed = neededFailed
        }

        /// Restarts after a failure (at start, or later: a crash, the watchdog) after which a
        /// new version is undone at once, not at the deadline.
        public static let failuresToGiveUp = 2

        /// Why the version running has plainly failed, or nil: systemd gave it up, or had to
        /// restart it `failuresToGiveUp` times since it was installed (the package's restart,
        /// or the boot, set the count back to 0).
        public var plainFailure: String? {
            let how = lastExit.map { ", last \($0)" } ?? ""
            if let neededFailed { return "\(neededFailed) failed: clupd needs it to start" }
            if state == "failed" { return "clupd failed and systemd gave it up\(how)" }
            if restarts >= Self.failuresToGiveUp { return "clupd failed and systemd restarted it \(restarts) times\(how)" }
            return nil
        }
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
        /// The keys the installed release's manifest hands over to, trusted once it is healthy.
        var nextKeys: [String]?
        /// Why the update is being undone, once `rollBack` has begun: a run cut short then
        /// finishes the way back, and never installs the release it was undoing again.
        var rollingBack: String? = nil

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
        if let pending = loadPending() { return resume(pending) }
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
        // A refusal is tried again only for other signed manifests (another payload: a fresh
        // one; the same one reformatted or signed again is not tried again).
        if let last = lastReport(), last.version == target, last.outcome != .installed,
           !(last.isRefusal && last.manifest != Self.digest(window.manifest, window.runningManifest)) {
            return .nothingToDo("clup-totem \(target) \(last.outcome.rawValue) here before (\(last.detail)); it is not tried again by itself")
        }
        // What can be checked without fetching anything is, before anyone's turn is waited for.
        let manifest: ReleaseManifest, wayBack: ReleaseManifest
        do {
            manifest = try vouched(target, installed: previous, manifest: window.manifest)
            wayBack = try wayBackVouched(previous, hubSent: window.runningManifest)
        } catch {
            return refuse(target, error, window)
        }
        guard window.idle else { return .waiting(window.why) }
        return update(to: target, from: previous, before: window, manifest: manifest, wayBack: wayBack)
    }

    func update(to target: String, from previous: String, before: UpdateWindowReport, manifest: ReleaseManifest,
                wayBack: ReleaseManifest) -> Outcome {
        let previousPackage: String, targetPackage: String, copy: TotemBackup.Copy?
        do {
            try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // The target first: a package the hub altered is found before anything else is fetched.
            targetPackage = try fetchTarget(target, from: previous, manifest: manifest)
            do throws(CodedError) {
                try Self.check(targetPackage, listedIn: manifest)
            } catch {
                try? FileManager.default.removeItem(atPath: targetPackage)
                return refuse(target, error, before)
            }
            let cached = Self.cachedIfSigned(Self.cachedPackage(previous, in: cache), listedIn: wayBack)
            previousPackage = try system.fetch(previous, into: cache)
            say("the way back, clup-totem \(previous): " + (cached ? "in the cache" : "fetched whole, \(Self.size(previousPackage)) bytes"))
            do throws(CodedError) {
                try Self.check(previousPackage, listedIn: wayBack)
            } catch {
                try? FileManager.default.removeItem(atPath: previousPackage)
                return refuse(target, CodedError(.releaseNotVouched, "the way back: \(error.message)"), before)
            }
            // Fetching (a delta rebuilt under TCG takes minutes) gave a customer time to come:
            // the entrance is asked again; the packages wait in the cache for the next run.
            let now: UpdateWindowReport
            do {
                now = try system.window()
            } catch {
                return .waiting("clupd does not answer (\(CodedError(describing: error).message)): no update without it")
            }
            guard now.idle else { return .waiting(now.why) }
            // The hub may have paused or changed the rollout meanwhile: its word now counts.
            guard now.target == target else {
                return .waiting("the hub no longer wants clup-totem \(target) here (it wants \(now.target ?? "no update")): fetched, not installed")
            }
            copy = FileManager.default.fileExists(atPath: database)
                ? try TotemBackup.copy(database: database, to: workDirectory + "/before-\(target).sqlite") : nil
        } catch {
            // Nothing has changed yet: the version running stays, and the hub hears why.
            let because = "not installed: \(CodedError(describing: error).message)"
            report(target, .failed, because)
            return .failed(target, because: because)
        }
        // The clupd running now, kept for the quick way back (without it, the way back is the
        // package's alone; `keepClupd` leaves no folder when it fails).
        do {
            try system.keepClupd(at: keptClupd(previous))
        } catch {
            say("the way back, clup-totem \(previous): its clupd not kept (\(CodedError(describing: error).message)); the package alone would put it back")
        }
        let pending = Pending(target: target, previous: previous, previousPackage: previousPackage, targetPackage: targetPackage,
                              databaseCopy: copy?.path, schema: copy?.schema, startedAt: system.now(),
                              problemsBefore: before.deviceProblems.map(Self.role(of:)), printerReadyBefore: before.printerReady,
                              nextKeys: manifest.nextKeys)
        do {
            try write(pending)
            // clupd, stopped by the package's restart, leaves "back in a moment" on the panel
            // rather than "out of order" while this lasts (`updateUnderWay`).
            FileManager.default.createFile(atPath: Self.markerPath(in: stateDirectory), contents: Data(target.utf8),
                                           attributes: [.posixPermissions: 0o644])
            try system.install(targetPackage)
        } catch {
            return rollBack(pending, because: "the install failed: \(CodedError(describing: error).message)")
        }
        return finish(pending, interrupted: false)
    }

    /// The target's package: rebuilt from a delta from the version installed when the signed
    /// manifest lists one (the release manager made it: `clup-release sign --delta-from`) and
    /// the hub serves it, else fetched whole. The delta is checked against the manifest before
    /// anything reads it, and the package it makes is checked like a fetched one; whatever goes
    /// wrong with it costs the whole download, never the update.
    func fetchTarget(_ target: String, from installed: String, manifest: ReleaseManifest) throws -> String {
        let path = Self.cachedPackage(target, in: cache)
        if Self.cachedIfSigned(path, listedIn: manifest) { return try system.fetch(target, into: cache) }
        var why = "no delta from \(installed) in its signed manifest"
        if let architecture = try? system.architecture(), let delta = manifest.delta(from: installed, architecture: architecture),
                  let package = manifest.package(Self.package, architecture: architecture) {
            let name = DeltaName.file(from: installed, to: target, architecture: architecture)
            let folder = workDirectory + "/delta"
            defer { try? FileManager.default.removeItem(atPath: folder) }
            do {
                try? FileManager.default.removeItem(atPath: folder)
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                if let file = try system.fetchDelta(name, atMost: delta.size, into: folder) {
                    let (sha256, size) = try ReleaseFiles.digest(file, maximumBytes: delta.size)
                    guard sha256 == delta.sha256, size == delta.size else {
                        throw CodedError(.releaseNotVouched, "the hub served another file than the signed manifest's \(name)")
                    }
                    try system.applyDelta(file, making: path)
                    try Self.check(path, listedIn: manifest)
                    say("clup-totem \(target): rebuilt from a delta from \(installed) of \(size) bytes, "
                        + "\(Self.percent(size, of: package.size)) of the package's \(package.size) bytes")
                    return path
                }
                why = "the hub does not serve the delta from \(installed)"
            } catch {
                try? FileManager.default.removeItem(atPath: path)
                why = "the delta from \(installed) failed: \(CodedError(describing: error).message)"
            }
        }
        let fetched = try system.fetch(target, into: cache)
        say("clup-totem \(target): fetched whole, \(Self.size(fetched)) bytes (\(why))")
        return fetched
    }

    /// Whether `path` is in the cache as the signed package. One a run cut short left
    /// partial (or anything else) is deleted, to be fetched again: not taken for a forgery.
    static func cachedIfSigned(_ path: String, listedIn manifest: ReleaseManifest) -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return false }
        if (try? check(path, listedIn: manifest)) != nil { return true }
        try? FileManager.default.removeItem(atPath: path)
        return false
    }

    /// Where clupd's own files of `version` are kept for the quick way back (`keepClupd`).
    func keptClupd(_ version: String) -> String { workDirectory + "/clupd-\(version)" }

    static func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    static func percent(_ part: Int64, of whole: Int64) -> String {
        whole > 0 ? String(format: "%.1f %%", Double(part) * 100 / Double(whole)) : "?"
    }

    /// Finishes a run cut short (a power cut, the helper killed). One cut while undoing the
    /// update finishes the way back. Otherwise dpkg may have been cut in the middle too: the
    /// package half-installed (`iHR`, which `installedVersion` does not count as installed)
    /// or still the version before. The cached target is then installed again, as a
    /// technician would (`dpkg -i` of the same file), before clupd is judged: a clupd that
    /// answers over a half-installed package is not an installed update.
    func resume(_ pending: Pending) -> Outcome {
        if let reason = pending.rollingBack {
            return rollBack(pending, because: "\(reason); the way back finished by the run after one cut short")
        }
        let installed: String?
        do {
            installed = try system.installedVersion()
        } catch {
            return rollBack(pending, because: "after a run cut short, cannot tell which clup-totem is installed: "
                + CodedError(describing: error).message)
        }
        if installed != pending.target {
            do {
                try system.reinstall(pending.targetPackage)
            } catch {
                return rollBack(pending, because: "the install cut short could not be finished (dpkg left clup-totem "
                    + "\(installed.map { "at \($0)" } ?? "half-installed")): \(CodedError(describing: error).message)")
            }
        }
        return finish(pending, interrupted: true)
    }

    /// Waits for the new clupd to come up healthy (a run cut short waits afresh); keeps it or
    /// undoes it: as soon as it has plainly failed (`UnitState.plainFailure`: restarted twice
    /// by systemd after exiting at start, say), else when `deadline` is up (answering but never synced, devices not back).
    func finish(_ pending: Pending, interrupted: Bool) -> Outcome {
        let started = system.now()
        let until = started.addingTimeInterval(deadline)
        var last = "clupd did not start"
        while system.now() < until {
            if let failure = system.clupdUnit().plainFailure {
                return rollBack(pending, because: "\(failure), \(Int(system.now().timeIntervalSince(started).rounded())) s after the install")
            }
            if system.clupdActive() {
                do {
                    let window = try system.window()
                    let (healthy, because) = pending.healthy(window)
                    if window.running != pending.target {
                        last = "clupd runs \(window.running), not \(pending.target)"
                    } else if healthy {
                        if let next = pending.nextKeys { trust(next, handedOverBy: pending.target) }
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
    /// Its clupd first, at once (clupd's own files kept at the install, renamed back in
    /// place, and started): the entrance is in service again while dpkg puts the whole package back,
    /// the longest step (57 s of the 109 the entrance was out of service for under TCG, issue
    /// 45), whose own restart of clupd then costs seconds. A kept clupd that cannot start
    /// (the new package's other files not to its liking) waits for its package like the rest.
    func rollBack(_ pending: Pending, because: String) -> Outcome {
        var detail = because
        if pending.rollingBack == nil {
            var undoing = pending
            undoing.rollingBack = because
            // Best effort: without it, a run cut short would try the target once more first.
            try? write(undoing)
        }
        do {
            try system.stopClupd()
            // The database first: no clupd of the version before opens a migrated one.
            if let copy = pending.databaseCopy, TotemBackup.schema(of: database) != pending.schema {
                try restore(copy, migratedBy: pending.target)
                detail += "; its database, migrated, put aside and the copy from before restored"
            }
            let kept = keptClupd(pending.previous)
            if FileManager.default.fileExists(atPath: kept) {
                do {
                    try system.putClupdBack(from: kept)
                    try system.startClupd()
                } catch {
                    detail += "; its clupd put back waits for its package (\(CodedError(describing: error).message))"
                }
            }
            try system.install(pending.previousPackage)
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
    /// A second time the same version is undone, its copy gets the time in its name.
    func restore(_ copy: String, migratedBy version: String) throws {
        var aside = database + ".from-\(version)"
        if FileManager.default.fileExists(atPath: aside) { aside += "-\(Int(system.now().timeIntervalSince1970))" }
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: database + suffix) {
            try FileManager.default.moveItem(atPath: database + suffix, toPath: aside + suffix)
        }
        try FileManager.default.copyItem(atPath: copy, toPath: database)
        var folder = stat()
        if stat(stateDirectory, &folder) == 0 { _ = chown(database, folder.st_uid, folder.st_gid) }
    }

    // MARK: The release manager's word

    /// The manifest the hub sent for `target`, checked: signed by a key trusted here, not
    /// expired, of that version, and not going down from `installed` unless it allows it.
    func vouched(_ target: String, installed: String, manifest text: String?) throws(CodedError) -> ReleaseManifest {
        guard let text else {
            throw CodedError(.releaseNotVouched, "the hub sent no signed release manifest with clup-totem \(target)")
        }
        let manifest = try SignedReleaseManifest(json: Data(text.utf8)).verify(trusting: try trustedKeys(), now: system.now())
        guard manifest.release == target else {
            throw CodedError(.releaseNotVouched, "the signed manifest the hub sent is of \(manifest.release), not \(target)")
        }
        // The totem's clock can be set back; what was signed cannot: a manifest that expired
        // before the newest one seen here was issued is expired, whatever the clock says.
        if let floor = newestIssued(), manifest.expires <= floor {
            throw CodedError(.releaseManifestExpired, "the release manifest of \(target) expired at \(manifest.expires.formatted(.iso8601)), "
                             + "before the newest manifest this totem has seen was issued (\(floor.formatted(.iso8601))): its clock may be behind")
        }
        // A manifest issued "later" than this clock (a mistake, or this clock behind) raises
        // the floor to now only: one wrong date never locks the totem out of honest manifests.
        noteIssued(min(manifest.issued, system.now()))
        keep(text, of: target)
        if DebianVersion.isOlder(target, than: installed), !(manifest.downgradeFrom ?? []).contains(installed) {
            throw CodedError(.releaseDowngrade,
                             "clup-totem \(target) is older than \(installed), installed, and its signed manifest does not allow going down from it")
        }
        return manifest
    }

    /// The manifest that vouches for `previous`, the version running, which an update that
    /// fails goes back to: the one kept when it was installed, else the one the hub sent with
    /// the target (signed by a key trusted here; its expiry does not matter). Without one,
    /// nothing is updated: the way back would be a package no one checked.
    func wayBackVouched(_ previous: String, hubSent: String?) throws(CodedError) -> ReleaseManifest {
        let keys = try trustedKeys()
        let retired = FileManager.default.contents(atPath: retiredPath).flatMap { try? ReleaseKey.list(String(decoding: $0.prefix(16_384), as: UTF8.self)) } ?? []
        let kept = FileManager.default.contents(atPath: keptManifests + "/\(previous).json").map { String(decoding: $0, as: UTF8.self) }
        for (text, trusting) in [(kept, keys + retired), (hubSent, keys)] {
            guard let text, let manifest = try? SignedReleaseManifest(json: Data(text.utf8)).verify(trusting: trusting, now: system.now(), expiryMatters: false),
                  manifest.release == previous else { continue }
            keep(text, of: previous)
            return manifest
        }
        throw CodedError(.releaseNotVouched,
                         "no signed manifest vouches for clup-totem \(previous), the version running: the way back if the update fails would be a package no one checked")
    }

    /// Keeps a manifest checked here, for when its version is the way back (written only
    /// when it changes: runs come every minute).
    func keep(_ text: String, of version: String) {
        let path = keptManifests + "/\(version).json"
        guard ReleaseManifest.isVersion(version), FileManager.default.contents(atPath: path) != Data(text.utf8) else { return }
        try? FileManager.default.createDirectory(atPath: keptManifests, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try? DurableFile.write(Data(text.utf8), to: path, mode: 0o600)
    }

    /// Whether the package file at `path` is one `manifest` lists (its SHA-256 and size).
    /// When the newest manifest checked here was issued (nil: none yet): the floor of what
    /// counts as expired, which a clock set back does not lower.
    var newestIssuedPath: String { workDirectory + "/newest-manifest-issued" }

    func newestIssued() -> Date? {
        guard let data = FileManager.default.contents(atPath: newestIssuedPath), data.count < 64,
              let seconds = Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
              seconds.isFinite else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    func noteIssued(_ issued: Date) {
        if let floor = newestIssued(), floor >= issued { return }
        try? FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try? DurableFile.write(Data(String(issued.timeIntervalSince1970).utf8), to: newestIssuedPath, mode: 0o600)
    }

    static func check(_ path: String, listedIn manifest: ReleaseManifest) throws(CodedError) {
        let (sha256, size) = try ReleaseFiles.digest(path)
        guard manifest.packages.contains(where: {
            $0.name == package && $0.version == manifest.release && $0.sha256 == sha256 && $0.size == size
        }) else {
            throw CodedError(.releaseNotVouched,
                             "the clup-totem \(manifest.release) the hub served (SHA-256 \(sha256.prefix(16))…) is not a package its signed manifest lists: altered after signing, or another build")
        }
    }

    /// The release keys trusted here: the kept ones, or (the first time) those the package shipped, kept from then on.
    func trustedKeys() throws(CodedError) -> [ReleaseKey] {
        if let kept = FileManager.default.contents(atPath: trustPath) {
            let keys = try ReleaseKey.list(String(decoding: kept.prefix(16_384), as: UTF8.self))
            guard !keys.isEmpty else { throw CodedError(.releaseNotVouched, "\(trustPath) holds no release key") }
            return keys
        }
        guard let shipped = FileManager.default.contents(atPath: shippedKeys), shipped.count <= 16_384 else {
            throw CodedError(.releaseNotVouched, "no release key is trusted here: neither \(trustPath) nor \(shippedKeys) exists")
        }
        let keys = try ReleaseKey.list(String(decoding: shipped, as: UTF8.self))
        guard !keys.isEmpty else { throw CodedError(.releaseNotVouched, "\(shippedKeys) holds no release key") }
        try? FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do {
            try DurableFile.write(shipped, to: trustPath, mode: 0o644)
        } catch {
            throw CodedError(.releaseNotVouched, "cannot keep the trusted release keys in \(trustPath): \(error)")
        }
        return keys
    }

    /// Trusts `lines` from now on: a manifest signed by the keys trusted handed over to them.
    func trust(_ lines: [String], handedOverBy version: String) {
        if let old = FileManager.default.contents(atPath: trustPath) {
            let retired = (FileManager.default.contents(atPath: retiredPath) ?? Data()) + old
            try? DurableFile.write(retired.suffix(16_384), to: retiredPath, mode: 0o600)
        }
        let text = "# Handed over by the signed manifest of clup-totem \(version)\n" + lines.joined(separator: "\n") + "\n"
        try? DurableFile.write(Data(text.utf8), to: trustPath, mode: 0o644)
    }

    /// A refusal: nothing changed here; the hub hears why (as a failure, "refused: …").
    func refuse(_ target: String, _ error: CodedError, _ window: UpdateWindowReport) -> Outcome {
        let because = UpdateReport.refusedPrefix + error.description
        report(target, .failed, because, manifest: Self.digest(window.manifest, window.runningManifest))
        return .refused(target, because: because)
    }

    /// Which manifests a refusal was about: the SHA-256 of what they sign (the payloads, not
    /// the envelopes' text, which a hub could reformat at will to be tried again).
    static func digest(_ manifests: String?...) -> String? {
        let payloads = manifests.map { text in
            text.flatMap { try? SignedReleaseManifest(json: Data($0.utf8)).payload } ?? (text == nil ? "-" : "unreadable")
        }
        return HubWire.hex(SHA256.hash(data: Data(payloads.joined(separator: "\n").utf8)))
    }

    // MARK: Files

    /// Where the cache keeps the package of `version`.
    public static func cachedPackage(_ version: String, in cache: String) -> String { cache + "/\(package)_\(version).deb" }

    /// Whether an update was started and not finished (a run cut short: the next finishes it).
    public var isPending: Bool { FileManager.default.fileExists(atPath: pendingPath) }

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
        if let copy = loadPending()?.databaseCopy { try? FileManager.default.removeItem(atPath: copy) }
        // The kept clupd (`keptClupd`), of whichever version, whether or not the run got to
        // write its pending file.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: workDirectory)) ?? [] where name.hasPrefix("clupd-") {
            try? FileManager.default.removeItem(atPath: workDirectory + "/" + name)
        }
        try? FileManager.default.removeItem(atPath: pendingPath)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: cache)) ?? [] where !keeping.contains(cache + "/" + name) {
            try? FileManager.default.removeItem(atPath: cache + "/" + name)
        }
    }

    func lastReport() -> UpdateReport? {
        guard let data = FileManager.default.contents(atPath: Self.reportPath(in: stateDirectory)) else { return nil }
        return try? JSONDecoder().decode(UpdateReport.self, from: data)
    }

    /// The file saying an update is being installed, in clupd's state folder.
    static func markerPath(in stateDirectory: String) -> String { stateDirectory + "/update-under-way" }
    /// How long a marker is believed: one left by a helper cut short must not make a real
    /// failure look like an update for ever.
    static let markerBelievedSeconds = 1800.0

    /// Whether an update is being installed (for clupd as it stops: the frame it leaves).
    public static func updateUnderWay(in stateDirectory: String, now: Date = Date()) -> Bool {
        guard let modified = (try? FileManager.default.attributesOfItem(atPath: markerPath(in: stateDirectory)))?[.modificationDate] as? Date
        else { return false }
        return abs(now.timeIntervalSince(modified)) < markerBelievedSeconds
    }

    /// Leaves the report clupd sends the hub (readable by clupd's user). The update is over,
    /// whichever way: the marker goes.
    func report(_ version: String, _ outcome: UpdateReport.Outcome, _ detail: String, manifest: String? = nil) {
        try? FileManager.default.removeItem(atPath: Self.markerPath(in: stateDirectory))
        let report = UpdateReport(version: version, outcome: outcome, detail: String(detail.prefix(300)),
                                  at: system.now().timeIntervalSince1970, manifest: manifest)
        guard let data = try? JSONEncoder().encode(report) else { return }
        try? DurableFile.write(data, to: Self.reportPath(in: stateDirectory), mode: 0o644)
    }
}
