@testable import CLupHub
import CLupCore
import CLupProtocol
import Crypto
import Foundation
import XCTest

/// Rollouts with many simulated totems against the hub's logic and a real PostgreSQL: the
/// stages take in the canaries, then a share of each store, then all, each once the last is
/// healthy for its time; a totem whose update failed pauses it for everyone.
final class RolloutTests: XCTestCase {
    static let version = "0.13.0"

    /// Six stores (7 to 12) of four totems each, A to D.
    func fleet(_ hub: HubFixture) async throws -> [StoreID: [TestTotem]] {
        var stores: [StoreID: [TestTotem]] = [:]
        for store in (7...12).map({ StoreID(String($0)) }) {
            if store != HubFixture.store {
                try await HubAdmin(database: hub.database).createStore(id: store, name: "Store \(store)", capacity: 40)
            }
            for letter in ["A", "B", "C", "D"] {
                stores[store, default: []].append(try await hub.enrol(letter, door: DoorName("door-\(letter)"), store: store))
            }
        }
        return stores
    }

    /// What `totem` is told to run, as its settings say.
    func target(_ hub: HubFixture, _ totem: TestTotem) async throws -> String? {
        try await hub.database.transaction { connection in
            try await StoreSettingsReader.current(store: totem.device.storeID, device: totem.device.deviceID, connection,
                                                  HubFixture.logger)?.targetVersion
        }
    }

    /// `totem`'s upload, its health saying it runs `version` (and how its last update went).
    func report(_ hub: HubFixture, _ totem: TestTotem, runs version: String, update: UpdateReport? = nil,
                at now: Date = Date()) async throws {
        var batch = totem.batch([])
        batch.health = TotemHealth(devices: [], printer: "idle", softwareVersion: version, update: update)
        _ = try await Ingest(database: hub.database).apply(batch, from: totem.device, now: now)
    }

    /// The release manager's key, and a key of the hub's own.
    nonisolated(unsafe) static let releaseKey = Curve25519.Signing.PrivateKey()
    nonisolated(unsafe) static let hubsOwnKey = Curve25519.Signing.PrivateKey()

