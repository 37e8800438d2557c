import CLupCore
import Crypto
@testable import CLupStore
import Foundation
import GRDB
import QueueSimulation
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
                let events = try day.issue(minute == 3 ? .priority(.disability) : .regular, issuer: issuer, at: Moment(wall: now, hubOffset: 0.25),
                                           policy: policy, language: minute == 2 ? "de" : nil)
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
        try run(store, &state, at: later) { $0.callWhileRoom(at: Moment(wall: later), policy: policy) }
        try run(store, &state, at: later) { try $0.admit(code: codes[0], keyring: TicketKeyring(store: 7, keys: ["A": Self.key.publicKey]), at: Moment(wall: later), policy: policy) }
        try run(store, &state, at: later) { $0.pass(.entry, door: "main", at: Moment(wall: later)) }
        try run(store, &state, at: later) { $0.pass(.exit, door: "main", at: Moment(wall: later.addingTimeInterval(30))) }
        try run(store, &state, at: later) { $0.pass(.exit, door: "main", at: Moment(wall: later.addingTimeInterval(95))) }
        try run(store, &state, at: later) { try $0.correct(door: "main", delta: 1, by: "tech", reason: "tailgater", at: Moment(wall: later)) }
        let expiry = later.addingTimeInterval(policy.presentationWindow)
        try run(store, &state, at: expiry) { $0.expireWindows(at: Moment(wall: expiry), policy: policy) }
        try run(store, &state, at: expiry) { try $0.void(number: printing[5].number, by: "tess", reason: "never printed", at: Moment(wall: expiry)) }
        return state
    }

    func test_everyCommittedChangeIsThereAfterReopening() throws {
        var store: TotemStore? = try openStore()
        let state = try busyDay(store!)
        store = nil
        let reopened = try openStore()
        XCTAssertEqual(try reopened.loadDay(day), state)
        XCTAssertEqual(Set(state.tickets.values.map(\.state)), [.entered, .noShow, .voided, .waiting],
                       "the busy day covers these states")
        // What the line, the calls and the door read of a ticket besides its state.
        XCTAssertTrue(state.tickets.values.allSatisfy { $0.takenAt != nil })
        XCTAssertEqual(state.tickets.values.compactMap(\.language), ["de"])
        XCTAssertEqual(state.tickets.values.compactMap(\.voidedBy), ["tess"])
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

    /// The audit trail stays bounded: old entries, and those beyond a count, go once the
    /// hub holds them; an entry not uploaded, every other event and the last seq stay.
    func test_theAuditTrailIsTrimmedOfWhatTheHubHoldsOnly() throws {
        let store = try openStore()
        var state = try busyDay(store)
        let old = start.addingTimeInterval(-100 * 86_400)
        func audit(_ result: String, at instant: Date) throws {
            try run(store, &state, at: instant) { day in
                day.audit(AuditEntry(role: .technician, who: "tess", action: .command, result: result, from: "a test"), at: Moment(wall: instant))
            }
        }
        for index in 0..<3 { try audit("old \(index)", at: old) }
        let afterOld = try store.lastSeq()
        for index in 0..<5 { try audit("new \(index)", at: start) }
        let everyOther = try store.events().filter { $0.type != "staff.audit" }
        let last = try store.lastSeq()

        // The hub holds nothing yet: nothing goes.
        XCTAssertEqual(try store.pruneAuditTrail(keptBefore: start.addingTimeInterval(-86_400), keeping: 2, held: 0), 0)
        // It holds the old ones and two new ones. By age alone (the count far off), the old go.
        XCTAssertEqual(try store.pruneAuditTrail(keptBefore: start.addingTimeInterval(-86_400), keeping: 1000, held: afterOld + 2), 3)
        // By count alone (nothing old is left): the two held new ones beyond the newest two
        // go; the three it does not hold stay, whatever the count.
        XCTAssertEqual(try store.pruneAuditTrail(keptBefore: start.addingTimeInterval(-86_400), keeping: 2, held: afterOld + 2), 2)
        let trail = try store.events(ofTypes: ["staff.audit"]).compactMap { stored -> String? in
            guard case let .audited(entry, _, _) = try stored.decoded() else { return nil }
            return entry.result
        }
        XCTAssertEqual(trail, ["new 2", "new 3", "new 4"])
        XCTAssertEqual(try store.events().filter { $0.type != "staff.audit" }, everyOther, "only audit entries go")
        // Held, old and beyond the count, the log's last event stays: the next seq follows it.
        XCTAssertEqual(try store.pruneAuditTrail(keptBefore: start.addingTimeInterval(86_400), keeping: 1, held: last), 2)
        XCTAssertEqual(try store.lastSeq(), last)
        XCTAssertEqual(try store.events(ofTypes: ["staff.audit"]).map(\.seq), [Int(last)])
    }

    func test_aCommitThatFailsWritesNothing() throws {
        let store = try openStore()
        var state = DayState(businessDay: day)
        var other = DayState(businessDay: BusinessDay("2026-11-22"))
        let foreign = try other.issue(.regular, issuer: issuer, at: Moment(wall: start), policy: policy)
        XCTAssertThrowsError(try store.commit(foreign, state: state, at: start))
        let events = try state.issue(.regular, issuer: issuer, at: Moment(wall: start), policy: policy)
        try store.commit(events, state: state, at: start)
        XCTAssertEqual(try store.events().count, 1)
        XCTAssertEqual(try store.loadDay(day), state)
    }

    func test_aCommitThatFailsHalfWayLeavesNoEventBehind() throws {
        let store = try openStore()
        var state = DayState(businessDay: day)
        try run(store, &state, at: start) { try $0.issue(.regular, issuer: issuer, at: Moment(wall: start), policy: policy) }
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
        try run(store, &today, at: start) { $0.pass(.entry, door: "main", at: Moment(wall: start)) }
        XCTAssertEqual(try store.loadDay(BusinessDay("2026-11-22")).inside, 0)
        XCTAssertEqual(try store.loadDay(day).inside, 1)
    }

    /// The ledger's report reads the day's passages, not the log's: from the day's opening
    /// on, which (as the settings last applied) is found through the log's index by type.
    func test_aDaysEventsAreReadFromItsOpeningThroughTheIndex() throws {
        let store = try openStore()
        let tomorrow = BusinessDay("2026-11-22")
        var first = DayState(businessDay: day)
        try run(store, &first, at: start) { $0.open(after: nil, at: Moment(wall: start), ticketValidity: 3600) }
        for _ in 0..<3 { try run(store, &first, at: start) { $0.pass(.entry, door: "main", at: Moment(wall: start)) } }
        let later = start.addingTimeInterval(86_400)
        var second = DayState(businessDay: tomorrow)
        try run(store, &second, at: later) { $0.open(after: first, at: Moment(wall: later), ticketValidity: 3600) }
        try run(store, &second, at: later) { $0.pass(.exit, door: "main", at: Moment(wall: later)) }
        let types = ["day.opened", "occupancy.passage"]
        let read = try store.events(ofTypes: types, openedOn: tomorrow).map { try $0.decoded() }
        XCTAssertEqual(read.map(\.businessDay), [tomorrow, tomorrow])
        XCTAssertEqual(DayState.replaying(read, businessDay: tomorrow).inside, 2, "3 carried in, 1 out")
        XCTAssertEqual(try store.events(ofTypes: types, openedOn: day).map(\.seq), [1, 2, 3, 4, 5, 6],
                       "from the first day's opening on")
        let plan = try store.database.read { db in
            try Row.fetchAll(db, sql: """
                EXPLAIN QUERY PLAN SELECT * FROM event WHERE device_id = ? AND type IN (?) ORDER BY seq DESC LIMIT 1
                """, arguments: ["store-7-totem-A", "day.opened"]).map { $0["detail"] as String }
        }.joined(separator: " ")
        XCTAssertTrue(plan.contains("event_type"), plan)
    }

    func test_anUnreadableRowIsRebuiltFromTheLogAndAnUnreadableEventNamed() throws {
        let store = try openStore()
        let state = try busyDay(store)
        try store.database.write { db in
            try db.execute(sql: "UPDATE ticket SET state = 'lost', issued_at = 1e308 WHERE number = 'A-002'")
            try db.execute(sql: "UPDATE ledger SET corrections = 9223372036854775807")
            try db.execute(sql: """
                INSERT INTO event (device_id, seq, wall_time, type, payload)
                SELECT device_id, MAX(seq) + 1, 0, 'ticket.called', '{"ticketCalled":{"_0":"not a number"}}' FROM event
                """)
        }
        XCTAssertThrowsError(try store.loadDay(day)) { error in
            XCTAssertEqual(error as? StoreError, .corruptRow(table: "ticket", key: "2026-11-21/A-002"))
        }
        let (opened, problems) = try store.openDay(day)
        XCTAssertEqual(opened, state, "the day the log tells")
        XCTAssertEqual(problems, [
            "E-DB-010 unreadable row 2026-11-21/A-002 in table ticket; the day was rebuilt from the event log",
            "E-DB-012 event \(try store.events().count) (ticket.called) cannot be read; left out",
        ])
        XCTAssertEqual(try store.loadDay(day), state, "the rows were written again from the log")
    }

    func test_aCarriedTicketIsPartOfTheDayItWasCarriedInto() throws {
        let store = try openStore()
        var today = DayState(businessDay: day)
        try run(store, &today, at: start) { try $0.issue(.regular, issuer: issuer, at: Moment(wall: start), policy: policy) }
        let number = try XCTUnwrap(today.tickets.keys.first)
        try run(store, &today, at: start) { $0.recordPrinted(number, job: 1) }
        try run(store, &today, at: start) { $0.pass(.entry, door: "main", at: Moment(wall: start)) }
        var tomorrow = DayState(businessDay: BusinessDay("2026-11-22"))
        let morning = start.addingTimeInterval(3600)
        try run(store, &tomorrow, at: morning) { $0.open(after: today, at: Moment(wall: morning), ticketValidity: 4 * 3600) }
        try run(store, &tomorrow, at: morning) { $0.callWhileRoom(at: Moment(wall: morning), policy: policy) }
        let reopened = try openStore().loadDay(tomorrow.businessDay)
        XCTAssertEqual(reopened, tomorrow)
        XCTAssertEqual(reopened.tickets[number]?.state, .called, "yesterday's ticket, called today")
        XCTAssertEqual(reopened.tickets[number]?.businessDay, day, "it keeps the day it was issued on")
        XCTAssertEqual(reopened.inside, 1, "the person inside still is")
        XCTAssertTrue(reopened.isOpen)
        XCTAssertEqual(try store.dayBefore(tomorrow.businessDay), day)
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

/// Random walks through the store's days (`QueueWalk`), every step committed as the kiosk
/// commits it: what the store keeps is what the rules made, and what its log replays to.
final class StoredWalkTests: XCTestCase {
    func test_theStoredDayEqualsTheWalkedOneAndItsReplay() throws {
        for seed in UInt64(1)...12 {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("clup-walk-\(UUID()).sqlite").path
            defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
            let store = try TotemStore(path: path, deviceID: "store-1-totem-A")
            let walk = try QueueWalk(seed: seed) { step in
                try store.commit(step.events, state: step.after, at: step.now.wall)
            }
            XCTAssertEqual(walk.mismatches, [], "seed \(seed)")
            let day = walk.final.businessDay
            XCTAssertEqual(try store.loadDay(day), walk.final, "seed \(seed): the stored \(day)")
            XCTAssertEqual(try store.replayDay(day), walk.final, "seed \(seed): \(day) replayed from the log")
            XCTAssertGreaterThan(walk.logs.count, 1, "seed \(seed): the walk never rolled over")
        }
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
