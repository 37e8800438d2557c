import CLupCore
@testable import CLupKiosk
import CLupProtocol
import CLupStore
import Foundation
import Logging
import XCTest

/// What a simulated clupd's control socket leaves in the audit trail (its event log, synced
/// to the hub) and in the messages it answers with, driven as clupctl drives it.
final class ControlAuditTests: XCTestCase {
    var directory: String!

    /// Any reply: what is checked here is the trail, not the report.
    struct AnyReply: Decodable {
        init(from decoder: Decoder) throws {}
    }

    override func setUpWithError() throws {
        directory = "/tmp/clup-audit-\(getpid())-\(UInt16.random(in: 0...UInt16.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "[store]\nid = 7\nname = \"Audit test\"\ntimezone = \"UTC\"\n"
            .write(toFile: directory + "/clupd.toml", atomically: true, encoding: .utf8)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs a simulated clupd answering on its control socket while `client` runs on a worker
    /// thread, given the socket's path and clupd's store; returns what `client` returned.
    /// `technician`, if given, is added first, as root adds the first one with clupctl.
    func withDaemon<R: Sendable>(technician: (name: String, secret: String)? = nil,
                                 _ client: @escaping @Sendable (String, TotemStore) throws -> R) throws -> R {
        let daemon = try Daemon(options: DaemonOptions(stateDirectory: directory + "/state", configPath: directory + "/clupd.toml",
                                                       socketPath: directory + "/control.sock", simulate: true))
        if let technician {
            _ = try daemon.putTechnician(technician.name, secret: try PinHash.make(pin: technician.secret), replacing: false,
                                         by: "root", uid: 0)
        }
        defer { daemon.server.stopListening() }
        daemon.server.start(on: daemon.loop) { [unowned daemon] message, peer in try daemon.answer(message, from: peer) }
        var result: Result<R, Error>?
        let path = daemon.server.path
        let store = daemon.kiosk.desk.store
        daemon.loop.background({ Result { try client(path, store) } }) { [unowned daemon] value in
            result = value
            daemon.loop.stop()
        }
        daemon.loop.run()
        return try XCTUnwrap(result).get()
    }

    static func auditEntries(_ store: TotemStore) throws -> [AuditEntry] {
        try store.events(ofTypes: ["staff.audit"]).compactMap {
            guard case let .audited(entry, _, _) = try $0.decoded() else { return nil }
            return entry
        }
    }

    /// A monitoring loop on `status` or a Prometheus scrape of `metrics` must not add an
    /// event to the log the hub keeps each time; a void (refused here: nobody is logged in)
    /// still is audited.
    func test_routineReadsLeaveNoTraceAndAVoidDoes() throws {
        let (before, answered, afterReads, afterVoid) = try withDaemon { path, store in
            let client = ControlClient(socketPath: path)
            let before = try Self.auditEntries(store).count
            var answered = 0
            for _ in 0..<50 {
                _ = try client.send(.status, expecting: AnyReply.self)
                _ = try client.send(.metrics, expecting: AnyReply.self)
                answered += 2
            }
            let afterReads = try Self.auditEntries(store).count
            _ = try? client.send(.void(number: "A-001", reason: "printed twice"), expecting: AnyReply.self)
            return (before, answered, afterReads, try Self.auditEntries(store))
        }
        XCTAssertEqual(answered, 100)
        XCTAssertEqual(afterReads, before, "status and metrics are routine reads: not audited")
        XCTAssertEqual(afterVoid.count, before + 1, "a void is audited")
        XCTAssertEqual(afterVoid.last?.what, #"void A-001 --reason "printed twice""#)
    }

    /// A ticket number typed with a newline is quoted escaped in the error, so neither the
    /// answer nor the trail that keeps it gets a line the technician did not write.
    func test_aSkipOfANumberWithANewlineAnswersOneEscapedLine() throws {
        let forged = "A-001\n1999-01-01T00:00:00Z  technician tess  login  ok"
        let secret = "correct-horse-2026"
        let (message, trail) = try withDaemon(technician: ("tess", secret)) { path, store in
            let login = try ControlClient(socketPath: path).send(.login(name: "tess", secret: secret), expecting: LoginReply.self)
            let client = ControlClient(socketPath: path, session: login.token)
            do {
                _ = try client.send(.skip(number: forged), expecting: AnyReply.self)
                return ("no error", try Self.auditEntries(store))
            } catch let error as CodedError {
                return (error.message, try Self.auditEntries(store))
            }
        }
        XCTAssertEqual(message, #"A-001\n1999-01-01T00:00:00Z  tech… is not a ticket number (like A-017)"#)
        let kept = try XCTUnwrap(trail.last)
        XCTAssertEqual(kept.what, "skip A-001?1999-01-01T00?00?00Z??technician?t")
        XCTAssertTrue(kept.result.hasPrefix(#"E-CTL-009 A-001\\n1999-01-01"#), kept.result)
        for entry in trail {
            XCTAssertFalse(TypedText.hasControls(entry.who + entry.result + (entry.what ?? "")), "\(entry)")
        }
    }
}
