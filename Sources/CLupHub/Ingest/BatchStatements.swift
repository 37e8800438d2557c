import CLupCore
import Foundation
import PostgresNIO

/// The statements every totem's request and batch runs, prepared: PostgreSQL parses and
/// plans each once per connection (postgres-nio keeps it by name) instead of at every
/// batch. Under `scripts/bench-hub`, parsing and planning were about two fifths of
/// PostgreSQL's CPU during ingest. The code that runs each says why it runs it.
enum BatchStatements {
    /// The store's row, locked (`StoreTransaction`): its settings version and capacity,
    /// which `DoorShares.replan` plans with. `NO KEY UPDATE`, which excludes every other
    /// store lock but not the `KEY SHARE` a foreign-key check takes on the store's row when a
    /// row of the store is written: such a check never waits on a store lock.
    struct LockStore: PostgresPreparedStatement {
        static let sql = "SELECT settings_version, capacity FROM store WHERE store_id = $1 FOR NO KEY UPDATE"
        typealias Row = StoreTransaction.Row
        let store: StoreID

        func makeBindings() -> PostgresBindings { bindings(store) }
        func decodeRow(_ row: PostgresRow) throws -> Row {
            let (version, capacity) = try row.decode((Int64, Int).self)
            return StoreTransaction.Row(settingsVersion: version, capacity: capacity)
        }
    }

    /// The device's cursor, locked: acknowledged and highest seq.
    struct LockCursor: PostgresPreparedStatement {
        static let sql = "SELECT acknowledged, highest FROM device_cursor WHERE store_id = $1 AND device_id = $2 FOR UPDATE"
        typealias Row = (Int64, Int64)
        let store: StoreID, device: DeviceID

        func makeBindings() -> PostgresBindings { bindings(store, device) }
        func decodeRow(_ row: PostgresRow) throws -> (Int64, Int64) { try row.decode((Int64, Int64).self) }
    }

    /// The batch's events, in one insert; the seqs that were new.
    struct InsertEvents: PostgresPreparedStatement {
        static let sql = """
            INSERT INTO event (store_id, business_day, device_id, seq, wall_time, type, payload, content_hash)
            SELECT $1, u.day::date, $2, u.seq, to_timestamp(u.wall), u.type, u.payload, u.hash
            FROM unnest($3::text[], $4::int8[], $5::float8[], $6::text[], $7::text[], $8::text[])
                AS u(day, seq, wall, type, payload, hash)
            ON CONFLICT DO NOTHING RETURNING seq
            """
        typealias Row = Int64
        let store: StoreID, device: DeviceID
        let days: [String], seqs: [Int64], walls: [Double], types: [String], payloads: [String], hashes: [String]

        func makeBindings() -> PostgresBindings {
            var binds = bindings(store, device)
            binds.append(days)
            binds.append(seqs)
            binds.append(walls)
            binds.append(types)
            binds.append(payloads)
            binds.append(hashes)
            return binds
        }

        func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
    }

    /// What passages and corrections add to the doors' days and quarters of an hour
    /// (`Projections.OccupancyTally`), added to both tables in one statement.
    struct AddOccupancy: PostgresPreparedStatement {
        static let sql = """
            WITH days AS (
                INSERT INTO occupancy (store_id, business_day, door, entries, exits, corrections)
                SELECT $1, u.day::date, u.door, u.entries, u.exits, u.corrections
                FROM unnest($2::text[], $3::text[], $4::int8[], $5::int8[], $6::int8[]) AS u(day, door, entries, exits, corrections)
                ON CONFLICT (store_id, business_day, door) DO UPDATE SET entries = occupancy.entries + excluded.entries,
                    exits = occupancy.exits + excluded.exits, corrections = occupancy.corrections + excluded.corrections)
            INSERT INTO occupancy_quarter (store_id, business_day, door, quarter, entries, exits, corrections)
            SELECT $1, u.day::date, u.door, u.quarter, u.entries, u.exits, u.corrections
            FROM unnest($7::text[], $8::text[], $9::int8[], $10::int8[], $11::int8[], $12::int8[])
                AS u(day, door, quarter, entries, exits, corrections)
            ON CONFLICT (store_id, business_day, door, quarter) DO UPDATE SET
                entries = occupancy_quarter.entries + excluded.entries, exits = occupancy_quarter.exits + excluded.exits,
                corrections = occupancy_quarter.corrections + excluded.corrections
            """
        typealias Row = ()
        let store: StoreID
        let days: [String], doors: [String], entries: [Int], exits: [Int], corrections: [Int]
        let quarterDays: [String], quarterDoors: [String], quarters: [Int64]
        let quarterEntries: [Int], quarterExits: [Int], quarterCorrections: [Int]