    /// A repository whose published lists offer clup-totem `versions` (amd64), each file's
    /// SHA-256 that of the text "package V".
    func repository(_ versions: [String]) throws -> ReleaseRepository {
        let repository = ReleaseRepository(stateDirectory: NSTemporaryDirectory() + "releases-\(UUID().uuidString)")
        let folder = repository.publishedDirectory + "/dists/stable/main/binary-amd64"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let stanzas = versions.map { "Package: clup-totem\nVersion: \($0)\nArchitecture: amd64\nSHA256: \(Self.sha256(of: $0))\n" }
        try Data(stanzas.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: folder + "/Packages"))
        return repository
    }

    static func sha256(of version: String, contents: String? = nil) -> String {
        SHA256.hash(data: Data((contents ?? "package \(version)").utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The manifest of `version` signed by `key`, issued at `issued`.
    static func manifest(_ version: String, key: Curve25519.Signing.PrivateKey = releaseKey, issued: Date = Date(), days: Double = 30,
                         contents: String? = nil, supportEnds: Date? = nil) throws -> SignedReleaseManifest {
        let manifest = ReleaseManifest(release: version, packages: [.init(name: "clup-totem", version: version, architecture: "amd64",
                                                                          sha256: sha256(of: version, contents: contents), size: 20)],
                                       issued: Date(timeIntervalSince1970: issued.timeIntervalSince1970.rounded(.down)),
                                       expires: issued.addingTimeInterval(days * 86_400), supportEnds: supportEnds)
        return try SignedReleaseManifest.sign(manifest, with: key)
    }

    /// The release key trusted at the hub and a manifest of each of `versions` added, as
    /// `clup-hub release trust` and `vouch` do.
    func vouch(_ hub: HubFixture, _ versions: [String] = [RolloutTests.version]) async throws {
        let manifests = ReleaseManifests(database: hub.database)
        try await manifests.trust(try ReleaseKey(rawRepresentation: Self.releaseKey.publicKey.rawRepresentation), by: .test)
        let repository = try repository(versions)
        for version in versions { _ = try await manifests.vouch(try Self.manifest(version).json, repository: repository, by: .test) }
    }

    func settingsVersion(_ hub: HubFixture, _ store: String) throws -> Int64 {
        Int64(try hub.sql("SELECT settings_version FROM store WHERE store_id = '\(store)'").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    func test_aRolloutTakesInTheCanariesThenAShareOfEachStoreThenEveryTotem() async throws {
        try await withHub { hub in
            let stores = try await fleet(hub)
            try await vouch(hub)
            let all = stores.values.flatMap { $0 }
            let canaries = [stores["7"]![0], stores["8"]![0]]
            let rollouts = Rollouts(database: hub.database)
            let versionOf9 = try settingsVersion(hub, "9")
            var status = try await rollouts.start(.init(version: Self.version, canaries: canaries.map(\.device.deviceID.rawValue), shares: [25],
                                                        healthySeconds: 60),
                                                  available: ["0.12.0", Self.version], by: .test)
            XCTAssertEqual(status.state, .running)
            XCTAssertEqual(status.targeted, 2)
            for totem in all {
                let told = try await target(hub, totem)
                XCTAssertEqual(told, canaries.contains { $0 === totem } ? Self.version : nil, "\(totem.device.deviceID)")
            }
            // Nothing moves before the canaries run the version and stay healthy for a minute.
            let start = Date()
            var said = try await rollouts.advance(now: start)
            XCTAssertNil(said)
            for totem in canaries { try await report(hub, totem, runs: Self.version) }
            said = try await rollouts.advance(now: start)
            XCTAssertEqual(said, "rollout \(status.id): stage 0 all 2 on \(Self.version)")
            said = try await rollouts.advance(now: start.addingTimeInterval(30))
            XCTAssertNil(said, "healthy for 30 s of 60")
            // A quarter of each store: stores 7 and 8 have theirs (the canaries), the four others one each.
            said = try await rollouts.advance(now: start.addingTimeInterval(61))
            XCTAssertEqual(said, "rollout \(status.id) of \(Self.version): stage 1, 4 more totems")
            status = try await now(rollouts)
            XCTAssertEqual(status.stage, 1)
            XCTAssertEqual(status.targeted, 6)
            var targeted: [StoreID: Int] = [:]
            for totem in all where try await target(hub, totem) == Self.version { targeted[totem.device.storeID, default: 0] += 1 }
            XCTAssertEqual(targeted, ["7": 1, "8": 1, "9": 1, "10": 1, "11": 1, "12": 1])
            XCTAssertGreaterThan(try settingsVersion(hub, "9"), versionOf9, "store 9's totems are told by a new settings version")
            // The stage is healthy only when every totem taken in runs the version.
            for totem in all where try await target(hub, totem) == Self.version {
                try await report(hub, totem, runs: Self.version, at: start.addingTimeInterval(62))
            }
            _ = try await rollouts.advance(now: start.addingTimeInterval(62))
            said = try await rollouts.advance(now: start.addingTimeInterval(123))
            XCTAssertEqual(said, "rollout \(status.id) of \(Self.version): stage 2, 18 more totems")
            for totem in all { try await report(hub, totem, runs: Self.version, at: start.addingTimeInterval(124)) }
            _ = try await rollouts.advance(now: start.addingTimeInterval(124))
            said = try await rollouts.advance(now: start.addingTimeInterval(185))
            XCTAssertEqual(said, "rollout \(status.id) of \(Self.version) done: 24 totems run it")
            status = try await now(rollouts)
            XCTAssertEqual(status.state, .done)
            XCTAssertEqual(status.updated, 24)
            let told = try await target(hub, all[5])
            XCTAssertNil(told, "a rollout that is done asks nothing more")
        }
    }

    func test_aCanaryThatRolledBackPausesTheRolloutForEveryTotem() async throws {
        try await withHub { hub in
            let stores = try await fleet(hub)
            try await vouch(hub)
            let canaries = [stores["7"]![0], stores["8"]![0]]
            let rollouts = Rollouts(database: hub.database)
            _ = try await rollouts.start(.init(version: Self.version, canaries: canaries.map(\.device.deviceID.rawValue), shares: [50],
                                               healthySeconds: 0), available: [Self.version], by: .test)
            try await report(hub, canaries[1], runs: Self.version)
            // The first canary's helper undid the update: it runs the version before again.
            try await report(hub, canaries[0], runs: "0.12.0",
                             update: UpdateReport(version: Self.version, outcome: .rolledBack, detail: "no READY within 120 s",
                                                  at: Date().timeIntervalSince1970))
            var status = try await now(rollouts)
            XCTAssertEqual(status.state, .paused, "paused by the upload that reported it")
            XCTAssertEqual(status.reason, "paused: \(canaries[0].device.deviceID) rolled-back: no READY within 120 s")
            for totem in stores.values.flatMap({ $0 }) {
                let told = try await target(hub, totem)
                XCTAssertNil(told, "\(totem.device.deviceID): a paused rollout asks no totem to install")
            }
            let said = try await rollouts.advance(now: Date().addingTimeInterval(600))
            XCTAssertNil(said, "a paused rollout takes in no more totems")
            let targeted = try await now(rollouts).targeted
            XCTAssertEqual(targeted, 2)
            let row = try hub.sql("SELECT version || ' ' || outcome FROM totem_update WHERE device_id = '\(canaries[0].device.deviceID)'")
            XCTAssertEqual(row.trimmingCharacters(in: .whitespacesAndNewlines), "\(Self.version) rolled-back")
            // An administrator resumes it (the failure stays in the past), then aborts it.
            status = try await rollouts.resume(by: .test)
            XCTAssertEqual(status.state, .running)
            let told = try await target(hub, canaries[1])
            XCTAssertEqual(told, Self.version)
            status = try await rollouts.abort(by: .test)
            XCTAssertEqual(status.state, .aborted)
            let after = try await target(hub, canaries[1])
            XCTAssertNil(after)
            let audit = try hub.sql("SELECT action FROM audit WHERE action LIKE 'rollout%' ORDER BY at, action")
            XCTAssertTrue(audit.contains("paused") && audit.contains("running") && audit.contains("aborted"), audit)
        }
    }

    func test_aRolloutIsRefusedUnlessItsVersionCanariesAndStagesMakeSense() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            try await vouch(hub)
            let rollouts = Rollouts(database: hub.database)
            func refused(_ plan: Rollouts.Plan, _ expected: String, file: StaticString = #filePath, line: UInt = #line) async {
                do {
                    _ = try await rollouts.start(plan, available: [Self.version], by: .test)
                    XCTFail("started: \(plan)", file: file, line: line)
                } catch let error as HubError {
                    XCTAssertTrue(error.coded.message.contains(expected), error.coded.message, file: file, line: line)
                } catch {
                    XCTFail("\(error)", file: file, line: line)
                }
            }
            let id = a.device.deviceID.rawValue
            await refused(.init(version: "9.9.9", canaries: [id], shares: [], healthySeconds: 60), "clup-hub release add it first")
            await refused(.init(version: "0.13.0;x", canaries: [id], shares: [], healthySeconds: 60), "not a Debian version")
            await refused(.init(version: Self.version, canaries: [], shares: [], healthySeconds: 60), "1 to 20 canary totems")
            await refused(.init(version: Self.version, canaries: ["store-7-totem-Q-0000"], shares: [], healthySeconds: 60), "no enrolled totem")
            await refused(.init(version: Self.version, canaries: [id], shares: [50, 10], healthySeconds: 60), "rising")
            await refused(.init(version: Self.version, canaries: [id], shares: [100], healthySeconds: 60), "1 to 99 %")
            await refused(.init(version: Self.version, canaries: [id], shares: [], healthySeconds: .infinity), "7 days")
            _ = try await rollouts.start(.init(version: Self.version, canaries: [id], shares: [], healthySeconds: 60),
                                         available: [Self.version], by: .test)
            await refused(.init(version: Self.version, canaries: [id], shares: [], healthySeconds: 60), "is live: abort it first")
        }
    }

    func test_onlyAVersionASignedManifestVouchesForIsRolledOutAndItsManifestGoesWithIt() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let manifests = ReleaseManifests(database: hub.database)
            let rollouts = Rollouts(database: hub.database)
            let repository = try repository(["0.13.0", "0.14.0"])
            func refused(_ json: Data, now: Date = Date(), _ expected: String, file: StaticString = #filePath, line: UInt = #line) async {
                do {
                    _ = try await manifests.vouch(json, repository: repository, by: .test, now: now)
                    XCTFail("vouched for", file: file, line: line)
                } catch let error as HubError {
                    XCTAssertTrue(error.coded.message.contains(expected), error.coded.message, file: file, line: line)
                } catch {
                    XCTFail("\(error)", file: file, line: line)
                }
            }
            await refused(try Self.manifest("0.13.0").json, "the hub trusts no release key yet")
            try await manifests.trust(try ReleaseKey(rawRepresentation: Self.releaseKey.publicKey.rawRepresentation), by: .test)
            await refused(try Self.manifest("0.13.0", key: Self.hubsOwnKey).json, "not by a release key trusted here")
            await refused(try Self.manifest("0.13.0", contents: "another build").json, "is not the package the manifest vouches for")
            await refused(try Self.manifest("0.15.0").json, "clup-hub release add the package first")
            await refused(Data("{\"payloadType\": 1}".utf8), "not a signed manifest")
            let plan = Rollouts.Plan(version: "0.13.0", canaries: [a.device.deviceID.rawValue], shares: [], healthySeconds: 0)
            do {
                _ = try await rollouts.start(plan, available: ["0.13.0", "0.14.0"], by: .test)
                XCTFail("a version no manifest vouches for was rolled out")
            } catch let error as HubError {
                XCTAssertEqual(error.coded.code, "E-UPD-005")
                XCTAssertTrue(error.coded.message.contains("no signed release manifest vouches for clup-totem 0.13.0"), error.coded.message)
            }
            // A manifest added 31 days ago, with 30 days to run: expired now.
            let month = Date().addingTimeInterval(-31 * 86_400)
            _ = try await manifests.vouch(try Self.manifest("0.14.0", issued: month).json, repository: repository, by: .test, now: month)
            do {
                _ = try await rollouts.start(.init(version: "0.14.0", canaries: plan.canaries, shares: [], healthySeconds: 0),
                                             available: ["0.13.0", "0.14.0"], by: .test)
                XCTFail("a version whose manifest expired was rolled out")
            } catch let error as HubError {
                XCTAssertEqual(error.coded.code, "E-UPD-006")
            }
            let signed = try Self.manifest("0.13.0")
            let vouched = try await manifests.vouch(signed.json, repository: repository, by: .test)
            XCTAssertEqual(vouched.release, "0.13.0")
            await refused(try Self.manifest("0.13.0", issued: Date().addingTimeInterval(-3600)).json, "issued later")
            _ = try await rollouts.start(plan, available: ["0.13.0", "0.14.0"], by: .test)
            // The canary's settings carry the manifest as it was signed: the totem checks it itself.
            let settings = try await hub.database.transaction { connection in
                try await StoreSettingsReader.current(store: a.device.storeID, device: a.device.deviceID, connection, HubFixture.logger)
            }
            XCTAssertEqual(settings?.targetVersion, "0.13.0")
            let sent = try SignedReleaseManifest(json: Data(try XCTUnwrap(settings?.targetManifest).utf8))
            XCTAssertEqual(sent, signed)
            let key = try ReleaseKey(rawRepresentation: Self.releaseKey.publicKey.rawRepresentation)
            XCTAssertEqual(try sent.verify(trusting: [key], now: Date()).release, "0.13.0")
            // The totem refuses (say its package was altered on the way): the rollout pauses with the reason.
            try await report(hub, a, runs: "0.12.0", update: UpdateReport(
                version: "0.13.0", outcome: .failed, detail: "refused: E-UPD-005 the clup-totem 0.13.0 the hub served is not a package its signed manifest lists",
                at: Date().timeIntervalSince1970))
            let status = try await now(rollouts)
            XCTAssertEqual(status.state, .paused)
            XCTAssertEqual(status.reason, "paused: \(a.device.deviceID) refused: E-UPD-005 the clup-totem 0.13.0 the hub served is not a package its signed manifest lists")
            let audit = try hub.sql("SELECT action FROM audit WHERE action LIKE 'release%' ORDER BY at, action")
            XCTAssertTrue(audit.contains("trusted") && audit.contains("release 0.13.0 vouched for"), audit)
        }
    }

    /// A totem on a release line whose support ended (its signed manifest says when) is
    /// flagged in `clup-hub totems` and on the fleet page; one on a supported line is not.
    func test_aTotemOnAReleaseLineOutOfSupportIsFlagged() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let b = try await hub.enrol("B", door: "south")
            let manifests = ReleaseManifests(database: hub.database)
            try await manifests.trust(try ReleaseKey(rawRepresentation: Self.releaseKey.publicKey.rawRepresentation), by: .test)
            let repository = try repository(["0.11.0", "0.13.0"])
            let ended = Date().addingTimeInterval(-86_400), later = Date().addingTimeInterval(5 * 365 * 86_400)
            _ = try await manifests.vouch(try Self.manifest("0.11.0", supportEnds: ended).json, repository: repository, by: .test)
            _ = try await manifests.vouch(try Self.manifest("0.13.0", supportEnds: later).json, repository: repository, by: .test)
            try await report(hub, a, runs: "0.11.0")
            try await report(hub, b, runs: "0.13.0")
            let rows = try await HubAdmin(database: hub.database).totems(store: nil)
            let flagged = rows.filter { $0.outOfSupport(at: Date()) }.map(\.deviceID)
            XCTAssertEqual(flagged, [a.device.deviceID])
            XCTAssertEqual(rows.first { $0.deviceID == b.device.deviceID }?.supportEnds.map { Int($0.timeIntervalSince1970) },
                           Int(later.timeIntervalSince1970), "the day the manifest says, as signed")
        }
    }
}

/// The rollout the hub says is live or last; a test fails without one.
func now(_ rollouts: Rollouts) async throws -> Rollouts.Status {
    let status = try await rollouts.status()
    return try XCTUnwrap(status)
}
