import CLupCore
import Foundation
import GRDB

/// The totem's durable state: tickets, the occupancy ledger and the event log.
///
/// Every command is one write transaction that changes the state and appends its event;
/// it returns only after SQLite has synced it to disk.
public final class TotemStore: Sendable {
    public let deviceID: String
    let pool: DatabasePool

    /// Opens (creating if absent) the database at `path`.
    public init(path: String, deviceID: String) throws {
        self.deviceID = deviceID
        pool = try TotemDatabase.open(path: path)
    }

    // MARK: Tickets

    /// Issues the next ticket of `lane` for `businessDay`, recorded with its event.
    public func issueTicket(lane: Lane, issuer: TicketIssuer, businessDay: BusinessDay,
                            at instant: Date) throws -> Ticket {
        try pool.write { db in
            let last = try Int.fetchOne(db, sql: """
                SELECT MAX(sequence) FROM ticket
                WHERE business_day = ? AND lane = ? AND number LIKE ?
                """, arguments: [businessDay.date, lane.rawValue, "\(issuer.totem)%"]) ?? 0
            let (ticket, event) = issuer.issue(lane: lane, lastSequence: last,
                                               businessDay: businessDay, at: instant)
            try TicketRecord(ticket).insert(db)
            try EventLog.append(event, deviceID: deviceID, at: instant, in: db)
            return ticket
        }
    }

    /// Records that the printer finished the ticket's job: it now waits in the queue.
    public func markPrinted(_ number: TicketNumber, businessDay: BusinessDay, job: Int,
                            at instant: Date) throws {
        try updateTicket(number, businessDay: businessDay,
                         event: .ticketPrinted(number, businessDay: businessDay, job: job),
                         at: instant) { record in
            record.state = TicketState.waiting.rawValue
            record.printJob = job
        }
    }

    /// Records that the ticket could not be printed, and why.
    public func markPrintFailed(_ number: TicketNumber, businessDay: BusinessDay, reason: String,
                                at instant: Date) throws {
        try updateTicket(number, businessDay: businessDay,
                         event: .ticketPrintFailed(number, businessDay: businessDay, reason: reason),
                         at: instant) { record in
            record.state = TicketState.printFailed.rawValue
            record.failureReason = reason
        }
    }

    private func updateTicket(_ number: TicketNumber, businessDay: BusinessDay, event: DomainEvent,
                              at instant: Date, change: (inout TicketRecord) -> Void) throws {
        try pool.write { db in
            guard var record = try TicketRecord.fetchOne(
                db, key: ["business_day": businessDay.date, "number": number.description])
            else { throw StoreError.unknownTicket(number.description) }
            change(&record)
            try record.update(db)
            try EventLog.append(event, deviceID: deviceID, at: instant, in: db)
        }
    }

    /// The tickets of `businessDay`, in the order they were issued.
    public func tickets(on businessDay: BusinessDay) throws -> [Ticket] {
        try pool.read { db in
            try TicketRecord
                .filter(sql: "business_day = ?", arguments: [businessDay.date])
                .order(sql: "issued_at, lane, sequence")
                .fetchAll(db)
                .map { try $0.ticket() }
        }
    }

    /// The printed tickets of `businessDay` still waiting to be called.
    public func waitingCount(on businessDay: BusinessDay) throws -> Int {
        try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ticket WHERE business_day = ? AND state = ?",
                             arguments: [businessDay.date, TicketState.waiting.rawValue]) ?? 0
        }
    }

    // MARK: Occupancy

    /// Records a turnstile passage and returns the updated ledger.
    @discardableResult
    public func recordPassage(_ direction: PassageDirection, door: String, businessDay: BusinessDay,
                              at instant: Date) throws -> OccupancyLedger {
        try pool.write { db in
            var ledger = try Self.ledger(businessDay, in: db)
            let event = ledger.record(direction, door: door)
            try db.execute(sql: """
                INSERT INTO occupancy (business_day, entries, exits) VALUES (?, ?, ?)
                ON CONFLICT (business_day) DO UPDATE SET entries = excluded.entries, exits = excluded.exits
                """, arguments: [businessDay.date, ledger.entries, ledger.exits])
            try EventLog.append(event, deviceID: deviceID, at: instant, in: db)
            return ledger
        }
    }

    /// The occupancy ledger of `businessDay` (empty if nobody passed yet).
    public func ledger(on businessDay: BusinessDay) throws -> OccupancyLedger {
        try pool.read { db in try Self.ledger(businessDay, in: db) }
    }

    private static func ledger(_ businessDay: BusinessDay, in db: Database) throws -> OccupancyLedger {
        let row = try Row.fetchOne(db, sql: "SELECT entries, exits FROM occupancy WHERE business_day = ?",
                                   arguments: [businessDay.date])
        return OccupancyLedger(businessDay: businessDay,
                               entries: row?["entries"] ?? 0, exits: row?["exits"] ?? 0)
    }

    // MARK: Event log

    /// This totem's events after `seq`, oldest first.
    public func events(after seq: Int = 0) throws -> [StoredEvent] {
        try pool.read { db in
            try StoredEvent
                .filter(sql: "device_id = ? AND seq > ?", arguments: [deviceID, seq])
                .order(sql: "seq")
                .fetchAll(db)
        }
    }
}
