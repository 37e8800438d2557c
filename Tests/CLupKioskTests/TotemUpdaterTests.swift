@testable import CLupKiosk
import CLupCore
import CLupProtocol
import CLupStore
import Crypto
import Foundation
import GRDB
import XCTest

/// The update helper's decisions on a machine it only imagines (apt, dpkg and systemd
/// stand-ins), with a real database: it waits while the entrance is busy, keeps a version
/// that comes up healthy, and undoes one that does not, database included.
final class TotemUpdaterTests: XCTestCase {
    /// A totem as the helper sees it: its installed version follows what it installs, and
    /// clupd answers as the installed version would (`healthy` says whether a new one does).
    final class Machine: TotemUpdater.System, @unchecked Sendable {
        var installed: String? = "0.12.0"
        var answer = UpdateWindowReport(target: "0.13.0", running: "0.12.0", idle: true, why: "nobody in front", deviceProblems: [],
                                        printerReady: true, lastSync: Date())
        var newVersionHealthy = true
        var newVersionStarts = true
        /// The new version's clupd exits as it starts: systemd restarts it every 2 s (one
        /// failure per helper's poll), or with `givenUp`, gives it up at once (an exit status
        /// in RestartPreventExitStatus).
        var newVersionExits = false
        var givenUp = false
        var unit = TotemUpdater.UnitState(state: "active", restarts: 0, lastExit: nil)
        var installFails = false
        /// What the target's install does to the database (a migration of its own).
        var onInstall: ((String) -> Void)?
        var clock = Date(timeIntervalSince1970: 1_800_000_000)
        var steps: [String] = []
        var active = true
        /// The manifest the hub sends with a target when `answer` names none: by default one
        /// the release key signed, of the package `fetch` makes.
        var vouch: ((String, Date) -> String?)? = { version, now in TotemUpdaterTests.manifest(version, at: now) }

