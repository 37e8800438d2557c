import CLupCore
import Foundation
import PostgresNIO

/// What the hub makes of a store's events for people to read: occupancy per door and day
/// (the totems' ledgers, summed over doors by whoever reads them) and tickets. Each event is
/// applied once, in the transaction that stores it, with the rules `DayState.apply` uses at
/// the totem, so the hub's figures equal the totems' once their logs are uploaded.
enum Projections {
    ///
    /// `wallTime` is when the totem stored the event. With `counting` false, passages and
    /// corrections leave the occupancy counts to the caller, which adds a batch's up at once
    /// (`OccupancyTally`).
    static func apply(_ event: DomainEvent, seq: Int64, day: String, wallTime: Double, counting: Bool = true,
                      _ writer: BatchWriter) async throws {
        let (store, device, connection, logger) = (writer.store, writer.device, writer.connection, writer.logger)
        switch event {
        case let .dayOpened(_, _, inside, carried, _):
            for (door, count) in inside.sorted(by: { $0.key < $1.key }) {
                try await connection.query("""
                    INSERT INTO occupancy (store_id, business_day, door, carried) VALUES (\(store), \(day)::date, \(door), \(count))
                    ON CONFLICT (store_id, business_day, door) DO UPDATE SET carried = excluded.carried
                    """, logger: logger)
            }
            for ticket in carried { try await carry(ticket, into: day, writer) }
        case let .ticketIssued(ticket):
            try await upsert(ticket, day: day, writer)
        case let .ticketFromOtherDoor(ticket, _) where ticket.number.totem == TicketPayload.hubLetter:
            // A booking made through the hub has no issuing totem: its row is the door's.
            try await upsert(ticket, day: day, writer)
        case let .ticketFromOtherDoor(ticket, _):
            // Another door's ticket taken in here while called (`EventAuthority` let it
            // through): from now on it is this door's to admit, see leave, or let lapse.
            try await onTicket(ticket.number, day: day, writer) { day in """
                UPDATE ticket SET admitted_by = \(device)
                WHERE store_id = \(store) AND business_day = \(day)::date AND number = \(ticket.number.description)
                    AND state = \(TicketState.called.rawValue)
                RETURNING 1
                """ }
        case .ticketSubmitted:
            break
        case let .ticketPrinted(number, _, _):
            try await setState(number, .waiting, day: day, writer)
        case let .ticketPrintFailed(number, _, _):
            try await setState(number, .printFailed, day: day, writer)
        case let .ticketCalled(number, _, at, _, _):
            try await onTicket(number, day: day, writer) { day in """
                UPDATE ticket SET state = \(TicketState.called.rawValue), called_at = \(at)
                WHERE store_id = \(store) AND business_day = \(day)::date AND number = \(number.description)
                RETURNING 1
                """ }
            if number.lane == .remote {
                // Its holder is told to come to the door now (once), by the notification gateway.
                try await connection.query("""
                    INSERT INTO notice (store_id, customer_ref, kind, booking_number, slot_start)
                    SELECT r.store_id, r.customer_ref, 'called', r.number, r.joined_at FROM remote_ticket r
                    WHERE r.store_id = \(store) AND r.device_id = \(device) AND r.number = \(number.description)
                        AND r.business_day >= \(day)::date - 1 AND r.left_at IS NULL
                    ORDER BY r.joined_at DESC LIMIT 1
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
        case let .ticketNoShow(number, _, _), let .ticketSkipped(number, _, _, _):
            // The window ended, or a technician skipped the ticket before it did. Not over an
            // admission at another door (which may reach the hub first).
            try await onTicket(number, day: day, writer) { day in """
                UPDATE ticket SET state = \(TicketState.noShow.rawValue)
                WHERE store_id = \(store) AND business_day = \(day)::date AND number = \(number.description)
                    AND state = ANY(\(Self.changeable(by: event))::text[])
                RETURNING 1
                """ }
        case let .ticketVoided(number, _, _, by, _):
            // Out of the queue, its code refused at the door. Not over an admission at
            // another door, which happened whatever this door did after.
            try await onTicket(number, day: day, writer) { day in """
                UPDATE ticket SET state = \(TicketState.voided.rawValue)
                WHERE store_id = \(store) AND business_day = \(day)::date AND number = \(number.description)
                    AND state = ANY(\(Self.changeable(by: event))::text[])
                RETURNING 1
                """ }
            if number.lane == .remote, by != DayState.remoteLeaver {
                // Staff voided a place a website's visitor holds: they are told, if they asked to be.
                try await connection.query("""
                    INSERT INTO notice (store_id, customer_ref, kind, booking_number, slot_start)
                    SELECT r.store_id, r.customer_ref, 'cancelled', r.number, r.joined_at FROM remote_ticket r
                    WHERE r.store_id = \(store) AND r.device_id = \(device) AND r.number = \(number.description)
                        AND r.business_day >= \(day)::date - 1 AND r.left_at IS NULL AND r.customer_ref LIKE 'web:%'
                    ORDER BY r.joined_at DESC LIMIT 1
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
        case let .ticketAdmitted(number, _, at, _):
            try await onTicket(number, day: day, writer) { day in """
                UPDATE ticket SET state = \(TicketState.admitted.rawValue), admitted_at = \(at), admitted_by = \(device)
                WHERE store_id = \(store) AND business_day = \(day)::date AND number = \(number.description)
                RETURNING 1
                """ }
        case let .admissionLapsed(number, _, _):
            try await onTicket(number, day: day, writer) { day in """
                UPDATE ticket SET state = CASE WHEN called_at IS NULL THEN \(TicketState.waiting.rawValue)
                    ELSE \(TicketState.called.rawValue) END, admitted_at = NULL
                WHERE store_id = \(store) AND business_day = \(day)::date AND number = \(number.description)
                RETURNING 1
                """ }
        case let .ticketReprinted(number, _, _):
            try await setState(number, .printing, day: day, writer)
        case let .ticketLeft(number, _, at):
            try await onTicket(number, day: day, writer) { day in """
                UPDATE ticket SET left_at = \(at)
                WHERE store_id = \(store) AND business_day = \(day)::date AND number = \(number.description)
                RETURNING 1
                """ }
        case let .passage(_, _, _, at, ticket, _):
            if counting { try await count(event, day: day, wallTime: wallTime, writer) }
            if let ticket {
                try await onTicket(ticket, day: day, writer) { day in """
                    UPDATE ticket SET state = \(TicketState.entered.rawValue), entered_at = \(at)
                    WHERE store_id = \(store) AND business_day = \(day)::date AND number = \(ticket.description)
                    RETURNING 1
                    """ }
            }
        case let .storeSettingsApplied(settings, _, _):
            try await connection.query("""
                UPDATE totem SET applied_settings_version = greatest(coalesce(applied_settings_version, 0), \(settings.version))
                WHERE device_id = \(device)
                """, logger: logger)
            if let limit = settings.doorLimit {
                try await DoorShares.confirm(limit: limit, version: settings.version, seq: seq, device: device, writer.locked)
            }
        case let .doorLimitApplied(limit, _, _):
            try await DoorShares.confirm(limit: limit.limit, version: limit.version, seq: seq, device: device, writer.locked)
        case .audited:
            // Staff's trail: kept in the event table as it came, nothing to project.
            break
        case .occupancyCorrected:
            if counting { try await count(event, day: day, wallTime: wallTime, writer) }
        }
    }

    private static func count(_ event: DomainEvent, day: String, wallTime: Double, _ writer: BatchWriter) async throws {
        var tally = OccupancyTally()
        tally.count(event, day: day, wallTime: wallTime)
        try await tally.add(writer)
    }

    /// The states `event` may change, as CLupCore's rules say (`TicketState.changeable(by:)`).
    private static func changeable(by event: DomainEvent) -> [String] {
        (TicketState.changeable(by: event) ?? TicketState.allCases).map(\.rawValue)
    }

    /// The states of a ticket someone went in with (`TicketState.wentIn`).
    private static let wentIn = TicketState.allCases.filter(\.wentIn).map(\.rawValue)

    /// SQL for the store's business day now (`$1` the store): the latest its totems have
    /// opened (a day may start at 05:00 local time, so just after midnight it is still
    /// yesterday's), else today. Read from the occupancy projection, which the panel and the
    /// bookings both read.
    static let currentDaySQL = """
        coalesce((SELECT max(business_day) FROM occupancy WHERE store_id = $1 AND business_day <= current_date + 1), current_date)
        """

    /// What passages and corrections add to each door's day (`occupancy`) and to its
    /// quarters of an hour (`occupancy_quarter`, by the events' wall time): sums, so a
    /// batch's are added in two statements, in any order.
    struct OccupancyTally {
        struct Sums {
            var entries = 0, exits = 0, corrections = 0

            mutating func add(_ other: Sums) {
                entries += other.entries
                exits += other.exits
                corrections += other.corrections
            }
        }

        struct Day: Hashable { let day: String, door: String }
        struct Quarter: Hashable { let day: String, door: String, quarter: Int64 }
        private(set) var days: [Day: Sums] = [:]
        private(set) var quarters: [Quarter: Sums] = [:]

        /// Counts `event` if it is a passage or a correction; `wallTime` is when the totem
        /// stored it (seconds since 1970, checked by `Ingest.check`).
        mutating func count(_ event: DomainEvent, day: String, wallTime: Double) {
            let door: String, sums: Sums
            switch event {
            case let .passage(direction, passageDoor, _, _, _, _):
                door = passageDoor
                sums = direction == .entry ? Sums(entries: 1) : Sums(exits: 1)
            case let .occupancyCorrected(correctedDoor, _, delta, _, _, _):
                door = correctedDoor
                sums = Sums(corrections: delta)
            default:
                return
            }
            days[Day(day: day, door: door), default: Sums()].add(sums)
            quarters[Quarter(day: day, door: door, quarter: Self.quarter(of: wallTime)), default: Sums()].add(sums)
        }

        /// The quarter of an hour holding `wallTime`: seconds since 1970 / 900.
        static func quarter(of wallTime: Double) -> Int64 {
            Int64(exactly: (wallTime / 900).rounded(.down)) ?? 0
        }

        /// Adds the sums to the store's rows, in the order of their keys (one order of row
        /// locks for every batch).
        func add(_ writer: BatchWriter) async throws {
            guard !days.isEmpty else { return }
            let (store, connection, logger) = (writer.store, writer.connection, writer.logger)
            let days = days.sorted { ($0.key.day, $0.key.door) < ($1.key.day, $1.key.door) }
            let quarters = quarters.sorted { ($0.key.day, $0.key.door, $0.key.quarter) < ($1.key.day, $1.key.door, $1.key.quarter) }
            _ = try await connection.execute(BatchStatements.AddOccupancy(
                store: store, days: days.map(\.key.day), doors: days.map(\.key.door), entries: days.map(\.value.entries),
                exits: days.map(\.value.exits), corrections: days.map(\.value.corrections),
                quarterDays: quarters.map(\.key.day), quarterDoors: quarters.map(\.key.door), quarters: quarters.map(\.key.quarter),
                quarterEntries: quarters.map(\.value.entries), quarterExits: quarters.map(\.value.exits),
                quarterCorrections: quarters.map(\.value.corrections)), logger: logger)
        }
    }

    private static func upsert(_ ticket: Ticket, day: String, _ writer: BatchWriter) async throws {
        let (store, device, connection, logger) = (writer.store, writer.device, writer.connection, writer.logger)
        try await connection.query("""
            INSERT INTO ticket (store_id, business_day, number, device_id, lane, state, issued_at, called_at, admitted_at, entered_at,
                                slot_start, promised_wait_minutes, taken_at)
            VALUES (\(store), \(day)::date, \(ticket.number.description), \(device), \(ticket.lane.rawValue), \(ticket.state.rawValue),
                    \(ticket.issuedAt), \(ticket.calledAt), \(ticket.admittedAt), \(ticket.enteredAt), \(ticket.slotStart),
                    \(ticket.promisedWait.map { (Double($0.low) + Double($0.high)) / 2 }), \(ticket.takenAt))
            ON CONFLICT (store_id, business_day, number) DO UPDATE SET
                -- A ticket someone went in with stays so, whatever a later copy of it says.
                state = CASE WHEN ticket.state = ANY(\(Self.wentIn)::text[]) THEN ticket.state ELSE excluded.state END,
                called_at = excluded.called_at, admitted_at = coalesce(ticket.admitted_at, excluded.admitted_at),
                entered_at = coalesce(ticket.entered_at, excluded.entered_at)
            """, logger: logger)
    }

    /// A ticket still in play carried into `day`: its row moves there, so that the door's
    /// events of it, which name `day`, find it, and the hub has one row per ticket as the
    /// totem has. (From the day it was issued to `day`, no other ticket of the store had its
    /// number: a door skips the numbers its carried tickets hold.) It keeps the day it was issued, and what only the hub knew of it (the door
    /// that took it in, when it left, an admission another door reported).
    private static func carry(_ ticket: Ticket, into day: String, _ writer: BatchWriter) async throws {
        let (store, device, connection, logger) = (writer.store, writer.device, writer.connection, writer.logger)
        try await connection.query("""
            WITH gone AS (
                DELETE FROM ticket WHERE store_id = \(store) AND number = \(ticket.number.description)
                    AND business_day >= \(ticket.businessDay.date)::date AND business_day < \(day)::date
                RETURNING device_id, state, admitted_at, entered_at, admitted_by, left_at)
            INSERT INTO ticket (store_id, business_day, number, device_id, lane, state, issued_at, called_at, admitted_at, entered_at,
                                slot_start, promised_wait_minutes, taken_at, issued_day, admitted_by, left_at)
            SELECT \(store), \(day)::date, \(ticket.number.description), coalesce(max(device_id), \(device)), \(ticket.lane.rawValue),
                   CASE WHEN max(state) = ANY(\(Self.wentIn)::text[]) THEN max(state) ELSE \(ticket.state.rawValue) END,
                   \(ticket.issuedAt), \(ticket.calledAt), coalesce(max(admitted_at), \(ticket.admittedAt)),
                   coalesce(max(entered_at), \(ticket.enteredAt)), \(ticket.slotStart),
                   \(ticket.promisedWait.map { (Double($0.low) + Double($0.high)) / 2 }), \(ticket.takenAt),
                   \(ticket.businessDay.date)::date, max(admitted_by), max(left_at)
            FROM gone
            -- Not where the ticket is kept under a later day already (a booking of the hub's,
            -- which every door carries, carried further by another door).
            HAVING NOT EXISTS (SELECT 1 FROM ticket WHERE store_id = \(store) AND number = \(ticket.number.description)
                                   AND business_day > \(day)::date AND issued_day <= \(ticket.businessDay.date)::date)
            ON CONFLICT (store_id, business_day, number) DO UPDATE SET
                state = CASE WHEN ticket.state = ANY(\(Self.wentIn)::text[]) THEN ticket.state ELSE excluded.state END,
                called_at = excluded.called_at, admitted_at = coalesce(ticket.admitted_at, excluded.admitted_at),
                entered_at = coalesce(ticket.entered_at, excluded.entered_at),
                issued_day = least(coalesce(ticket.issued_day, ticket.business_day), excluded.issued_day),
                admitted_by = coalesce(ticket.admitted_by, excluded.admitted_by), left_at = coalesce(ticket.left_at, excluded.left_at)
            """, logger: logger)
    }

    /// Runs `update` (an UPDATE of ticket `number` under the day it is given, returning a row
    /// per row it changed) under the event's `day`; where that changes nothing, under the day
    /// the hub keeps the ticket (`ticket_day`: carried into a later day since, or not yet
    /// into this one), if that is another. The day is a bound value, so PostgreSQL plans each
    /// UPDATE for one daily partition (`ticket_day` in the statement would have it plan for
    /// every partition, once per event).
    private static func onTicket(_ number: TicketNumber, day: String, _ writer: BatchWriter,
                                 _ update: (String) -> PostgresQuery) async throws {
        let (connection, logger) = (writer.connection, writer.logger)
        guard try await connection.all(update(day), as: Int.self, logger).isEmpty,
              let kept = try await connection.all("SELECT ticket_day(\(writer.store), \(day)::date, \(number.description))::text",
                                                  as: String.self, logger).first,
              kept != day
        else { return }
        _ = try await connection.all(update(kept), as: Int.self, logger)
    }

    private static func setState(_ number: TicketNumber, _ state: TicketState, day: String, _ writer: BatchWriter) async throws {
        let (store, connection, logger) = (writer.store, writer.connection, writer.logger)
        try await onTicket(number, day: day, writer) { day in """
            UPDATE ticket SET state = \(state.rawValue) WHERE store_id = \(store) AND business_day = \(day)::date AND number = \(number.description)
            RETURNING 1
            """ }
    }
}
