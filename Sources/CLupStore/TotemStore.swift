import CLupCore
import Foundation
import GRDB

/// The totem's durable state: tickets, occupancy ledgers, exit history and the event log.
///
/// `commit` writes a command's events and the rows they changed in one transaction, and
/// returns only after SQLite has synced it to disk (WAL, `synchronous=FULL`).
public final class TotemStore: Sendable {
    public let deviceID: String
    let database: DatabaseQueue

    /// Opens (creating if absent) the database at `path`.
    public init(path: String, deviceID: String) throws {
        self.deviceID = deviceID
        database = try TotemDatabase.open(path: path)
    }

    /// Appends `events` to the log and writes the tickets, ledgers and exit history they
    /// touched, as `state` (which has them applied) now holds them. All or nothing.
    public func commit(_ events: [DomainEvent], state: DayState, at wallTime: Date) throws {
        guard !events.isEmpty else { return }
        if let foreign = events.first(where: { $0.businessDay != state.businessDay }) {
            throw StoreError.foreignDay(expected: state.businessDay.date, got: foreign.businessDay.date)
        }
        try database.write { db in
            var tickets: Set<TicketNumber> = []
            var doors: Set<String> = []
            var exits = false
            for event in events {
                try EventLog.append(event, deviceID: deviceID, at: wallTime, in: db)
                switch event {
                case let .ticketIssued(ticket): tickets.insert(ticket.number)
                case let .ticketSubmitted(number, _, _), let .ticketPrinted(number, _, _),
                     let .ticketPrintFailed(number, _, _), let .ticketCalled(number, _, _, _),
                     let .ticketNoShow(number, _, _), let .ticketAdmitted(number, _, _),
                     let .admissionLapsed(number, _, _), let .ticketReprinted(number, _, _):
                    tickets.insert(number)
                case let .passage(direction, door, _, _, ticket):
                    doors.insert(door)
                    if let ticket { tickets.insert(ticket) }
                    if direction == .exit { exits = true }
                case let .occupancyCorrected(door, _, _, _, _, _):
                    doors.insert(door)
                }
            }
            for number in tickets {
                if let ticket = state.tickets[number] { try TicketRecord(ticket).save(db) }
            }
            for door in doors {
                let ledger = state.ledger(door: door)
                try db.execute(sql: """
                    INSERT INTO ledger (business_day, door, entries, exits, corrections) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (business_day, door) DO UPDATE SET
                        entries = excluded.entries, exits = excluded.exits, corrections = excluded.corrections
                    """, arguments: [state.businessDay.date, door, ledger.entries, ledger.exits, ledger.corrections])
            }
            if exits {
                try db.execute(sql: """
                    INSERT INTO exit_history (business_day, mean_exit_interval, last_exit) VALUES (?, ?, ?)
                    ON CONFLICT (business_day) DO UPDATE SET
                        mean_exit_interval = excluded.mean_exit_interval, last_exit = excluded.last_exit
                    """, arguments: [state.businessDay.date, state.wait.meanExitInterval, state.wait.lastExit?.storedValue])
            }
        }
    }

    /// The stored state of `businessDay` (empty if nothing happened that day).
    public func loadDay(_ businessDay: BusinessDay) throws -> DayState {
        try database.read { db in
            let tickets = try TicketRecord
                .filter(sql: "business_day = ?", arguments: [businessDay.date])
                .fetchAll(db)
                .map { try $0.ticket() }
            let ledgers = try Row.fetchAll(db, sql: """
                SELECT door, entries, exits, corrections FROM ledger WHERE business_day = ?
                """, arguments: [businessDay.date]).map { row in
                OccupancyLedger(door: row["door"], entries: row["entries"], exits: row["exits"],
                                corrections: row["corrections"])
            }
            let history = try Row.fetchOne(db, sql: """
                SELECT mean_exit_interval, last_exit FROM exit_history WHERE business_day = ?
                """, arguments: [businessDay.date])
            let lastExit: Double? = history?["last_exit"]
            let wait = WaitEstimator(meanExitInterval: history?["mean_exit_interval"],
                                     lastExit: lastExit.map(Date.init(stored:)))
            return DayState(businessDay: businessDay, tickets: tickets, ledgers: ledgers, wait: wait)
        }
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

    /// Rebuilds `businessDay` from the event log alone, to check it against `loadDay`.
    public func replayDay(_ businessDay: BusinessDay) throws -> DayState {
        DayState.replaying(try events().map { try $0.decoded() }, businessDay: businessDay)
    }
}