        func installedVersion() throws -> String? { installed }
        func window() throws -> UpdateWindowReport {
            guard active else { throw CodedError(.daemonNotRunning, "clupd is stopped") }
            var answer = answer
            if answer.manifest == nil, let target = answer.target { answer.manifest = vouch?(target, clock) }
            if answer.runningManifest == nil, let installed { answer.runningManifest = vouch?(installed, clock) }
            return answer
        }
        /// The package `fetch` would leave in `work`'s cache, made there as it would.
        func fetchedPath(_ work: String, _ version: String) -> String {
            let cache = work + "/cache"
            try? FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
            let path = TotemUpdater.cachedPackage(version, in: cache)
            FileManager.default.createFile(atPath: path, contents: Data("package \(version)".utf8))
            return path
        }
        /// What happens as a package is fetched (a customer arriving, say).
        var onFetch: ((String) -> Void)?
        func fetch(_ version: String, into cache: String) throws -> String {
            steps.append("fetch \(version)")
            onFetch?(version)
            let path = TotemUpdater.cachedPackage(version, in: cache)
            FileManager.default.createFile(atPath: path, contents: Data("package \(version)".utf8))
            return path
        }
        /// The delta the hub serves (nil: none), what applying it makes, and whether fetching
        /// it fails (the hub answers 500).
        var deltaServed: String?
        var deltaRebuilds = ""
        var deltaFails = false
        var deltaLimits: [Int64] = []
        func architecture() throws -> String { "amd64" }
        func fetchDelta(_ name: String, atMost limit: Int64, into directory: String) throws -> String? {
            deltaLimits.append(limit)
            if deltaFails {
                steps.append("delta \(name), failed")
                throw CodedError(.updateStepFailed, "the delta did not come: 500 Internal Server Error")
            }
            guard let deltaServed else { return nil }
            steps.append("delta \(name)")
            FileManager.default.createFile(atPath: directory + "/" + name, contents: Data(deltaServed.utf8))
            return directory + "/" + name
        }
        func applyDelta(_ delta: String, making path: String) throws {
            steps.append("debpatch")
            FileManager.default.createFile(atPath: path, contents: Data(deltaRebuilds.utf8))
        }
        /// Whether keeping clupd's executable fails (no room), and the version whose clupd
        /// was put back over the installed package's (nil: the package's own runs).
        var keepFails = false
        var clupdPutBack: String?
        func keepClupd(at path: String) throws {
            try? FileManager.default.removeItem(atPath: path)
            if keepFails { throw CodedError(.updateStepFailed, "No space left on device") }
            FileManager.default.createFile(atPath: path, contents: Data("clupd \(installed ?? "?")".utf8))
        }
        func putClupdBack(from path: String) throws {
            let version = String(String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self).dropFirst(6))
            steps.append("clupd \(version) back")
            clupdPutBack = version
            answer.running = version
        }
        /// Whether the update marker stood in `stateDirectory` at each install.
        var underWayAtInstall: [Bool] = []
        var stateDirectory = ""
        /// `dpkg -i` over a half-installed package: here as an install, named apart in `steps`.
        var reinstalling = false
        func reinstall(_ path: String) throws {
            reinstalling = true
            defer { reinstalling = false }
            try install(path)
        }
        /// Whether clupd was in service as each install began.
        var activeAtInstall: [Bool] = []
        func install(_ path: String) throws {
            underWayAtInstall.append(TotemUpdater.updateUnderWay(in: stateDirectory))
            activeAtInstall.append(active)
            let verb = reinstalling ? "reinstall" : "install"
            guard FileManager.default.fileExists(atPath: path) else {
                steps.append("\(verb) \((path as NSString).lastPathComponent), missing")
                throw CodedError(.updateStepFailed, "dpkg: error: cannot access archive '\(path)': No such file or directory")
            }
            let version = String(String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self).dropFirst(8))
            steps.append("\(verb) \(version)")
            if installFails && version != "0.12.0" { throw CodedError(.updateStepFailed, "dpkg: error processing package") }
            installed = version
            clupdPutBack = nil
            answer.running = version
            let good = version == "0.12.0" || newVersionHealthy
            answer.deviceProblems = good ? [] : ["display failed: no framebuffer"]
            active = version == "0.12.0" || newVersionStarts
            // The package's restart is a start by hand: systemd's count of restarts starts again.
            unit = .init(state: active ? "active" : "activating", restarts: 0, lastExit: nil)
            if version != "0.12.0" && newVersionExits && givenUp { unit = .init(state: "failed", restarts: 0, lastExit: "exit status 78") }
            onInstall?(version)
        }
        func clupdActive() -> Bool { active }
        func clupdUnit() -> TotemUpdater.UnitState { unit }
        func stopClupd() throws { steps.append("stop"); active = false }
        func startClupd() throws {
            steps.append("start")
            active = (clupdPutBack ?? installed) == "0.12.0" || newVersionStarts
        }
        func sleep(seconds: Double) {
            clock = clock.addingTimeInterval(seconds)
            if installed != "0.12.0" && newVersionExits && !givenUp {
                unit = .init(state: "activating", restarts: unit.restarts + 1, lastExit: "exit status 1")
            }
        }
        func now() -> Date { clock }
    }

    var root = ""
    var state: String { root + "/state" }
    var work: String { root + "/work" }
    /// What the package ships: the release key's public half.
    var shipped: String { root + "/release-keys.pub" }

    /// The chain's release key (the release manager's), and one the hub made for itself.
    nonisolated(unsafe) static let releaseKey = Curve25519.Signing.PrivateKey()
    nonisolated(unsafe) static let hubsOwnKey = Curve25519.Signing.PrivateKey()

    /// A manifest of `version` (the package `Machine.fetch` makes, unless `contents`) signed
    /// by `key`, issued at `now`, holding `days` days.
    static func manifest(_ version: String, at now: Date, contents: String? = nil, key: Curve25519.Signing.PrivateKey = releaseKey,
                         days: Double = 30, downgradeFrom: [String]? = nil, nextKeys: [String]? = nil,
                         deltaFrom: [String: String]? = nil) -> String {
        let bytes = Data((contents ?? "package \(version)").utf8)
        let hex = { (data: Data) in SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }
        let deltas = deltaFrom?.map { from, delta in
            ReleaseManifest.Delta(from: from, architecture: "amd64", sha256: hex(Data(delta.utf8)), size: Int64(delta.utf8.count))
        }
        let manifest = ReleaseManifest(release: version, packages: [.init(name: "clup-totem", version: version, architecture: "amd64",
                                                                          sha256: hex(bytes), size: Int64(bytes.count))],
                                       issued: now, expires: now.addingTimeInterval(days * 86_400), downgradeFrom: downgradeFrom,
                                       nextKeys: nextKeys, deltas: deltas)
        return (try? SignedReleaseManifest.sign(manifest, with: key).text) ?? ""
    }

    static func line(_ key: Curve25519.Signing.PrivateKey) -> String {
        (try? ReleaseKey(rawRepresentation: key.publicKey.rawRepresentation).line) ?? ""
    }

    override func setUp() {
        root = NSTemporaryDirectory() + "updater-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: shipped, contents: Data("# the chain's\n\(Self.line(Self.releaseKey)) release key\n".utf8))
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: root) }

    func updater(_ machine: Machine) -> TotemUpdater {
        machine.stateDirectory = state
        return TotemUpdater(system: machine, stateDirectory: state, workDirectory: work, deadline: 60, shippedKeys: shipped)
    }

    func report() throws -> UpdateReport {
        try JSONDecoder().decode(UpdateReport.self, from: try XCTUnwrap(FileManager.default.contents(atPath: TotemUpdater.reportPath(in: state))))
    }

    func test_itWaitsWhileTheEntranceIsBusyAndDoesNothingWithoutATarget() throws {
        let machine = Machine()
        machine.answer.idle = false
        machine.answer.why = "a called ticket is on its way to the door"
        XCTAssertEqual(updater(machine).run(), .waiting("a called ticket is on its way to the door"))
        machine.answer.target = nil
        XCTAssertEqual(updater(machine).run(), .nothingToDo("the hub wants no update here"))
        machine.answer.target = "0.12.0"
        XCTAssertEqual(updater(machine).run(), .nothingToDo("clup-totem 0.12.0 is installed"))
        machine.active = false
        guard case .waiting = updater(machine).run() else { return XCTFail("no update while clupd does not answer") }
        XCTAssertEqual(machine.steps, [], "nothing fetched, nothing installed")
    }

    func test_aVersionThatComesUpHealthyIsKeptAndReported() throws {
        let machine = Machine()
        XCTAssertEqual(updater(machine).run(), .installed("0.13.0"))
        XCTAssertEqual(machine.steps, ["fetch 0.13.0", "fetch 0.12.0", "install 0.13.0"])
        let said = try report()
        XCTAssertEqual(said.version, "0.13.0")
        XCTAssertEqual(said.outcome, .installed)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/pending.json"))
        XCTAssertFalse(TotemUpdater.updateUnderWay(in: state), "the marker outlived the update")
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: work + "/cache")),
                       ["clup-totem_0.12.0.deb", "clup-totem_0.13.0.deb"], "the way back stays in the cache")
        XCTAssertEqual(updater(machine).run(), .nothingToDo("clup-totem 0.13.0 is installed"))
    }

    /// Issue 45: a release is rebuilt from a delta from the version installed when its signed
    /// manifest lists one; a delta the hub altered is never applied, and one that rebuilds
    /// something else is never installed: either costs the whole package, never the update.
    func test_aDeltaTheManifestListsSavesTheDownloadAndNothingElseIsTrusted() throws {
        final class Said: @unchecked Sendable { var lines: [String] = [] }
        let said = Said()
        let machine = Machine()
        machine.stateDirectory = state
        let signedDelta = "delta"
        machine.vouch = { version, now in
            TotemUpdaterTests.manifest(version, at: now, deltaFrom: version == "0.12.0" ? nil : ["0.12.0": signedDelta])
        }
        machine.deltaServed = signedDelta
        machine.deltaRebuilds = "package 0.13.0"
        let updater = TotemUpdater(system: machine, stateDirectory: state, workDirectory: work, deadline: 60, shippedKeys: shipped,
                                   say: { said.lines.append($0) })
        XCTAssertEqual(updater.run(), .installed("0.13.0"))
        XCTAssertEqual(machine.steps, ["delta clup-totem_0.12.0_0.13.0_amd64.debdelta", "debpatch", "fetch 0.12.0", "install 0.13.0"],
                       "the target not fetched whole")
        XCTAssertEqual(machine.deltaLimits, [Int64(signedDelta.utf8.count)], "a delta never let grow past its signed size")
        XCTAssertEqual(said.lines, ["clup-totem 0.13.0: rebuilt from a delta from 0.12.0 of 5 bytes, 35.7 % of the package's 14 bytes",
                                    "the way back, clup-totem 0.12.0: fetched whole, 14 bytes"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/delta"), "the delta does not stay")

        // Each time from 0.12.0 again: the hub serves another delta than the signed one (never
        // applied), then one that rebuilds another package (never installed), then answers 500.
        for (version, served, rebuilds, fails) in [("0.14.0", "DELTA", "package 0.14.0", false),
                                                   ("0.15.0", signedDelta, "package 0.15.0, another build", false),
                                                   ("0.16.0", signedDelta, "package 0.16.0", true)] {
            machine.installed = "0.12.0"
            machine.answer.running = "0.12.0"
            machine.answer.target = version
            machine.deltaServed = served
            machine.deltaRebuilds = rebuilds
            machine.deltaFails = fails
            machine.steps = []
            said.lines = []
            XCTAssertEqual(updater.run(), .installed(version))
            XCTAssertEqual(machine.steps.last, "install \(version)")
            XCTAssertTrue(machine.steps.contains("fetch \(version)"), "\(version) fetched whole: \(machine.steps)")
            XCTAssertEqual(machine.steps.contains("debpatch"), version == "0.15.0", "only the signed delta is applied: \(machine.steps)")
            XCTAssertTrue(said.lines.first?.hasPrefix("clup-totem \(version): fetched whole, 14 bytes (the delta from 0.12.0 failed: ") == true,
                          said.lines.first ?? "")
        }
        // A manifest without a delta from the version installed: nothing asked of the hub.
        machine.installed = "0.12.0"
        machine.answer.running = "0.12.0"
        machine.answer.target = "0.17.0"
        machine.vouch = { version, now in TotemUpdaterTests.manifest(version, at: now) }
        machine.steps = []
        XCTAssertEqual(updater.run(), .installed("0.17.0"))
        XCTAssertEqual(machine.steps, ["fetch 0.17.0", "fetch 0.12.0", "install 0.17.0"])
    }

    /// A customer who came while the packages were fetched (a delta rebuilt under TCG takes
    /// minutes) is not made to wait for an install: the next idle run installs from the cache.
    /// A cached target a cut left partial is fetched again, not taken for the hub's forgery.
    func test_theEntranceIsAskedAgainAfterFetchingAndAPartialCachedTargetIsFetchedAgain() throws {
        let machine = Machine()
        machine.onFetch = { version in if version == "0.12.0" { machine.answer.idle = false; machine.answer.why = "someone is in front" } }
        XCTAssertEqual(updater(machine).run(), .waiting("someone is in front"))
        XCTAssertEqual(machine.steps, ["fetch 0.13.0", "fetch 0.12.0"], "nothing installed while someone is in front")
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/pending.json"))
        machine.onFetch = nil
        machine.answer.idle = true
        // The power went as the cached target was written: a partial file.
        FileManager.default.createFile(atPath: TotemUpdater.cachedPackage("0.13.0", in: work + "/cache"), contents: Data("packa".utf8))
        machine.steps = []
        XCTAssertEqual(updater(machine).run(), .installed("0.13.0"))
        XCTAssertEqual(machine.steps, ["fetch 0.13.0", "fetch 0.12.0", "install 0.13.0"], "the partial file fetched again, not refused")

        // The hub paused the rollout while 0.14.0 was fetched: it is not installed.
        let paused = Machine()
        paused.answer.target = "0.14.0"
        paused.onFetch = { version in if version == "0.12.0" { paused.answer.target = nil } }
        XCTAssertEqual(updater(paused).run(),
                       .waiting("the hub no longer wants clup-totem 0.14.0 here (it wants no update): fetched, not installed"))
        XCTAssertEqual(paused.steps, ["fetch 0.14.0", "fetch 0.12.0"])
        XCTAssertEqual(paused.installed, "0.12.0")
    }

    func test_aVersionThatNeverSignalsReadyIsUndoneWithinTheDeadline() throws {
        let machine = Machine()
        machine.newVersionStarts = false
        let began = machine.clock
        XCTAssertEqual(updater(machine).run(),
                       .rolledBack("0.13.0", because: "not healthy within 60 s: clupd is not active (no READY)"))
        XCTAssertEqual(machine.steps, ["fetch 0.13.0", "fetch 0.12.0", "install 0.13.0", "stop", "clupd 0.12.0 back", "start", "install 0.12.0", "start"])
        XCTAssertEqual(machine.installed, "0.12.0")
        XCTAssertLessThanOrEqual(machine.clock.timeIntervalSince(began), 62, "undone when the deadline is up, not later")
        XCTAssertEqual(try report().outcome, .rolledBack)
        // The hub's target stays until the rollout is paused: the helper does not try it again.
        guard case .nothingToDo = updater(machine).run() else { return XCTFail("a version undone here is not tried again by itself") }
        XCTAssertEqual(machine.steps.count, 8)
    }

    /// Issue 45: the way back went through dpkg's unpacking of the whole package (57 s of
    /// the 109 the entrance was out of service for in the VM walk). The clupd before is now
    /// kept at the install and put back at once, in service before its package is.
    func test_theClupdBeforeIsBackInServiceBeforeItsPackageIsReinstalled() throws {
        let machine = Machine()
        machine.newVersionStarts = false
        machine.newVersionExits = true
        XCTAssertEqual(updater(machine).run(),
                       .rolledBack("0.13.0", because: "clupd failed and systemd restarted it 2 times, last exit status 1, 4 s after the install"))
        XCTAssertEqual(machine.activeAtInstall, [true, true], "in service as the target began, and as its way back's package began")
        XCTAssertEqual(Array(machine.steps.suffix(5)), ["stop", "clupd 0.12.0 back", "start", "install 0.12.0", "start"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work).filter { $0.hasPrefix("clupd-") }, [],
                       "the kept clupd goes with the update")

        // No room to keep it: the way back is the package's alone, as before.
        let full = Machine()
        full.newVersionStarts = false
        full.newVersionExits = true
        full.keepFails = true
        full.answer.target = "0.14.0"
        XCTAssertEqual(updater(full).run(),
                       .rolledBack("0.14.0", because: "clupd failed and systemd restarted it 2 times, last exit status 1, 4 s after the install"))
        XCTAssertEqual(Array(full.steps.suffix(3)), ["stop", "install 0.12.0", "start"])
        XCTAssertEqual(full.activeAtInstall, [true, false])
        XCTAssertEqual(full.installed, "0.12.0")
    }

    /// The quick way back on a real file system: clupd's own files (its executable, its
    /// version and data in /usr/share/clup) are kept only when they are the installed
    /// package's (dpkg's MD5), and go back over the files an upgrade's dpkg renamed in their
    /// place; one dpkg never replaced is left alone, and nothing is left beside them. (The
    /// VM update walk failed once without the version: the clupd put back said it ran the
    /// bad release, and the hub took the rollout as done.)
    func test_clupdsOwnFilesAreKeptWhenThePackagesAndGoBackOverTheNewOnes() throws {
        let system = root + "/system", bin = system + "/usr/bin", share = system + "/usr/share/clup"
        let info = system + "/var/lib/dpkg/info"
        for folder in [bin, share + "/printers", info, work] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let files = ["usr/bin/clupd": "clupd 0.12.0", "usr/share/clup/package-version": "0.12.0\n",
                     "usr/share/clup/printers/pdf-80mm.json": "{}"]
        for (file, text) in files { FileManager.default.createFile(atPath: system + "/" + file, contents: Data(text.utf8)) }
        let md5 = { (text: String) in Insecure.MD5.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined() }
        let sums = info + "/clup-totem.md5sums"
        let debian = DebianUpdateSystem(socketPath: root + "/none.sock", aptDirectory: root + "/apt", workDirectory: work, root: system)
        let kept = work + "/clupd-0.12.0"
        XCTAssertThrowsError(try debian.keepClupd(at: kept), "no sums: not kept")
        FileManager.default.createFile(atPath: sums, contents: Data(files.map { "\(md5($0.value))  \($0.key)\n" }.joined().utf8))
        FileManager.default.createFile(atPath: system + "/usr/share/clup/package-version", contents: Data("0.12.0-changed\n".utf8))
        XCTAssertThrowsError(try debian.keepClupd(at: kept), "a file not the package's: nothing kept")
        XCTAssertFalse(FileManager.default.fileExists(atPath: kept))
        FileManager.default.createFile(atPath: system + "/usr/share/clup/package-version", contents: Data("0.12.0\n".utf8))
        try debian.keepClupd(at: kept)

        // dpkg never replaced them: nothing moves, nothing is left beside.
        try debian.putClupdBack(from: kept)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: bin), ["clupd"])

        // An upgrade renames the new files over them; the kept ones go back over those.
        for (file, text) in ["usr/bin/clupd": "clupd 0.13.0", "usr/share/clup/package-version": "0.13.0\n"] {
            FileManager.default.createFile(atPath: system + "/" + file + ".dpkg-new", contents: Data(text.utf8))
            XCTAssertEqual(rename(system + "/" + file + ".dpkg-new", system + "/" + file), 0)
        }
        try debian.putClupdBack(from: kept)
        for (file, text) in files { XCTAssertEqual(try String(contentsOfFile: system + "/" + file, encoding: .utf8), text, file) }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: bin), ["clupd"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: share).sorted(), ["package-version", "printers"])
    }

    /// Issue 45: a release whose clupd exits as it starts was undone only at the deadline
    /// (the entrance out of service for about 4 minutes in the VM walk).
    func test_aVersionWhoseClupdExitsAtStartIsUndoneAtItsSecondFailureNotAtTheDeadline() throws {
        let machine = Machine()
        machine.newVersionStarts = false
        machine.newVersionExits = true
        let began = machine.clock
        XCTAssertEqual(updater(machine).run(),
                       .rolledBack("0.13.0", because: "clupd failed and systemd restarted it 2 times, last exit status 1, 4 s after the install"))
        XCTAssertEqual(machine.steps, ["fetch 0.13.0", "fetch 0.12.0", "install 0.13.0", "stop", "clupd 0.12.0 back", "start", "install 0.12.0", "start"])
        XCTAssertEqual(machine.installed, "0.12.0")
        XCTAssertEqual(machine.underWayAtInstall, [true, true], "the marker stood while each version was installed")
        XCTAssertFalse(TotemUpdater.updateUnderWay(in: state), "the marker outlived the rollback")
        XCTAssertLessThanOrEqual(machine.clock.timeIntervalSince(began), 4, "undone at the second failure, not at the deadline (60 s)")
        XCTAssertEqual(try report().outcome, .rolledBack)
    }

    func test_aVersionSystemdGaveUpOnIsUndoneAtOnce() throws {
        let machine = Machine()
        machine.newVersionStarts = false
        machine.newVersionExits = true
        machine.givenUp = true
        XCTAssertEqual(updater(machine).run(),
                       .rolledBack("0.13.0", because: "clupd failed and systemd gave it up, last exit status 78, 0 s after the install"))
        XCTAssertEqual(machine.installed, "0.12.0")
    }

    /// What `systemctl show` prints, read as the helper reads it.
    func test_systemdsWordOnTheUnitIsRead() throws {
        XCTAssertEqual(DebianUpdateSystem.unitState("ActiveState=activating\nNRestarts=2\nExecMainCode=1\nExecMainStatus=1\n"),
                       .init(state: "activating", restarts: 2, lastExit: "exit status 1"))
        XCTAssertEqual(DebianUpdateSystem.unitState("NRestarts=0\nExecMainCode=2\nExecMainStatus=11\nActiveState=failed"),
                       .init(state: "failed", restarts: 0, lastExit: "signal 11 SIGSEGV"))
        XCTAssertEqual(DebianUpdateSystem.unitState("ActiveState=active\nNRestarts=0\nExecMainCode=0\nExecMainStatus=0\n"),
                       .init(state: "active", restarts: 0, lastExit: nil))
        // The bad release of the VM's update walk: clup-keys (the same clupd) fails, and clupd's
        // start fails on it with no restart to count.
        let keysFailed = DebianUpdateSystem.unitState(
            "Id=clupd.service\nActiveState=inactive\nNRestarts=0\nExecMainCode=0\nExecMainStatus=0\n\n"
            + "Id=clup-keys.service\nActiveState=failed\nNRestarts=0\nExecMainCode=1\nExecMainStatus=1\n")
        XCTAssertEqual(keysFailed, .init(state: "inactive", restarts: 0, lastExit: nil,
                                         neededFailed: "clup-keys.service (last exit status 1)"))
        XCTAssertEqual(keysFailed.plainFailure, "clup-keys.service (last exit status 1) failed: clupd needs it to start")
        XCTAssertNil(DebianUpdateSystem.unitState("Id=clupd.service\nActiveState=active\nNRestarts=0\n\n"
                                                  + "Id=clup-keys.service\nActiveState=active\n").plainFailure)
        // Nothing read (systemctl missing or refusing): nothing failed, the deadline still holds.
        XCTAssertNil(DebianUpdateSystem.unitState("").plainFailure)
        XCTAssertNil(DebianUpdateSystem.unitState("ActiveState=activating\nNRestarts=1\nExecMainCode=1\nExecMainStatus=1").plainFailure)
        XCTAssertNil(DebianUpdateSystem.unitState("NRestarts=99999999999999999999999\nActiveState=active").plainFailure, "an absurd count")
    }

    func test_aVersionWhoseDevicesFailIsUndoneAndTheDatabaseItMigratedIsPutAsideForTheCopy() throws {
        let database = state + "/clup.sqlite"
        let queue = try TotemDatabase.open(path: database)
        let before = try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM grdb_migrations") } ?? 0
        try queue.close()
        let machine = Machine()
        machine.newVersionHealthy = false
        // The new version migrates the database as it starts.
        machine.onInstall = { version in
            guard version == "0.13.0", let queue = try? DatabaseQueue(path: database) else { return }
            try? queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: a migration of 0.13.0')") }
            try? queue.close()
        }
        guard case let .rolledBack(version, because) = updater(machine).run() else { return XCTFail("not undone") }
        XCTAssertEqual(version, "0.13.0")
        XCTAssertTrue(because.hasPrefix("not healthy within 60 s: display failed: no framebuffer"), because)
        XCTAssertTrue(because.hasSuffix("its database, migrated, put aside and the copy from before restored"), because)
        let restored = try DatabaseQueue(path: database)
        XCTAssertEqual(try restored.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM grdb_migrations") }, before,
                       "the database as it was before the update")
        try restored.close()
        let aside = try DatabaseQueue(path: database + ".from-0.13.0")
        XCTAssertEqual(try aside.read { try String.fetchOne($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid DESC LIMIT 1") },
                       "v99: a migration of 0.13.0", "what the new version wrote is kept beside it, for a technician")
        try aside.close()
        let said = try report()
        XCTAssertEqual(said.outcome, .rolledBack)
        XCTAssertTrue(said.detail.contains("display failed"), said.detail)
    }

    /// A device that was wrong before the update is not the new version's fault.
    func test_whatWasWrongBeforeIsNotBlamedOnTheNewVersion() throws {
        let machine = Machine()
        machine.answer.deviceProblems = ["door-reader missing: /dev/input/by-id/wedge is gone"]
        machine.answer.printerReady = false
        machine.onInstall = { _ in
            machine.answer.deviceProblems = ["door-reader missing: /dev/input/by-id/wedge is gone"]
            machine.answer.printerReady = false
        }
        XCTAssertEqual(updater(machine).run(), .installed("0.13.0"))
        // A new problem is: the display fails only under the new version.
        let again = Machine()
        again.answer.target = "0.14.0"
        again.answer.deviceProblems = ["door-reader missing: gone"]
        again.onInstall = { version in
            if version == "0.14.0" { again.answer.deviceProblems = ["door-reader missing: gone", "display fault: no framebuffer"] }
        }
        guard case let .rolledBack(_, because) = updater(again).run() else { return XCTFail("not undone") }
        XCTAssertEqual(because, "not healthy within 60 s: display fault: no framebuffer")
    }

    func test_aFailedInstallIsUndoneAndARunCutShortIsFinishedByTheNext() throws {
        let machine = Machine()
        machine.installFails = true
        guard case let .rolledBack(_, because) = updater(machine).run() else { return XCTFail("not undone") }
        XCTAssertTrue(because.hasPrefix("the install failed: dpkg: error processing package"), because)
        XCTAssertEqual(machine.installed, "0.12.0")
        // A run cut short after the install (a power cut): the next one checks the new clupd and keeps it.
        try FileManager.default.removeItem(atPath: TotemUpdater.reportPath(in: state))
        machine.installFails = false
        machine.answer.target = "0.14.0"
        let cut = TotemUpdater.Pending(target: "0.14.0", previous: "0.12.0", previousPackage: work + "/cache/clup-totem_0.12.0.deb",
                                       targetPackage: work + "/cache/clup-totem_0.14.0.deb", databaseCopy: nil, schema: nil,
                                       startedAt: machine.clock, problemsBefore: [], printerReadyBefore: true)
        try updater(machine).write(cut)
        machine.installed = "0.14.0"
        machine.answer.running = "0.14.0"
        XCTAssertEqual(updater(machine).run(), .installed("0.14.0"))
        XCTAssertEqual(try report().detail, "healthy after a run cut short")
    }

    func test_aRunCutShortWhileDpkgUnpackedInstallsTheTargetAgainBeforeJudgingIt() throws {
        let machine = Machine()
        machine.answer.target = "0.13.0"
        let cut = TotemUpdater.Pending(target: "0.13.0", previous: "0.12.0", previousPackage: machine.fetchedPath(work, "0.12.0"),
                                       targetPackage: machine.fetchedPath(work, "0.13.0"), databaseCopy: nil, schema: nil,
                                       startedAt: machine.clock, problemsBefore: [], printerReadyBefore: true)
        try updater(machine).write(cut)
        // The power went while dpkg unpacked: the package is half-installed (dpkg-query does
        // not say "installed"), yet the new clupd, whose files were in place, answers.
        machine.installed = nil
        machine.answer.running = "0.13.0"
        XCTAssertEqual(updater(machine).run(), .installed("0.13.0"))
        XCTAssertEqual(machine.steps, ["reinstall 0.13.0"], "the cached target installed again (dpkg -i) before it is judged")
        XCTAssertEqual(machine.installed, "0.13.0")

        // Cut before dpkg changed anything, and the cached target is gone: the way back is taken.
        let second = Machine()
        second.answer.target = "0.13.0"
        try updater(second).write(cut)
        try FileManager.default.removeItem(atPath: cut.targetPackage)
        guard case let .rolledBack(_, because) = updater(second).run() else { return XCTFail("not undone") }
        XCTAssertTrue(because.hasPrefix("the install cut short could not be finished (dpkg left clup-totem at 0.12.0)"), because)
        XCTAssertTrue(because.hasSuffix("cannot access archive '\(cut.targetPackage)': No such file or directory"), because)
        XCTAssertEqual(second.steps, ["reinstall clup-totem_0.13.0.deb, missing", "stop", "install 0.12.0", "start"])
        XCTAssertEqual(second.installed, "0.12.0")
    }

    func test_aRunCutShortWhileUndoingFinishesTheWayBackAndNeverInstallsTheTargetAgain() throws {
        let machine = Machine()
        machine.newVersionExits = true
        machine.givenUp = true
        // The way back fails at first (its package gone from the cache): the run ends with
        // the undoing written down, as a power cut in the middle of it would leave it.
        let cache = work + "/cache"
        machine.onInstall = { version in
            if version == "0.13.0" { try? FileManager.default.removeItem(atPath: TotemUpdater.cachedPackage("0.12.0", in: cache)) }
        }
        guard case let .failed(_, because) = updater(machine).run() else { return XCTFail("the way back did not fail") }
        XCTAssertTrue(because.hasPrefix("clupd failed and systemd gave it up"), because)
        let left = try XCTUnwrap(updater(machine).loadPending(), "pending.json kept for the next run")
        let reason = try XCTUnwrap(left.rollingBack, "the reason for undoing written down")
        XCTAssertTrue(because.hasPrefix(reason), "\(reason) / \(because)")
        // The next run finishes the way back, and the bad release is not tried again.
        machine.steps = []
        machine.onInstall = nil
        _ = machine.fetchedPath(work, "0.12.0")
        guard case let .rolledBack(_, detail) = updater(machine).run() else { return XCTFail("not undone") }
        XCTAssertEqual(machine.steps, ["stop", "clupd 0.12.0 back", "start", "install 0.12.0", "start"])
        XCTAssertTrue(detail.contains("the way back finished by the run after one cut short"), detail)
        XCTAssertEqual(machine.installed, "0.12.0")
        XCTAssertNil(updater(machine).loadPending(), "nothing left to finish")
    }

    // MARK: The release manager's word

    func refusal(_ outcome: TotemUpdater.Outcome) -> String {
        guard case let .refused(_, because) = outcome else { XCTFail("not refused: \(outcome)"); return "" }
        return because
    }

    func test_aReleaseTheHubSignedAloneOrThatWasAlteredIsRefusedAndNothingChanges() throws {
        let machine = Machine()
        // Signed by a key of the hub's own: nothing fetched, nothing installed, and the hub hears why.
        machine.answer.manifest = Self.manifest("0.13.0", at: machine.clock, key: Self.hubsOwnKey)
        let signedAlone = refusal(updater(machine).run())
        XCTAssertTrue(signedAlone.hasPrefix("refused: E-UPD-005 the release manifest is signed by "), signedAlone)
        XCTAssertTrue(signedAlone.contains("not by a release key trusted here"), signedAlone)
        XCTAssertEqual(machine.steps, [])
        XCTAssertEqual(machine.installed, "0.12.0")
        let said = try report()
        XCTAssertEqual(said.outcome, .failed, "a refusal reaches every hub as a failure, which pauses the rollout")
        XCTAssertTrue(said.isRefusal)
        XCTAssertEqual(updater(machine).run(), .nothingToDo("clup-totem 0.13.0 failed here before (\(said.detail)); it is not tried again by itself"),
                       "the same manifest is not tried again")
        machine.answer.manifest = machine.answer.manifest.map { "  " + $0.replacingOccurrences(of: ",", with: " , ") + "\n" }
        guard case .nothingToDo = updater(machine).run() else { return XCTFail("the same manifest, its text reformatted, was tried again") }

        // A manifest the release key signed, then edited (another SHA-256 put in).
        let signed = Self.manifest("0.13.0", at: machine.clock)
        var envelope = try JSONDecoder().decode([String: AnyCodable].self, from: Data(signed.utf8))
        let payload = String(decoding: Data(base64Encoded: try XCTUnwrap(envelope["payload"]?.text))!, as: UTF8.self)
        let edited = payload.replacingOccurrences(of: "\"size\" : 14", with: "\"size\" : 15")
        XCTAssertNotEqual(edited, payload)
        envelope["payload"] = AnyCodable(text: Data(edited.utf8).base64EncodedString())
        machine.answer.manifest = String(decoding: try JSONEncoder().encode(envelope), as: UTF8.self)
        let tampered = refusal(updater(machine).run())
        XCTAssertTrue(tampered.contains("does not verify: the manifest was altered after signing"), tampered)

        // A package altered after signing: fetched, found not to be the one listed, thrown away.
        machine.answer.manifest = Self.manifest("0.13.0", at: machine.clock, contents: "package 0.13.0 as the release manager built it")
        let altered = refusal(updater(machine).run())
        XCTAssertTrue(altered.hasPrefix("refused: E-UPD-005 the clup-totem 0.13.0 the hub served (SHA-256 "), altered)
        XCTAssertEqual(machine.steps, ["fetch 0.13.0"], "fetched and checked, never installed")
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/cache/clup-totem_0.13.0.deb"), "the altered package is not kept")
        XCTAssertEqual(machine.installed, "0.12.0")

        // No manifest at all (a hub from before manifests).
        machine.answer.manifest = nil
        machine.vouch = nil
        machine.answer.target = "0.13.1"
        XCTAssertEqual(refusal(updater(machine).run()),
                       "refused: E-UPD-005 the hub sent no signed release manifest with clup-totem 0.13.1")
    }

    func test_anExpiredManifestIsRefusedAndAFreshOneIsTaken() throws {
        let machine = Machine()
        machine.answer.manifest = Self.manifest("0.13.0", at: machine.clock.addingTimeInterval(-31 * 86_400))
        let expired = refusal(updater(machine).run())
        XCTAssertTrue(expired.hasPrefix("refused: E-UPD-006 the release manifest of 0.13.0 expired at "), expired)
        XCTAssertEqual(machine.steps, [])
        // The release manager signs it again; the hub sends the fresh one: it is tried.
        machine.answer.manifest = Self.manifest("0.13.0", at: machine.clock)
        XCTAssertEqual(updater(machine).run(), .installed("0.13.0"))
    }

    /// A clock set back does not bring an expired manifest back: once a manifest issued on
    /// day 20 was seen, one that expired on day 5 is expired, though the clock says day 0.
    func test_aClockSetBackDoesNotMakeAnExpiredManifestGoodAgain() throws {
        let machine = Machine()
        let start = machine.clock
        machine.clock = start.addingTimeInterval(20 * 86_400)
        machine.answer.target = "0.13.0"
        XCTAssertEqual(updater(machine).run(), .installed("0.13.0"))
        machine.clock = start
        machine.answer.target = "0.14.0"
        machine.answer.manifest = Self.manifest("0.14.0", at: start.addingTimeInterval(-25 * 86_400))
        let expired = refusal(updater(machine).run())
        XCTAssertTrue(expired.hasPrefix("refused: E-UPD-006 the release manifest of 0.14.0 expired at "), expired)
        XCTAssertTrue(expired.hasSuffix("its clock may be behind"), expired)
        XCTAssertEqual(machine.installed, "0.13.0")
    }

    /// A manifest issued in this clock's future (a wrong date at signing) raises the floor
    /// to now only: the next honest manifest still passes.
    func test_aManifestIssuedInTheFutureDoesNotLockTheTotemOut() throws {
        let machine = Machine()
        machine.answer.manifest = Self.manifest("0.13.0", at: machine.clock.addingTimeInterval(500 * 86_400))
        XCTAssertEqual(updater(machine).run(), .installed("0.13.0"))
        machine.answer.target = "0.14.0"
        machine.answer.manifest = Self.manifest("0.14.0", at: machine.clock)
        XCTAssertEqual(updater(machine).run(), .installed("0.14.0"))
    }

    func test_aDowngradeIsRefusedUnlessItsSignedManifestAllowsIt() throws {
        let machine = Machine()
        machine.answer.target = "0.11.2"
        let down = refusal(updater(machine).run())
        XCTAssertEqual(down, "refused: E-UPD-007 clup-totem 0.11.2 is older than 0.12.0, installed, and its signed manifest does not allow going down from it")
        machine.answer.manifest = Self.manifest("0.11.2", at: machine.clock, downgradeFrom: ["0.12.0"])
        XCTAssertEqual(updater(machine).run(), .installed("0.11.2"))
    }

    func test_theShippedKeyIsTrustedAndOnlyAManifestItSignedHandsOverToANewOne() throws {
        let next = Curve25519.Signing.PrivateKey()
        let machine = Machine()
        machine.answer.manifest = Self.manifest("0.13.0", at: machine.clock, nextKeys: [Self.line(next)])
        XCTAssertEqual(updater(machine).run(), .installed("0.13.0"))
        // The package the totem now runs may ship any key: the one trusted is the one handed over.
        FileManager.default.createFile(atPath: shipped, contents: Data("\(Self.line(Self.hubsOwnKey))\n".utf8))
        machine.answer.target = "0.14.0"
        machine.answer.manifest = Self.manifest("0.14.0", at: machine.clock)
        XCTAssertTrue(refusal(updater(machine).run()).contains("not by a release key trusted here"), "the old key no longer vouches")
        // (A manifest of its own, not the same one signed again: a refusal is tried again only for another manifest.)
        machine.answer.manifest = Self.manifest("0.14.0", at: machine.clock.addingTimeInterval(1), key: Self.hubsOwnKey)
        XCTAssertTrue(refusal(updater(machine).run()).contains("not by a release key trusted here"), "nor does what the package ships")
        machine.answer.manifest = Self.manifest("0.14.0", at: machine.clock, key: next)
        XCTAssertEqual(updater(machine).run(), .installed("0.14.0"))
    }

    func test_theCopyToGoBackToIsCheckedTooAndAManifestOfItIsKept() throws {
        let machine = Machine()
        // The hub sends no manifest of the version running, and none is kept: no update.
        machine.answer.runningManifest = nil
        let vouch = machine.vouch
        machine.vouch = { version, now in version == "0.12.0" ? nil : vouch?(version, now) }
        let none = refusal(updater(machine).run())
        XCTAssertTrue(none.hasPrefix("refused: E-UPD-005 no signed manifest vouches for clup-totem 0.12.0, the version running"), none)
        XCTAssertEqual(machine.steps, [])
        // On another totem, the hub serves as the version running a package of its own: found
        // before any install (the release manager's manifest lists another file).
        let other = TotemUpdater(system: machine, stateDirectory: state, workDirectory: root + "/other", deadline: 60, shippedKeys: shipped)
        machine.answer.runningManifest = Self.manifest("0.12.0", at: machine.clock, contents: "package 0.12.0 as the release manager built it")
        let altered = refusal(other.run())
        XCTAssertTrue(altered.hasPrefix("refused: E-UPD-005 the way back: the clup-totem 0.12.0 the hub served"), altered)
        XCTAssertEqual(machine.steps, ["fetch 0.13.0", "fetch 0.12.0"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/other/cache/clup-totem_0.12.0.deb"), "the altered way back is not kept")
        XCTAssertEqual(machine.installed, "0.12.0")
        try FileManager.default.removeItem(atPath: TotemUpdater.reportPath(in: state))
        // A manifest of the version running, even expired, vouches for its files: the update goes on.
        machine.answer.runningManifest = Self.manifest("0.12.0", at: machine.clock.addingTimeInterval(-400 * 86_400))
        XCTAssertEqual(updater(machine).run(), .installed("0.13.0"))
        // Next, the hub withholds the manifest of 0.13.0: the one kept when it was installed does.
        machine.answer.target = "0.14.0"
        machine.answer.runningManifest = nil
        machine.vouch = { version, now in version == "0.13.0" ? nil : vouch?(version, now) }
        XCTAssertEqual(updater(machine).run(), .installed("0.14.0"))
    }
}

/// A JSON value of an envelope's string fields, for editing one in a test.
struct AnyCodable: Codable {
    var text: String?
    var items: [[String: String]]?

    init(text: String) { self.text = text }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        text = try? container.decode(String.self)
        items = text == nil ? try container.decode([[String: String]].self) : nil
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let text { try container.encode(text) } else { try container.encode(items) }
    }
}

/// Debian's order of versions, as the helper decides a downgrade with it: the same as dpkg's.
final class DebianVersionTests: XCTestCase {
    func test_versionsAreOrderedAsDpkgOrdersThem() throws {
        let versions = ["0.12.0", "0.12.0+update1", "0.12.0~rc1", "0.13.0", "0.100.0", "0.99.0", "1.0", "1.0-1", "1.0-1.1", "1.0-2",
                        "1:0.1", "2:0.1", "1.0a", "1.0~", "1.0~~", "1.0+b1", "01.0", "1.00", "1.0.0", "0.12.0+update2", "1.0-0",
                        "9", "10", "1.0-a", "1.0-~"]
        // One shell asks dpkg of every pair (the versions hold no quote).
        let pairs = versions.flatMap { a in versions.map { b in (a, b) } }
        let script = pairs.map { "dpkg --compare-versions '\($0.0)' lt '\($0.1)' && echo 1 || echo 0" }.joined(separator: "\n")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let said = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let answers = String(decoding: said, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(answers.count, pairs.count)
        var checked = 0
        for ((a, b), answer) in zip(pairs, answers) {
            XCTAssertEqual(DebianVersion.isOlder(a, than: b), answer == "1", "\(a) < \(b)")
            checked += 1
        }
        XCTAssertEqual(checked, versions.count * versions.count, "every pair checked")
    }
}
