@testable import CLupKiosk
import CLupCore
import CLupProtocol
import CLupStore
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
        var installFails = false
        /// What the target's install does to the database (a migration of its own).
        var onInstall: ((String) -> Void)?
        var clock = Date(timeIntervalSince1970: 1_800_000_000)
        var steps: [String] = []
        var active = true

        func installedVersion() throws -> String? { installed }
        func window() throws -> UpdateWindowReport {
            guard active else { throw CodedError(.daemonNotRunning, "clupd is stopped") }
            return answer
        }
        func fetch(_ version: String, into cache: String) throws -> String {
            steps.append("fetch \(version)")
            let path = TotemUpdater.cachedPackage(version, in: cache)
            FileManager.default.createFile(atPath: path, contents: Data("package \(version)".utf8))
            return path
        }
        func install(_ path: String) throws {
            let version = String(String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self).dropFirst(8))
            steps.append("install \(version)")
            if installFails && version != "0.12.0" { throw CodedError(.updateStepFailed, "dpkg: error processing package") }
            installed = version
            answer.running = version
            let good = version == "0.12.0" || newVersionHealthy
            answer.deviceProblems = good ? [] : ["display failed: no framebuffer"]
            active = version == "0.12.0" || newVersionStarts
            onInstall?(version)
        }
        func clupdActive() -> Bool { active }
        func stopClupd() throws { steps.append("stop"); active = false }
        func startClupd() throws { steps.append("start"); active = installed == "0.12.0" || newVersionStarts }
        func sleep(seconds: Double) { clock = clock.addingTimeInterval(seconds) }
        func now() -> Date { clock }
    }

    var root = ""
    var state: String { root + "/state" }
    var work: String { root + "/work" }

    override func setUp() {
        root = NSTemporaryDirectory() + "updater-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: root) }

    func updater(_ machine: Machine) -> TotemUpdater {
        TotemUpdater(system: machine, stateDirectory: state, workDirectory: work, deadline: 60)
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
        XCTAssertEqual(machine.steps, ["fetch 0.12.0", "fetch 0.13.0", "install 0.13.0"])
        let said = try report()
        XCTAssertEqual(said.version, "0.13.0")
        XCTAssertEqual(said.outcome, .installed)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/pending.json"))
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: work + "/cache")),
                       ["clup-totem_0.12.0.deb", "clup-totem_0.13.0.deb"], "the way back stays in the cache")
        XCTAssertEqual(updater(machine).run(), .nothingToDo("clup-totem 0.13.0 is installed"))
    }

    func test_aVersionThatNeverSignalsReadyIsUndoneWithinTheDeadline() throws {
        let machine = Machine()
        machine.newVersionStarts = false
        let began = machine.clock
        XCTAssertEqual(updater(machine).run(),
                       .rolledBack("0.13.0", because: "not healthy within 60 s: clupd is not active (no READY)"))
        XCTAssertEqual(machine.steps, ["fetch 0.12.0", "fetch 0.13.0", "install 0.13.0", "stop", "install 0.12.0", "start"])
        XCTAssertEqual(machine.installed, "0.12.0")
        XCTAssertLessThanOrEqual(machine.clock.timeIntervalSince(began), 62, "undone when the deadline is up, not later")
        XCTAssertEqual(try report().outcome, .rolledBack)
        // The hub's target stays until the rollout is paused: the helper does not try it again.
        guard case .nothingToDo = updater(machine).run() else { return XCTFail("a version undone here is not tried again by itself") }
        XCTAssertEqual(machine.steps.count, 6)
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
}
