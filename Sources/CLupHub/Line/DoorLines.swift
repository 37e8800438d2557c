import CLupCore
import Foundation
import PostgresNIO

/// What a door is told of its line (`DoorLine`, `GET /v1/line`): its places taken from
/// phones and those left, what the store's other doors called and used, and its part of the
/// store's capacity, at a version of the door's own that joins, leaves, the other doors'
/// calls and a new part move.
extension RemoteLine {
    /// The line of `device`'s door: its places taken from a phone, live (not left, not over
    /// at the door), and those left; tickets called now at the other doors, and its own
    /// tickets (and the store's bookings made through the hub) admitted at another door; the
    /// door's part of the capacity as last given (`DoorShares.replan`); at the door's line
    /// version.
    static func line(store: StoreID, device: DeviceID, _ connection: PostgresConnection, _ logger: Logger) async throws -> DoorLine {
        let version = try await connection.all("SELECT line_version FROM totem WHERE device_id = \(device)", as: Int64.self, logger)
            .first ?? 0
        let live = try await connection.rows("""
            SELECT r.number, extract(epoch FROM r.joined_at)::double precision, r.code, r.language FROM remote_ticket r
            WHERE r.store_id = \(store) AND r.device_id = \(device) AND r.left_at IS NULL
                AND r.joined_at > now() - interval '\(Int(validMinutes)) minutes'
                AND NOT EXISTS (SELECT 1 FROM ticket t WHERE t.store_id = r.store_id AND t.device_id = r.device_id AND t.number = r.number
                                AND t.business_day >= r.business_day - 1 AND t.state IN ('entered', 'no-show', 'voided'))
            ORDER BY r.joined_at, r.number LIMIT \(StoreSettingsDocument.maximumListCount)
            """, as: (String, Double, String, String?).self, logger).compactMap { number, joinedAt, code, language in
            TicketNumber(number).map { RemoteJoin(number: $0, joinedAt: joinedAt, code: code, language: language) }
        }
        let left = try await connection.all("""
            SELECT r.number FROM remote_ticket r
            WHERE r.store_id = \(store) AND r.device_id = \(device) AND r.left_at IS NOT NULL
                AND r.joined_at > now() - interval '\(Int(validMinutes)) minutes'
            ORDER BY r.joined_at, r.number LIMIT \(StoreSettingsDocument.maximumListCount)
            """, as: String.self, logger)
        // Today's tickets and yesterday's (a store open across midnight), newest first.
        let called = try await connection.all("""
            SELECT number FROM ticket WHERE store_id = \(store) AND business_day >= current_date - 1
                AND state = \(TicketState.called.rawValue) AND device_id <> \(device)
            ORDER BY business_day DESC, number LIMIT \(StoreSettingsDocument.maximumListCount)
            """, as: String.self, logger)
        let used = try await connection.all("""
            SELECT number FROM ticket WHERE store_id = \(store) AND business_day >= current_date - 1
                AND (device_id = \(device) OR number LIKE 'Z%') AND admitted_by IS NOT NULL AND admitted_by <> \(device)
            ORDER BY business_day DESC, number LIMIT \(StoreSettingsDocument.maximumListCount)
            """, as: String.self, logger)
        return DoorLine(version: version, remoteTickets: live, leftRemote: left, calledAtOtherDoors: called, usedAtOtherDoors: used,
                        doorLimit: try await doorLimit(store: store, device: device, connection, logger),
                        screenWanted: try await RemoteScreens.wanted(by: device, connection, logger))
    }

    /// The part of the store's capacity last given to `device`'s door (`DoorShares.replan`),
    /// with the version it was given at; none before the first plan.
    static func doorLimit(store: StoreID, device: DeviceID, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> DoorLimit? {
        try await connection.rows("""
            SELECT issued_limit, issued_version FROM door_grant
            WHERE store_id = \(store) AND device_id = \(device) AND issued_version > 0
            """, as: (Int, Int64).self, logger).first.map { DoorLimit(limit: $0.0, version: $0.1) }
    }

    /// A door's line once its version is past `after`, waiting up to `wait` seconds for a
    /// change (a join or a leave there, a ticket called or used at another door: a long poll,
    /// as the settings'). The door follows its line apart from then on: its settings no
    /// longer carry it; and where it `takesDoorLimit`, its settings are at the store's
    /// configuration version, which a new part of the capacity does not move
    /// (`StoreSettingsReader`).
    static func nextLine(store: StoreID, device: DeviceID, after: Int64, takesDoorLimit: Bool, wait: Double, database: HubDatabase,
                         signals: SettingsSignals) async throws -> DoorLine {
        let logger = database.logger
        // Each ask says whether the door takes its part from here: a totem whose update was
        // undone to a clupd that does not gets it in its settings again.
        try await database.transaction { connection in
            try await connection.query("""
                UPDATE totem SET follows_line = true, limit_on_line = \(takesDoorLimit)
                WHERE device_id = \(device) AND (NOT follows_line OR limit_on_line <> \(takesDoorLimit))
                """, logger: logger)
        }
        return try await signals.longPoll(store: store, wait: wait, ready: {
            let version = try await database.transaction { connection in
                try await connection.all("SELECT line_version FROM totem WHERE device_id = \(device)", as: Int64.self, logger).first
            }
            return (version ?? 0) > after
        }, answer: {
            try await database.transaction { connection in try await line(store: store, device: device, connection, logger) }
        })
    }

    /// `device`'s door has a join or a leave: its line gets a new version, and its long poll
    /// is woken when the transaction commits. Where a door of the store does not follow its
    /// line apart (a totem from before the line's own feed), the store's settings get a new
    /// version too, which is how that door hears of it.
    static func lineChanged(device: DeviceID, _ locked: StoreTransaction) async throws {
        try await locked.connection.query("UPDATE totem SET line_version = line_version + 1 WHERE device_id = \(device)",
                                          logger: locked.logger)
        if try await everyDoorFollowsItsLine(locked) {
            try await SettingsSignals.notify(store: locked.store, locked.connection, locked.logger)
        } else {
            try await DoorShares.replan(locked, bump: .lineNews)
        }
    }

    /// `device` called or used a ticket (`DoorShares.changesOtherDoors`): the lines of the
    /// store's other doors get a new version, their long polls woken when the transaction
    /// commits. Returns whether every door follows its line; if not, the caller makes a
    /// settings version, with which the others hear of it.
    static func otherDoorsHear(from device: DeviceID, _ locked: StoreTransaction) async throws -> Bool {
        let others = try await locked.connection.all("""
            UPDATE totem SET line_version = line_version + 1
            WHERE store_id = \(locked.store) AND revoked_at IS NULL AND device_id <> \(device)
            RETURNING device_id
            """, as: String.self, locked.logger)
        if !others.isEmpty { try await SettingsSignals.notify(store: locked.store, locked.connection, locked.logger) }
        return try await everyDoorFollowsItsLine(locked)
    }

    private static func everyDoorFollowsItsLine(_ locked: StoreTransaction) async throws -> Bool {
        try await locked.connection.all("""
            SELECT coalesce(bool_and(follows_line), true) FROM totem WHERE store_id = \(locked.store) AND revoked_at IS NULL
            """, as: Bool.self, locked.logger).first ?? true
    }
}
