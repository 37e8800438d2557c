import CLupCore
import CLupProtocol
import Foundation
import PostgresNIO

/// The store's capacity shared among its doors (`CapacityEscrow`), kept in `door_grant`:
/// each door's reports and confirmations go in as its batches arrive, and the limits are
/// planned again in the same transaction, under the store's row lock, so two hub processes
/// never hand out the same free place twice.
enum DoorShares {
    /// Records the figures a door reported with its batch.
    static func report(_ report: DoorReport, device: DeviceID, _ locked: StoreTransaction) async throws {
        try await locked.connection.query("""
            INSERT INTO door_grant (store_id, device_id, held, held_seq, waiting)
            VALUES (\(locked.store), \(device), \(report.held), \(report.seq), \(report.waiting))
            ON CONFLICT (store_id, device_id) DO UPDATE SET held = excluded.held, held_seq = excluded.held_seq,
                waiting = excluded.waiting
            WHERE door_grant.held_seq <= excluded.held_seq
            """, logger: locked.logger)
    }

    /// A door's log says it put `limit` of `version` in force at `seq`. As
    /// `CapacityEscrow.Door.confirmed`: a newer version of the limit sent, which the door
    /// had already confirmed, keeps the seq of that first confirmation.
    /// A version the store has not reached (a door's log is input like any other) confirms
    /// nothing.
    static func confirm(limit: Int, version: Int64, seq: Int64, device: DeviceID, _ locked: StoreTransaction) async throws {
        guard version <= (try await locked.row().settingsVersion) else {
            locked.logger.warning("a door confirmed a limit of a version the store has not reached; not taken",
                                  metadata: ["device": "\(device)", "version": "\(version)"])
            return
        }
        try await locked.connection.query("""
            INSERT INTO door_grant (store_id, device_id, confirmed_limit, confirmed_version, confirmed_seq)
            VALUES (\(locked.store), \(device), \(limit), \(version), \(seq))
            ON CONFLICT (store_id, device_id) DO UPDATE SET confirmed_limit = excluded.confirmed_limit,
                confirmed_version = excluded.confirmed_version,
                confirmed_seq = CASE WHEN door_grant.confirmed_version > 0
                        AND door_grant.confirmed_version >= door_grant.issued_version
                        AND door_grant.confirmed_limit = excluded.confirmed_limit
                        AND excluded.confirmed_limit = door_grant.issued_limit
                    THEN door_grant.confirmed_seq ELSE excluded.confirmed_seq END
            WHERE door_grant.confirmed_version < excluded.confirmed_version
            """, logger: locked.logger)
    }

    /// What else than a door's new limit makes a new settings version.
    enum Bump {
        case no
        /// Tickets were called or used: news for the other doors, if there are any (a door
        /// that follows its line hears of it there; this is for those that do not).
        case ifSeveralDoors
        /// A door's line changed, and some door of the store hears of lines only with its
        /// settings (a totem from before the line's own feed).
        case lineNews
        /// The store's configuration changed (its settings, employees, bookings, the totems'
        /// keys, the release to install): every door's settings, followers of their lines too.
        case configuration
    }

    /// Plans the doors' limits again. A door given a new limit hears of it on its line (its
    /// line version goes up) and, where it does not follow its line, with a new settings
    /// version. Every change takes the store's next settings version (one counter, so that a
    /// limit sent on a line and one sent with the settings compare); the configuration's
    /// version, which the doors that follow their lines wait on, moves only with
    /// `.configuration`. Long polls are woken when the transaction commits. Returns the
    /// store's settings version.
    @discardableResult
    static func replan(_ locked: StoreTransaction, bump: Bump) async throws -> Int64 {
        let (store, connection, logger) = (locked.store, locked.connection, locked.logger)
        let row = try await locked.row()
        let (version, capacity) = (row.settingsVersion, row.capacity)
        // Every door enrolled has its row; a revoked totem's places are released: revoke only
        // a totem that is switched off.
        let rows = try await connection.rows(BatchStatements.DoorGrants(store: store), logger)
        let doors = rows.map {
            CapacityEscrow.Door(name: $0.0, held: $0.1, heldSeq: $0.2, waiting: $0.3, issuedLimit: $0.4, issuedVersion: $0.5,
                                outstandingMax: $0.6, confirmedLimit: $0.7, confirmedVersion: $0.8, confirmedSeq: $0.9)
        }
        let plan = CapacityEscrow.plan(capacity: capacity, doors: doors)
        let news = switch bump {
        case .no: false
        case .ifSeveralDoors: doors.count > 1
        case .lineNews, .configuration: true
        }
        guard news || plan.contains(where: { $0 != nil }) else { return version }
        let next = version + 1
        var given: [String] = []
        for (var door, limit) in zip(doors, plan) {
            guard let limit else { continue }
            door.issue(limit, version: next)
            try await connection.query("""
                UPDATE door_grant SET issued_limit = \(door.issuedLimit), issued_version = \(door.issuedVersion),
                    outstanding_max = \(door.outstandingMax)
                WHERE store_id = \(store) AND device_id = \(door.name)
                """, logger: logger)
            given.append(door.name)
        }
        if !given.isEmpty {
            try await connection.query("""
                UPDATE totem SET line_version = line_version + 1 WHERE device_id = ANY(\(given)) AND follows_line
                """, logger: logger)
        }
        let configuration = bump == .configuration
        try await connection.query("""
            UPDATE store SET settings_version = \(next),
                config_version = CASE WHEN \(configuration) THEN \(next) ELSE config_version END
            WHERE store_id = \(store)
            """, logger: logger)
        try await SettingsSignals.notify(store: store, connection, logger)
        HubMetrics.settingsVersionMade()
        return next
    }

    /// Whether an event changes what the store's other doors are told of tickets (called
    /// ones they may admit, used ones the issuing door must refuse).
    static func changesOtherDoors(_ type: String) -> Bool {
        ["ticket.called", "ticket.no-show", "ticket.skipped", "ticket.voided", "ticket.admitted", "ticket.admission-lapsed",
         "ticket.from-other-door"].contains(type)
    }
}
