import CLupCore
import Foundation
import GRDB

/// The totem's durable state: tickets, occupancy ledgers, exit history and the event log.
///
/// `commit` writes a command's events and the rows they changed in one transaction, and
/// returns only after SQLite has synced it to disk (WAL, `synchronous=FULL`). The tables
/// are what the events made of the day; the event log is what happened, so where the two
/// cannot both be read, the log wins (`openDay`).
public final class TotemStore: Sendable {
    public let deviceID: String
    public let path: String
    let database: DatabaseQueue
    /// The copy of the database taken before this opening migrated it (and the older copies
    /// pruned), if it did.
    public let copiedBeforeMigrating: TotemBackup.Outcome?

    /// Opens (creating if absent) the database at `path`, migrated (a copy taken first,
    /// into the backups folder beside it, if migrations were due).
    public init(path: String, deviceID: String) throws {
        self.deviceID = deviceID
        self.path = path
        var copied: TotemBackup.Outcome?
        database = try TotemDatabase.open(path: path) { copied = $0 }
        copiedBeforeMigrating = copied
    }

    /// The last seq of the event log, 0 when empty.
    public func lastSeq() throws -> Int64 {
        try database.read { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM event WHERE device_id = ?", arguments: [deviceID]) ?? 0
        }
    }

    /// Appends `events` to the log and writes the tickets, ledgers and exit history they
    /// touched, as `state` (which has them applied) now holds them. All or nothing.
    /// `employees` is a change to the totem's employees made with these events (which audit it).
    public func commit(_ events: [DomainEvent], state: DayState, at wallTime: Date, employees: StaffChange? = nil) throws {
        guard !events.isEmpty else { return }
        if let foreign = events.first(where: { $0.businessDay != state.businessDay }) {
            throw StoreError.foreignDay(expected: state.businessDay.date, got: foreign.businessDay.date)
        }
        do {
            try write(events, state: state, at: wallTime, employees: employees)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            throw StoreError.storageFull(path: path)
        }
    }

    private func write(_ events: [DomainEvent], state: DayState, at wallTime: Date, employees: StaffChange?) throws {
        try database.write { db in
            try employees?.apply(in: db)
            var tickets: Set<TicketNumber> = []
            var doors: Set<String> = []
            var exits = false
            for event in events {
                try EventLog.append(event, deviceID: deviceID, at: wallTime, in: db)
                switch event {
                case let .dayOpened(day, after, inside, carried, at):
                    try db.execute(sql: "INSERT INTO business_day (business_day, opened_at, after) VALUES (?, ?, ?)",
                                   arguments: [day.date, at.storedValue, after?.date])
                    doors.formUnion(inside.keys)
                    tickets.formUnion(carried.map(\.number))
                case let .ticketIssued(ticket), let .ticketFromOtherDoor(ticket, _): tickets.insert(ticket.number)
                case let .ticketSubmitted(number, _, _), let .ticketPrinted(number, _, _),
                     let .ticketPrintFailed(number, _, _), let .ticketCalled(number, _, _, _, _),
                     let .ticketNoShow(number, _, _), let .ticketAdmitted(number, _, _, _),
                     let .admissionLapsed(number, _, _), let .ticketReprinted(number, _, _), let .ticketLeft(number, _, _),
                     let .ticketSkipped(number, _, _, _), let .ticketVoided(number, _, _, _, _):
                    tickets.insert(number)
                case let .passage(direction, door, _, _, ticket, _):
                    doors.insert(door)
                    if let ticket { tickets.insert(ticket) }
                    if direction == .exit { exits = true }
                case let .occupancyCorrected(door, _, _, _, _, _):
                    doors.insert(door)
                case .storeSettingsApplied, .doorLimitApplied, .audited:
                    break
                }
            }
            for number in tickets {
                if let ticket = state.tickets[number] { try TicketRecord(ticket, heldBy: state.businessDay).save(db) }
            }
            for door in doors {
                try Self.saveLedger(state.ledger(door: door), of: state.businessDay, in: db)
            }
            if exits { try Self.saveExitHistory(of: state, in: db) }
        }
    }