        func makeBindings() -> PostgresBindings {
            var binds = bindings(store)
            binds.append(days)
            binds.append(doors)
            binds.append(entries)
            binds.append(exits)
            binds.append(corrections)
            binds.append(quarterDays)
            binds.append(quarterDoors)
            binds.append(quarters)
            binds.append(quarterEntries)
            binds.append(quarterExits)
            binds.append(quarterCorrections)
            return binds
        }

        func decodeRow(_ row: PostgresRow) throws {}
    }

    /// The device's cursor and its last contact, in one statement.
    struct MoveCursor: PostgresPreparedStatement {
        static let sql = """
            WITH moved AS (
                UPDATE device_cursor SET acknowledged = $1, highest = $2 WHERE store_id = $3 AND device_id = $4)
            UPDATE totem SET last_contact = $5, last_outbox_depth = $6, last_clock_skew = $7 WHERE device_id = $4
            """
        typealias Row = ()
        let acknowledged: Int64, highest: Int64, store: StoreID, device: DeviceID
        let now: Date, outboxDepth: Int64, clockOffset: Double?

        func makeBindings() -> PostgresBindings {
            var binds = PostgresBindings()
            binds.append(acknowledged)
            binds.append(highest)
            binds.append(store)
            binds.append(device)
            binds.append(now)
            binds.append(outboxDepth)
            binds.append(clockOffset)
            return binds
        }

        func decodeRow(_ row: PostgresRow) throws {}
    }

    /// Every door of the store enrolled and not revoked, with what the hub knows of its
    /// places (`DoorShares.replan`); a totem enrolled since the last plan gets its row here,
    /// returned by the insert (the select beside it sees the rows from before).
    struct DoorGrants: PostgresPreparedStatement {
        static let sql = """
            WITH added AS (
                INSERT INTO door_grant (store_id, device_id)
                SELECT store_id, device_id FROM totem WHERE store_id = $1 AND revoked_at IS NULL
                ON CONFLICT DO NOTHING
                RETURNING device_id, held, held_seq, waiting, issued_limit, issued_version, outstanding_max,
                          confirmed_limit, confirmed_version, confirmed_seq)
            SELECT * FROM added
            UNION ALL
            SELECT g.device_id, g.held, g.held_seq, g.waiting, g.issued_limit, g.issued_version, g.outstanding_max,
                   g.confirmed_limit, g.confirmed_version, g.confirmed_seq
            FROM door_grant g JOIN totem t ON t.device_id = g.device_id
            WHERE g.store_id = $1 AND t.revoked_at IS NULL
            ORDER BY 1
            """
        typealias Row = (String, Int, Int64, Int, Int, Int64, Int, Int, Int64, Int64)
        let store: StoreID

        func makeBindings() -> PostgresBindings { bindings(store) }
        func decodeRow(_ row: PostgresRow) throws -> Row {
            try row.decode((String, Int, Int64, Int, Int, Int64, Int, Int, Int64, Int64).self)
        }
    }

    /// A "delayed" notice for each customer with a booking of the store starting soon while
    /// the store is full (`Bookings.noticeDelays`).
    struct NoticeDelays: PostgresPreparedStatement {
        static let sql = """
            INSERT INTO notice (store_id, customer_ref, kind, booking_number, slot_start)
            SELECT b.store_id, b.customer_ref, 'delayed', b.number, b.slot_start
            FROM booking b JOIN store s ON s.store_id = b.store_id
            WHERE b.store_id = $1 AND b.cancelled_at IS NULL AND b.customer_ref NOT LIKE 'totem-%'
                AND b.slot_start <= $2 + s.delay_notice_minutes * interval '1 minute'
                AND b.slot_start + s.booking_late_minutes * interval '1 minute' >= $2
                AND NOT EXISTS (SELECT 1 FROM ticket t WHERE t.store_id = b.store_id AND t.number = b.number
                                AND t.business_day >= b.slot_day - 1 AND t.admitted_at IS NOT NULL)
                AND (SELECT coalesce(sum(carried + entries - exits + corrections), 0) FROM occupancy
                     WHERE store_id = $1 AND business_day = \(Projections.currentDaySQL)) >= s.capacity
            UNION ALL
            -- A website's visitor who asked to be told, still waiting delay_notice_minutes
            -- after joining a store that is full: their wait is longer than they were told.
            SELECT r.store_id, r.customer_ref, 'delayed', r.number, r.joined_at
            FROM remote_ticket r JOIN store s ON s.store_id = r.store_id
            WHERE r.store_id = $1 AND r.customer_ref LIKE 'web:%' AND r.left_at IS NULL AND s.delay_notice_minutes > 0
                AND r.joined_at <= $2 - s.delay_notice_minutes * interval '1 minute'
                AND r.business_day >= \(Projections.currentDaySQL) - 1
                AND EXISTS (SELECT 1 FROM push_subscription p WHERE p.customer_ref = r.customer_ref)
                AND NOT EXISTS (SELECT 1 FROM ticket t WHERE t.store_id = r.store_id AND t.device_id = r.device_id
                                AND t.number = r.number AND t.business_day >= r.business_day - 1 AND t.state <> 'waiting')
                AND (SELECT coalesce(sum(carried + entries - exits + corrections), 0) FROM occupancy
                     WHERE store_id = $1 AND business_day = \(Projections.currentDaySQL)) >= s.capacity
            ON CONFLICT DO NOTHING
            """
        typealias Row = ()
        let store: StoreID, now: Date

