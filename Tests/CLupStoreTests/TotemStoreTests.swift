import CLupCore
import Crypto
@testable import CLupStore
import Foundation
import GRDB
import XCTest

final class TotemStoreTests: XCTestCase {
    var directory: URL!
    let day = BusinessDay("2026-11-21")
    nonisolated(unsafe) static let key = Curve25519.Signing.PrivateKey()
    let issuer = TicketIssuer(store: 7, totem: "A", validMinutes: 240, key: TotemStoreTests.key)
    let policy = QueuePolicy(capacity: 4, priorityShare: 0.25)
    let start = Date(timeIntervalSince1970: 1_795_000_000.123456)

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("clup-store-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    var path: String { directory.appendingPathComponent("clup.sqlite").path }

    func openStore() throws -> TotemStore {
        try TotemStore(path: path, deviceID: "store-7-totem-A")
    }

    /// Runs `command` on `state` and commits what it did, as the kiosk does.
    func run(_ store: TotemStore, _ state: inout DayState, at instant: Date,
             _ command: (inout DayState) throws -> [DomainEvent]) throws {
        var next = state
        let events = try command(&next)
        try store.commit(events, state: next, at: instant)
        state = next
    }

    /// A day with a ticket through every state, passages both ways and a correction.
    func busyDay(_ store: TotemStore) throws -> DayState {
        var state = DayState(businessDay: day)
        var codes: [String] = []
        for minute in 0..<6 {
            let now = start.addingTimeInterval(Double(minute) * 60)
            try run(store, &state, at: now) { day in
                let events = try day.issue(minute == 3 ? .priority(.disability) : .regular, issuer: issuer, at: now, policy: policy)
                if case let .ticketIssued(ticket)? = events.first { codes.append(ticket.code) }
                return events
            }
        }
        let printing = state.tickets.values.sorted { $0.issuedAt < $1.issuedAt }
        for (index, ticket) in printing.enumerated() {
            try run(store, &state, at: start) { day in
                index == 5 ? day.recordPrintFailed(ticket.number, reason: "E-PRN-003 printer out of paper")
                    : day.recordSubmitted(ticket.number, job: index + 1) + day.recordPrinted(ticket.number, job: index + 1)
            }
        }
        let later = start.addingTimeInterval(600)
        try run(store, &state, at: later) { $0.callWhileRoom(at: later, policy: policy) }
        try run(store, &state, at: later) { try $0.admit(code: codes[0], keyring: TicketKeyring(store: 7, keys: ["A": Self.key.publicKey]), at: later, policy: policy) }
        try run(store, &state, at: later) { $0.pass(.entry, door: "main", at: later) }
        try run(store, &state, at: later) { $0.pass(.exit, door: "main", at: later.addingTimeInterval(30)) }
        try run(store, &state, at: later) { $0.pass(.exit, door: "main", at: later.addingTimeInterval(95)) }
        try run(store, &state, at: later) { try $0.correct(door: "main", delta: 1, by: "tech", reason: "tailgater", at: later) }
        let expiry = later.addingTimeInterval(policy.presentationWindow)
        try run(store, &state, at: expiry) { $0.expireWindows(at: expiry, policy: policy) }
        return state
    }

    func test_everyCommittedChangeIsThereAfterReopening() throws {
        var store: TotemStore? = try openStore()
        let state = try busyDay(store!)
        store = nil
        let reopened = try openStore()
        XCTAssertEqual(try reopened.loadDay(day), state)
        XCTAssertEqual(Set(state.tickets.values.map(\.state)), [.entered, .noShow, .printFailed, .waiting],
                       "the busy day covers these states")
    }

    func test_replayingTheLogRebuildsTheStoredState() throws {
        let store = try openStore()
        let state = try busyDay(store)
        XCTAssertEqual(try store.replayDay(day), try store.loadDay(day))
        XCTAssertEqual(try store.replayDay(day), state)
    }

    func test_theEventLogIsNumberedWithoutGaps() throws {
        let store = try openStore()
        _ = try busyDay(store)
        let events = try store.events()
        XCTAssertEqual(events.map(\.seq), Array(1...events.count))
        XCTAssertEqual(events.first?.type, "ticket.issued")
        XCTAssertEqual(try store.events(after: 5).first?.seq, 6)
    }

    func test_aCommitThatFailsWritesNothing() throws {
        let store = try openStore()
        var state = DayState(businessDay: day)
        var other = DayState(businessDay: BusinessDay("2026-11-22"))
        let foreign = try other.issue(.regular, issuer: issuer, at: start, policy: policy)
        XCTAssertThrowsError(try store.commit(foreign, state: state, at: start))
        let events = try state.issue(.regular, issuer: issuer, at: start, policy: policy)
        try store.commit(events, state: state, at: start)
        XCTAssertEqual(try store.events().count, 1)
        XCTAssertEqual(try store.loadDay(day), state)
    }

    func test_aCommitThatFailsHalfWayLeavesNoEventBehind() throws {
        let store = try openStore()
        var state = DayState(businessDay: day)
        try run(store, &state, at: start) { try $0.issue(.regular, issuer: issuer, at: start, policy: policy) }
        // A second ticket with the first one's code: its event row is written, then the
        // ticket row breaks the UNIQUE code constraint, so the whole transaction must go.
        let first = try XCTUnwrap(state.tickets.values.first)
        let clash = Ticket(number: TicketNumber(totem: "A", lane: .regular, sequence: 2), businessDay: day,
                           issuedAt: start, state: .printing, code: first.code)
        var broken = state
        broken.apply(.ticketIssued(clash))
        XCTAssertThrowsError(try store.commit([.ticketIssued(clash)], state: broken, at: start))
        XCTAssertEqual(try store.events().count, 1, "the failed transaction left an event")
        XCTAssertEqual(try store.loadDay(day), state)
    }

    func test_daysAreKeptApart() throws {
        let store = try openStore()
        var today = DayState(businessDay: day)
        try run(store, &today, at: start) { $0.pass(.entry, door: "main", at: start) }
        XCTAssertEqual(try store.loadDay(BusinessDay("2026-11-22")).inside, 0)
        XCTAssertEqual(try store.loadDay(day).inside, 1)
    }

    func test_aCorruptFileIsRefusedAndLeftAsItWas() throws {
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try openStore()) { error in
            XCTAssertTrue("\(error)".contains("is not a readable SQLite database"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), garbage)
    }

    func test_anotherProgramsDatabaseIsRefused() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, "CREATE TABLE photos (id INTEGER PRIMARY KEY);"]
        try process.run()
        process.waitUntilExit()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try openStore()) { error in
            XCTAssertTrue("\(error)".contains("another program"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "the other program's file was changed")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-wal"))
    }
}

/// The settings durability rests on, read back from SQLite itself.
final class DurabilitySettingsTests: XCTestCase {
    func test_theWriterUsesWALAndSyncsEveryCommit() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("clup-durable-\(UUID()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try TotemStore(path: path, deviceID: "t")
        let (journal, synchronous) = try store.database.writeWithoutTransaction { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"))
        }
        XCTAssertEqual(journal, "wal")
        XCTAssertEqual(synchronous, 2, "PRAGMA synchronous = FULL")
    }
}
