import Crypto
import HTTPTypes
import ServiceLifecycle
import CLupCore
import CLupProtocol
import Foundation
import Logging
import PostgresNIO

/// The store settings the hub sends down: one document per totem, with the door's part of
/// the capacity as it is when the document is read. A door that takes its part from its
/// line (`DoorLine`) gets its settings at the configuration's version, which a new part does
/// not move (the part comes on its line); any other at the store's settings version, which
/// a new part moves; one that does not follow its line at all has its line in them too.
///
/// The part is in every door's document, so that a totem never holds settings without one:
/// its clupd, or the release before it (an update undone), reads the last settings it kept
/// at start. Labelled with the configuration's version, a part read after it is the newest
/// given up to that version, so the door, which puts the newer of this and its line's part in
/// force, never takes it for newer than one its line gave later.
enum StoreSettingsReader {
    /// The settings of `store` as `device` is to have them (nil device: the store's alone).
    static func current(store: StoreID, device: DeviceID?, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> StoreSettingsDocument? {
        var (follower, limitOnLine) = (false, false)
        if let device { (follower, limitOnLine) = try await lineFollowing(device, connection, logger) }
        let rows = try await connection.rows("""
            SELECT CASE WHEN \(limitOnLine) THEN config_version ELSE settings_version END, capacity, priority_share, booking_share,
                   presentation_minutes, booking_early_minutes, booking_late_minutes, slot_minutes, totem_booking_places,
                   opens_minute, closes_minute
            FROM store WHERE store_id = \(store)
            """,
            as: (Int64, Int, Double, Double, Double, Double, Double, Double, Int, Int, Int).self, logger)
        guard var settings = rows.first.map({
            var settings = StoreSettingsDocument(version: $0.0, capacity: $0.1, priorityShare: $0.2, bookingShare: $0.3,
                                                 windows: .init(presentationMinutes: $0.4, bookingEarlyMinutes: $0.5,
                                                                bookingLateMinutes: $0.6, slotMinutes: $0.7))
            settings.totemBookingPlaces = $0.8
            settings.hours = .init(opensMinute: $0.9, closesMinute: $0.10)
            return settings
        }) else { return nil }
        settings.employees = try await employees(store: store, connection, logger)
        guard let device else { return settings }
        settings.targetVersion = try await Rollouts.targetVersion(device: device, connection, logger)
        if let target = settings.targetVersion {
            settings.targetManifest = try await ReleaseManifests.envelope(of: target, connection, logger)
            settings.runningManifest = try await ReleaseManifests.envelopeOfRunningVersion(device: device, connection, logger)
        }
        let keys = try await connection.rows("""
            SELECT letter, ticket_key FROM totem WHERE store_id = \(store) AND revoked_at IS NULL ORDER BY letter
            """, as: (String, Data).self, logger)
        settings.totemKeys = Dictionary(keys.map { ($0.0, $0.1.base64EncodedString()) }, uniquingKeysWith: { first, _ in first })
        // Bookings made through the hub are signed with the store's booking key, letter Z.
        if let raw = try await connection.all("SELECT booking_key FROM store WHERE store_id = \(store) AND booking_key IS NOT NULL",
                                              as: Data.self, logger).first,
           let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) {
            settings.totemKeys?[String(TicketPayload.hubLetter)] = key.publicKey.rawRepresentation.base64EncodedString()
        }
        settings.cancelledBookings = try await connection.all("""
            SELECT number FROM booking WHERE store_id = \(store) AND cancelled_at IS NOT NULL AND slot_day >= current_date - 1
            ORDER BY slot_day DESC, number LIMIT \(StoreSettingsDocument.maximumListCount)
            """, as: String.self, logger)
        // Bookings not cancelled nor admitted yet whose window may be open today or tomorrow.
        settings.bookings = try await connection.rows("""
            SELECT b.number, extract(epoch FROM b.slot_start)::double precision FROM booking b
            WHERE b.store_id = \(store) AND b.cancelled_at IS NULL
                AND b.slot_start >= now() - interval '1 day' AND b.slot_start < now() + interval '2 days'
                AND NOT EXISTS (SELECT 1 FROM ticket t WHERE t.store_id = b.store_id AND t.number = b.number
                                AND t.business_day >= b.slot_day - 1 AND t.admitted_at IS NOT NULL)
            ORDER BY b.slot_start, b.number LIMIT \(StoreSettingsDocument.maximumListCount)
            """, as: (String, Double).self, logger).map { StoreSettingsDocument.HubBooking(number: $0.0, slotStart: $0.1) }
        settings.doorLimit = try await RemoteLine.doorLimit(store: store, device: device, connection, logger)?.limit
        // A door that follows its line apart (GET /v1/line) has none of it here.
        guard !follower else { return settings }
        let line = try await RemoteLine.line(store: store, device: device, connection, logger)
        settings.remoteTickets = line.remoteTickets
        settings.leftRemote = line.leftRemote
        settings.calledAtOtherDoors = line.calledAtOtherDoors
        settings.usedAtOtherDoors = line.usedAtOtherDoors
        return settings
    }

    /// Whether `device` follows its line apart from the settings (it asked for it), and
    /// whether it takes its part of the capacity from there too (it said so when it asked).
    static func lineFollowing(_ device: DeviceID, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> (follows: Bool, limitOnLine: Bool) {
        try await connection.rows("SELECT follows_line, limit_on_line FROM totem WHERE device_id = \(device)",
                                  as: (Bool, Bool).self, logger).first ?? (false, false)
    }

    /// The settings of `store` for `device` once their version (the configuration's, for a
    /// door that takes its part of the capacity from its line) is above `after`, waiting up to `wait` seconds for a
    /// change (a long poll, woken by `signals`; the hub holds no state); the current
    /// settings when nothing changed in that time.
    static func next(store: StoreID, device: DeviceID, after: Int64, wait: Double, database: HubDatabase,
                     signals: SettingsSignals) async throws -> StoreSettingsDocument {
        try await signals.longPoll(store: store, wait: wait, ready: {
            let version = try await database.transaction { connection in
                try await connection.all("""
                    SELECT CASE WHEN coalesce(t.limit_on_line, false) THEN s.config_version ELSE s.settings_version END
                    FROM store s LEFT JOIN totem t ON t.device_id = \(device) WHERE s.store_id = \(store)
                    """, as: Int64.self, database.logger).first
            }
            guard let version else { throw HubError(.notFound, .unknownStore, "no store \"\(store)\"") }
            return version > after
        }, answer: {
            let found = try await database.transaction { connection in
                try await current(store: store, device: device, connection, database.logger)
            }
            guard let found else { throw HubError(.notFound, .unknownStore, "no store \"\(store)\"") }
            return found
        })
    }
}