        func makeBindings() -> PostgresBindings {
            var binds = bindings(store)
            binds.append(now)
            return binds
        }

        func decodeRow(_ row: PostgresRow) throws {}
    }

    /// Marks since when the store is full without a break (`full_since`), written only when
    /// that changes; returns it (nil: not full) and the store's major delay (minutes, nil: never).
    struct MarkFull: PostgresPreparedStatement {
        static let sql = """
            WITH inside AS (
                SELECT coalesce(sum(carried + entries - exits + corrections), 0) AS n FROM occupancy
                WHERE store_id = $1 AND business_day = \(Projections.currentDaySQL)),
            changed AS (
                UPDATE store s SET full_since = CASE WHEN i.n >= s.capacity THEN $2::timestamptz END FROM inside i
                WHERE s.store_id = $1 AND (s.full_since IS NULL) = (i.n >= s.capacity) RETURNING s.full_since)
            SELECT CASE WHEN EXISTS (SELECT 1 FROM changed) THEN (SELECT full_since FROM changed) ELSE s.full_since END,
                s.major_delay_minutes
            FROM store s WHERE s.store_id = $1
            """
        typealias Row = (Date?, Int?)
        let store: StoreID, now: Date

        func makeBindings() -> PostgresBindings {
            var binds = bindings(store)
            binds.append(now)
            return binds
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode((Date?, Int?).self) }
    }

    /// R11: the store has been full for its major delay: the app's bookings whose slot is near
    /// or under way (as for a delay notice) and not used are cancelled, each with a
    /// `cancelled` notice. Returns one row per booking cancelled.
    struct MajorDelays: PostgresPreparedStatement {
        static let sql = """
            WITH cancelled AS (
                UPDATE booking b SET cancelled_at = $2 FROM store s
                WHERE b.store_id = $1 AND s.store_id = $1 AND b.cancelled_at IS NULL AND b.customer_ref NOT LIKE 'totem-%'
                    AND b.slot_start <= $2 + s.delay_notice_minutes * interval '1 minute'
                    AND b.slot_start + s.booking_late_minutes * interval '1 minute' >= $2
                    AND NOT EXISTS (SELECT 1 FROM ticket t WHERE t.store_id = b.store_id AND t.number = b.number
                                    AND t.business_day >= b.slot_day - 1 AND t.admitted_at IS NOT NULL)
                RETURNING b.store_id, b.customer_ref, b.number, b.slot_start)
            INSERT INTO notice (store_id, customer_ref, kind, booking_number, slot_start)
            SELECT store_id, customer_ref, 'cancelled', number, slot_start FROM cancelled
            ON CONFLICT DO NOTHING RETURNING booking_number
            """
        typealias Row = String
        let store: StoreID, now: Date

        func makeBindings() -> PostgresBindings {
            var binds = bindings(store)
            binds.append(now)
            return binds
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(String.self) }
    }

    /// What the hub needs of a totem to check its request's signature (`DeviceAuthenticator`).
    struct TotemKey: PostgresPreparedStatement {
        static let sql = "SELECT store_id, letter, door, device_key, revoked_at FROM totem WHERE device_id = $1"
        typealias Row = (StoreID, String, DoorName, Data, Date?)
        let device: DeviceID

        func makeBindings() -> PostgresBindings { bindings(device) }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode((StoreID, String, DoorName, Data, Date?).self) }
    }

    /// A request's nonce, kept; a row if it was new.
    struct KeepNonce: PostgresPreparedStatement {
        static let sql = "INSERT INTO request_nonce (device_id, nonce) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING nonce"
        typealias Row = String
        let device: DeviceID, nonce: String

        func makeBindings() -> PostgresBindings { bindings(device, nonce) }
        func decodeRow(_ row: PostgresRow) throws -> String { try row.decode(String.self) }
    }

    static func bindings(_ values: any PostgresNonThrowingEncodable...) -> PostgresBindings {
        var binds = PostgresBindings()
        for value in values { binds.append(value) }
        return binds
    }
}

extension PostgresConnection {
    /// Runs a prepared statement and returns its rows.
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement, _ logger: Logger) async throws -> [Statement.Row] {
        var rows: [Statement.Row] = []
        for try await row in try await execute(statement, logger: logger) { rows.append(row) }
        return rows
    }
}