    private static func saveLedger(_ ledger: OccupancyLedger, of day: BusinessDay, in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO ledger (business_day, door, carried, entries, exits, corrections) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (business_day, door) DO UPDATE SET carried = excluded.carried,
                entries = excluded.entries, exits = excluded.exits, corrections = excluded.corrections
            """, arguments: [day.date, ledger.door, ledger.carried, ledger.entries, ledger.exits, ledger.corrections])
    }

    private static func saveExitHistory(of state: DayState, in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO exit_history (business_day, mean_exit_interval, last_exit, last_exit_steady) VALUES (?, ?, ?, ?)
            ON CONFLICT (business_day) DO UPDATE SET mean_exit_interval = excluded.mean_exit_interval,
                last_exit = excluded.last_exit, last_exit_steady = excluded.last_exit_steady
            """, arguments: [state.businessDay.date, state.wait.meanExitInterval, state.wait.lastExit?.storedValue,
                             state.wait.lastExitSteady?.storedValue])
    }

    /// The stored state of `businessDay` (empty if nothing happened that day), read from
    /// the tables. Throws `StoreError.corruptRow` for a row no clupd could have written.
    public func loadDay(_ businessDay: BusinessDay) throws -> DayState {
        try database.read { db in
            let tickets = try TicketRecord
                .filter(sql: "business_day = ? OR carried_into = ?", arguments: [businessDay.date, businessDay.date])
                .fetchAll(db)
                .map { try $0.ticket() }
            let ledgers = try Row.fetchAll(db, sql: """
                SELECT door, carried, entries, exits, corrections FROM ledger WHERE business_day = ?
                """, arguments: [businessDay.date]).map { row in
                OccupancyLedger(door: row["door"], carried: row["carried"], entries: row["entries"], exits: row["exits"],
                                corrections: row["corrections"])
            }
            let history = try Row.fetchOne(db, sql: """
                SELECT mean_exit_interval, last_exit, last_exit_steady FROM exit_history WHERE business_day = ?
                """, arguments: [businessDay.date])
            let interval: Double? = history?["mean_exit_interval"]
            let lastExit: Double? = history?["last_exit"]
            let lastExitSteady: String? = history?["last_exit_steady"]
            guard [interval, lastExit].compactMap({ $0 }).allSatisfy(Date.isStorable) else {
                throw StoreError.corruptRow(table: "exit_history", key: businessDay.date)
            }
            let wait = WaitEstimator(meanExitInterval: interval, lastExit: lastExit.map(Date.init(stored:)),
                                     lastExitSteady: lastExitSteady.flatMap(SteadyTime.init(stored:)))
            let isOpen = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM business_day WHERE business_day = ?)",
                                           arguments: [businessDay.date]) ?? false
            return DayState(businessDay: businessDay, tickets: tickets, ledgers: ledgers, wait: wait, isOpen: isOpen)
        }
    }

    /// The latest business day before `businessDay` of which anything is kept.
    public func dayBefore(_ businessDay: BusinessDay) throws -> BusinessDay? {
        try database.read { db in
            try String.fetchOne(db, sql: """
                SELECT MAX(day) FROM (
                    SELECT MAX(business_day) AS day FROM business_day WHERE business_day < ?1
                    UNION ALL SELECT MAX(business_day) FROM ticket WHERE business_day < ?1
                    UNION ALL SELECT MAX(business_day) FROM ledger WHERE business_day < ?1)
                """, arguments: [businessDay.date])
        }.map(BusinessDay.init)
    }

    /// `businessDay` as kept, and what could not be read on the way. When a row cannot be
    /// read, the day is rebuilt from the event log, skipping (and naming) any event that
    /// cannot be read either, and its rows are written again from what the log says: no
    /// stored row or event stops the totem from starting.
    public func openDay(_ businessDay: BusinessDay) throws -> (state: DayState, problems: [String]) {
        do {
            return (try loadDay(businessDay), [])
        } catch let error as StoreError {
            let (state, skipped) = try replayDaySkippingUnreadable(businessDay)
            try rewriteDay(state)
            return (state, ["\(error); the day was rebuilt from the event log"] + skipped)
        }
    }

    /// Writes every row of `state`'s day again, as `state` holds it.
    func rewriteDay(_ state: DayState) throws {
        try database.write { db in
            let day = state.businessDay.date
            try db.execute(sql: "DELETE FROM ticket WHERE business_day = ? OR carried_into = ?", arguments: [day, day])
            try db.execute(sql: "DELETE FROM ledger WHERE business_day = ?", arguments: [day])
            try db.execute(sql: "DELETE FROM exit_history WHERE business_day = ?", arguments: [day])
            for ticket in state.tickets.values { try TicketRecord(ticket, heldBy: state.businessDay).save(db) }
            for ledger in state.ledgers.values { try Self.saveLedger(ledger, of: state.businessDay, in: db) }
            if state.wait.lastExit != nil { try Self.saveExitHistory(of: state, in: db) }
        }
    }

    /// `PRAGMA integrity_check` on a read-only connection of its own (for diagnostics, on a
    /// worker): "ok", or the problems SQLite found, one per line.
    public static func integrityCheck(path: String) -> String {
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            let lines = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check(100)") }
            return lines.joined(separator: "\n") + "\n"
        } catch {
            return "the check could not run: \(error)\n"
        }
    }

    /// The SQLite library's version.
    public static var sqliteVersion: String {
        (try? DatabaseQueue().read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") } ?? nil) ?? "unknown"
    }

    /// This totem's events after `seq`, oldest first.
    public func events(after seq: Int = 0) throws -> [StoredEvent] {
        try database.read { db in
            try StoredEvent
                .filter(sql: "device_id = ? AND seq > ?", arguments: [deviceID, seq])
                .order(sql: "seq")
                .fetchAll(db)
        }
    }

    /// The last `limit` of this totem's events of the given types, oldest first.
    public func lastEvents(ofTypes types: [String], limit: Int) throws -> [StoredEvent] {
        try database.read { db in
            try StoredEvent
                .filter(sql: "device_id = ? AND type IN (\(types.map { _ in "?" }.joined(separator: ", ")))",
                        arguments: StatementArguments([deviceID] + types))
                .order(sql: "seq DESC")
                .limit(limit)
                .fetchAll(db)
                .reversed()
        }
    }

    /// This totem's events of the given types kept since `since`, oldest first.
    public func events(ofTypes types: [String], since: Date) throws -> [StoredEvent] {
        try database.read { db in
            try StoredEvent
                .filter(sql: "device_id = ? AND wall_time >= ? AND type IN (\(types.map { _ in "?" }.joined(separator: ", ")))",
                        arguments: StatementArguments([deviceID as any DatabaseValueConvertible, since] + types.map { $0 as any DatabaseValueConvertible }))
                .order(sql: "seq")
                .fetchAll(db)
        }
    }

    /// This totem's events of the given types recorded since `businessDay` opened (its
    /// `day.opened` event included when asked for), oldest first: a day's, not the log's.
    /// A day never opened (a stand-in's) is looked for in the whole log.
    public func events(ofTypes types: [String], openedOn businessDay: BusinessDay) throws -> [StoredEvent] {
        // One `day.opened` a day, found by the index; the day's own events follow it.
        let opened = try events(ofTypes: ["day.opened"]).first { stored in
            guard let event = try? stored.decoded() else { return false }
            return event.businessDay == businessDay
        }
        guard let opened else { return try events(ofTypes: types) }
        return try database.read { db in
            try StoredEvent
                .filter(sql: "device_id = ? AND seq >= ? AND type IN (\(types.map { _ in "?" }.joined(separator: ", ")))",
                        arguments: StatementArguments([deviceID as any DatabaseValueConvertible, opened.seq]
                                                      + types.map { $0 as any DatabaseValueConvertible }))
                .order(sql: "seq")
                .fetchAll(db)
        }
    }

    /// This totem's events of the given types, oldest first.
    public func events(ofTypes types: [String]) throws -> [StoredEvent] {
        try database.read { db in
            try StoredEvent
                .filter(sql: "device_id = ? AND type IN (\(types.map { _ in "?" }.joined(separator: ", ")))",
                        arguments: StatementArguments([deviceID] + types))
                .order(sql: "seq")
                .fetchAll(db)
        }
    }

    /// How many audit entries (`staff.audit` events) the totem keeps now.
    public func auditTrailCount() throws -> Int {
        try database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event WHERE device_id = ? AND type = 'staff.audit'", arguments: [deviceID]) ?? 0
        }
    }

    /// Deletes the audit trail's entries (`staff.audit` events) the totem need not keep any
    /// more: those kept before `before`, and those beyond the newest `keeping`, of the events
    /// up to seq `held` only (what the hub holds: nothing it has not uploaded goes). An audit
    /// entry changes nothing of a day, so no replay misses it; and the log's last event
    /// stays, since the next seq follows it. Returns how many went.
    @discardableResult
    public func pruneAuditTrail(keptBefore before: Date, keeping: Int, held: Int64) throws -> Int {
        try database.write { db in
            try db.execute(sql: """
                DELETE FROM event WHERE device_id = ?1 AND type = 'staff.audit' AND seq <= ?2
                    AND seq < (SELECT MAX(seq) FROM event WHERE device_id = ?1)
                    AND (wall_time < ?3 OR seq < (SELECT MIN(seq) FROM (
                        SELECT seq FROM event WHERE device_id = ?1 AND type = 'staff.audit' ORDER BY seq DESC LIMIT ?4)))
                """, arguments: [deviceID, held, before, max(1, keeping)])
            return db.changesCount
        }
    }

    /// Rebuilds `businessDay` from the event log alone, to check it against `loadDay`.
    public func replayDay(_ businessDay: BusinessDay) throws -> DayState {
        DayState.replaying(try events().map { try $0.decoded() }, businessDay: businessDay)
    }

    /// Rebuilds `businessDay` from the events that can be read; names those that cannot.
    func replayDaySkippingUnreadable(_ businessDay: BusinessDay) throws -> (DayState, [String]) {
        var skipped: [String] = []
        let events = try events().compactMap { stored -> DomainEvent? in
            do {
                return try stored.decoded()
            } catch {
                skipped.append(CodedError(.unreadableEvent, "event \(stored.seq) (\(stored.type)) cannot be read; left out").description)
                return nil
            }
        }
        return (DayState.replaying(events, businessDay: businessDay), skipped)
    }
}
