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
            _ = try StaffController(kiosk: daemon.kiosk, technicians: daemon.technicians)
                .putTechnician(technician.name, secret: try PinHash.make(pin: technician.secret), replacing: false, by: "root", uid: 0, from: "a test")
        }
        defer { daemon.server.stopListening() }
        let router = daemon.controlRouter()
        daemon.server.start(on: daemon.loop) { body, peer in router.answer(body, from: peer) }
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

    /// clupctl can send every command there is, so clupd must answer each: none is left
    /// to "not a control request this clupd understands".
    func test_everyCommandHasAHandler() throws {
        let daemon = try Daemon(options: DaemonOptions(stateDirectory: directory + "/state", configPath: directory + "/clupd.toml",
                                                       socketPath: directory + "/control.sock", simulate: true))
        defer { daemon.server.stopListening() }
        XCTAssertEqual(daemon.controlRouter().routedNames.sorted(), Control.all.map { $0.wireName }.sorted())
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
                _ = try client.send(Control.Status())
                _ = try client.send(Control.Metrics())
                answered += 2
            }
            let afterReads = try Self.auditEntries(store).count
            _ = try? client.send(Control.VoidTicket(number: "A-001", reason: "printed twice"))
            return (before, answered, afterReads, try Self.auditEntries(store))
        }
        XCTAssertEqual(answered, 100)
        XCTAssertEqual(afterReads, before, "status and metrics are routine reads: not audited")
        XCTAssertEqual(afterVoid.count, before + 1, "a void is audited")
        XCTAssertEqual(afterVoid.last?.what, #"void A-001 --reason "printed twice""#)
        // From where: the pid and uid the kernel vouches for, then what the caller says.
        let user = getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? "uid \(getuid())"
        XCTAssertEqual(afterVoid.last?.from, "pid \(getpid()), uid \(getuid()) (\(user)); says \(CallerClaim.current)")
    }

    /// What a caller says of itself is hostile like the rest of the request: each field is
    /// bounded, and the entry that keeps it escapes it once; clupd reads a request that says
    /// nothing of it, and refuses one whose say is not of the right types.
    func test_aCallersSayIsBoundedAndKeptEscapedOnce() throws {
        let lie = CallerClaim(program: "x\n1999-01-01T00:00:00Z  technician tess", terminal: "pts/1\u{1B}[2J", loginUID: 1000,
                              loginName: "tess", sudoUser: String(repeating: "y", count: 300))
        let header = try RequestHeader.read(try ControlCoding.request(Control.Status(), session: nil, quiet: false, caller: lie))
        let said = try XCTUnwrap(header.caller)
        XCTAssertEqual(said.program, "x\n1999-01-01T00:00:00Z  technici…", "32 scalars as sent, then the cut's mark")
        XCTAssertEqual(said.sudoUser, String(repeating: "y", count: CallerClaim.maximumField) + "…")
        var peer = ControlServer.Peer(pid: 4711, uid: 0, gid: 0, groups: [])
        peer.claim = said
        let entry = AuditEntry(role: .technician, who: "-", action: .command, result: "ok", uid: 0, from: peer.origin)
        XCTAssertEqual(entry.from, #"pid 4711, uid 0 (root); says x\n1999-01-01T00:00:00Z  technici… on pts/1\u{1B}[2J, "#
                       + #"login tess (uid 1000), through sudo by "# + String(repeating: "y", count: 32) + "…")
        XCTAssertFalse(TypedText.hasControls(entry.from ?? ""))
        XCTAssertNil(try RequestHeader.read(try ControlCoding.request(Control.Status(), session: nil, quiet: false)).caller)
        XCTAssertThrowsError(try RequestHeader.read(Data(#"{"request":{"status":{}},"caller":{"loginUID":-1}}"#.utf8)))
        XCTAssertThrowsError(try RequestHeader.read(Data(#"{"request":{"status":{}},"caller":{"program":["a"]}}"#.utf8)))
    }

    /// A ticket number typed with a newline is quoted escaped in the error, so neither the
    /// answer nor the trail that keeps it gets a line the technician did not write.
    func test_aSkipOfANumberWithANewlineAnswersOneEscapedLine() throws {
        let forged = "A-001\n1999-01-01T00:00:00Z  technician tess  login  ok"
        let secret = "correct-horse-2026"
        let (message, trail) = try withDaemon(technician: ("tess", secret)) { path, store in
            let login = try ControlClient(socketPath: path).send(Control.Login(name: "tess", secret: secret))
            let client = ControlClient(socketPath: path, session: login.token)
            do {
                _ = try client.send(Control.Skip(number: forged))
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
