import HTTPTypes
import CLupCore
import CLupProtocol
import Crypto
import Foundation
import PostgresNIO
import ServiceLifecycle

/// What an administrator does from the hub's shell: stores and the totems enrolled in them.
public struct HubAdmin: Sendable {
    let database: HubDatabase

    public init(database: HubDatabase) {
        self.database = database
    }

    public func createStore(id: StoreID, name: String, capacity: Int) async throws {
        guard id.rawValue.range(of: "^[1-9][0-9]{0,8}$", options: .regularExpression) != nil else {
            throw HubError.badRequest("a store is numbered 1 to 999999999 (its number is signed into every ticket's code): not \"\(id)\"")
        }
        guard (1...100_000).contains(capacity) else { throw HubError.badRequest("capacity \(capacity) is out of range 1...100000") }
        do {
            try await database.client.query("INSERT INTO store (store_id, name, capacity) VALUES (\(id), \(name), \(capacity))",
                                            logger: database.logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw HubError(.conflict, .storeExists, "store \(id) exists already")
        } catch {
            throw HubDatabase.hubError(error)
        }
    }

    /// One enrolled totem, as `clup-hub totems` lists it.
    public struct TotemRow: Codable, Sendable {
        public let deviceID: DeviceID
        public let store: StoreID
        public let letter: String
        public let door: DoorName
        public let enrolledAt: Date
        public let revokedAt: Date?
        public let lastContact: Date?
        public let acknowledged: Int64
        public let outboxDepth: Int64?
        public let clockSkew: Double?
        /// The version it runs (as it last reported), and how its last update went.
        public let softwareVersion: String
        public let lastUpdate: String?
        /// When the release line of `softwareVersion` stops getting fixes, as its signed
        /// manifest says; nil when no manifest the hub holds says it.
        public let supportEnds: Date?
        /// Its last integrity check and how full its audit trail is, as it last reported.
        public let integrity: IntegrityReport?
        public let auditTrail: AuditTrailFill?
        /// Why it records nothing now (its disk is full), as it last reported; nil when it does.
        public let notRecording: String?
        /// The paper on its roll, as it last reported.
        public let paper: PaperStatus?

        /// Whether the version it runs is out of support at `now`.
        public func outOfSupport(at now: Date) -> Bool { supportEnds.map { $0 <= now } ?? false }
    }

    public func totems(store: StoreID?) async throws -> [TotemRow] {
        do {
            return try await database.withConnection { [logger = database.logger] connection in
                try await connection.rows("""
                    SELECT t.device_id, t.store_id, t.letter, t.door, t.enrolled_at, t.revoked_at, t.last_contact,
                           coalesce(c.acknowledged, 0), t.last_outbox_depth, t.last_clock_skew, t.software_version,
                           u.version || ' ' || u.outcome || to_char(u.at AT TIME ZONE 'UTC', ' "at" YYYY-MM-DD HH24:MI "UTC"')
                               || CASE WHEN u.detail = '' THEN '' ELSE ': ' || u.detail END,
                           m.support_ends, t.last_health
                    FROM totem t LEFT JOIN device_cursor c ON c.device_id = t.device_id
                        LEFT JOIN totem_update u ON u.device_id = t.device_id
                        LEFT JOIN release_manifest m ON m.version = t.software_version
                    WHERE \(store?.rawValue)::text IS NULL OR t.store_id = \(store?.rawValue) ORDER BY t.store_id, t.letter, t.enrolled_at
                    """, as: (String, String, String, String, Date, Date?, Date?, Int64, Int64?, Double?, String, String?, Date?, String?).self, logger)
            }.map { device, store, letter, door, enrolled, revoked, contact, acknowledged, depth, skew, version, update, supportEnds, health in
                let reported = health.flatMap { try? JSONDecoder().decode(TotemHealth.self, from: Data($0.utf8)) }
                return TotemRow(deviceID: DeviceID(device), store: StoreID(store), letter: letter, door: DoorName(door), enrolledAt: enrolled,
                                revokedAt: revoked, lastContact: contact, acknowledged: acknowledged, outboxDepth: depth, clockSkew: skew,
                                softwareVersion: version, lastUpdate: update, supportEnds: supportEnds,
                                integrity: reported?.integrity, auditTrail: reported?.auditTrail, notRecording: reported?.notRecording,
                                paper: reported?.paper)
            }
        } catch {
            throw HubDatabase.hubError(error)
        }
    }
}

extension HubAdmin {
    /// Changes a store's settings; each change is a new version the store's totems apply
    /// (the doors' limits planned again for the new capacity). Returns the settings now in force.
    public func setStore(id: StoreID, _ change: StoreSettingsChange, by actor: AuditActor) async throws
        -> StoreSettingsDocument {
        let logger = database.logger
        return try await database.storeTransaction(id) { locked in
            let connection = locked.connection
            guard var settings = try await StoreSettingsReader.current(store: id, device: nil, connection, logger),
                  var windows = settings.windows
            else {
                throw HubError(.notFound, .unknownStore, "no store \"\(id)\"")
            }
            let before = Self.describe(settings)
            settings.capacity = change.capacity ?? settings.capacity
            settings.priorityShare = change.priorityShare ?? settings.priorityShare
            settings.bookingShare = change.bookingShare ?? settings.bookingShare
            windows.presentationMinutes = change.presentationMinutes ?? windows.presentationMinutes
            windows.bookingEarlyMinutes = change.bookingEarlyMinutes ?? windows.bookingEarlyMinutes
            windows.bookingLateMinutes = change.bookingLateMinutes ?? windows.bookingLateMinutes
            windows.slotMinutes = change.slotMinutes ?? windows.slotMinutes
            settings.windows = windows
            settings.totemBookingPlaces = change.totemBookingPlaces ?? settings.totemBookingPlaces
            if let problem = settings.problem { throw HubError.badRequest(problem) }
            if let places = settings.totemBookingPlaces, places > settings.bookingsPerSlot {
                throw HubError.badRequest("\(places) places per slot for each totem's own bookings, but a slot has \(settings.bookingsPerSlot)")
            }
            try await connection.query("""
                UPDATE store SET capacity = \(settings.capacity), priority_share = \(settings.priorityShare),
                    booking_share = \(settings.bookingShare), presentation_minutes = \(windows.presentationMinutes),
                    booking_early_minutes = \(windows.bookingEarlyMinutes), booking_late_minutes = \(windows.bookingLateMinutes),
                    slot_minutes = \(windows.slotMinutes), totem_booking_places = \(settings.totemBookingPlaces ?? 0)
                WHERE store_id = \(id)
                """, logger: logger)
            settings.version = try await DoorShares.replan(locked, bump: .configuration)
            try await Audit.record(by: actor, store: id, action: "store settings changed", before: before,
                                   after: Self.describe(settings), connection, logger)
            return settings
        }
    }
}

extension HubAdmin {
    /// Puts a store on the map (WGS 84 degrees), for the app's stores nearby.
    public func setLocation(id: StoreID, latitude: Double, longitude: Double, by actor: AuditActor) async throws {
        guard latitude.isFinite, (-90...90).contains(latitude), longitude.isFinite, (-180...180).contains(longitude) else {
            throw HubError.badRequest("latitude is -90 to 90 and longitude -180 to 180 (WGS 84 degrees)")
        }
        try await database.transaction { [logger = database.logger] connection in
            guard let before = try await connection.rows("""
                SELECT latitude, longitude FROM store WHERE store_id = \(id) FOR NO KEY UPDATE
                """, as: (Double?, Double?).self, logger).first
            else { throw HubError(.notFound, .unknownStore, "no store \"\(id.rawValue.prefix(16))\"") }
            try await connection.query("UPDATE store SET latitude = \(latitude), longitude = \(longitude) WHERE store_id = \(id)",
                                       logger: logger)
            try await Audit.record(by: actor, store: id, action: "location changed",
                                   before: before.0.map { "\($0), \(before.1 ?? 0)" } ?? "not on the map",
                                   after: "\(latitude), \(longitude)", connection, logger)
        }
    }

    /// A store's rules for its customers' notices (R10, R11, reminders).
    public struct NoticeRules: Sendable, Equatable {
        /// A booking whose slot starts within this many minutes while the store is full hears it may wait.
        public var delayNoticeMinutes: Int
        /// Once the store has been full this long, those bookings are cancelled and told so; nil: never.
        public var majorDelayMinutes: Int?
        /// A booking made in the app hears a reminder this long before its slot; 0: none.
        public var reminderMinutes: Int

        public init(delayNoticeMinutes: Int, majorDelayMinutes: Int?, reminderMinutes: Int) {
            self.delayNoticeMinutes = delayNoticeMinutes
            self.majorDelayMinutes = majorDelayMinutes
            self.reminderMinutes = reminderMinutes
        }

        /// A new store's rules.
        public static let standard = NoticeRules(delayNoticeMinutes: 30, majorDelayMinutes: nil, reminderMinutes: 60)

        public var description: String {
            "delay notice \(delayNoticeMinutes) min ahead, major delay "
                + (majorDelayMinutes.map { "after \($0) min full" } ?? "never") + ", reminder " + (reminderMinutes == 0 ? "none" : "\(reminderMinutes) min ahead")
        }
    }

    /// A store's notice rules.
    public func noticeRules(id: StoreID) async throws -> NoticeRules {
        guard let row = try await database.transaction({ [logger = database.logger] connection in
            try await connection.rows("""
                SELECT delay_notice_minutes, major_delay_minutes, reminder_minutes FROM store WHERE store_id = \(id)
                """, as: (Int, Int?, Int).self, logger).first
        }) else { throw HubError(.notFound, .unknownStore, "no store \"\(id.rawValue.prefix(16))\"") }
        return NoticeRules(delayNoticeMinutes: row.0, majorDelayMinutes: row.1, reminderMinutes: row.2)
    }

    /// Changes a store's notice rules (what is left nil stays); returns the rules in force.
    /// `majorDelayMinutes` 0 turns major delays off. Rules as they were change nothing.
    public func setNoticeRules(id: StoreID, delayNoticeMinutes: Int?, majorDelayMinutes: Int?, reminderMinutes: Int?,
                               by actor: AuditActor) async throws -> NoticeRules {
        if let delayNoticeMinutes, !(0...240).contains(delayNoticeMinutes) { throw HubError.badRequest("a delay notice is 0 to 240 minutes ahead") }
        if let majorDelayMinutes, !(0...600).contains(majorDelayMinutes) { throw HubError.badRequest("a major delay is 1 to 600 minutes full (0: never)") }
        if let reminderMinutes, !(0...1440).contains(reminderMinutes) { throw HubError.badRequest("a reminder is 0 to 1440 minutes ahead") }
        return try await database.transaction { [logger = database.logger] connection in
            guard let row = try await connection.rows("""
                SELECT delay_notice_minutes, major_delay_minutes, reminder_minutes FROM store WHERE store_id = \(id) FOR NO KEY UPDATE
                """, as: (Int, Int?, Int).self, logger).first
            else { throw HubError(.notFound, .unknownStore, "no store \"\(id.rawValue.prefix(16))\"") }
            let before = NoticeRules(delayNoticeMinutes: row.0, majorDelayMinutes: row.1, reminderMinutes: row.2)
            var after = before
            after.delayNoticeMinutes = delayNoticeMinutes ?? before.delayNoticeMinutes
            if let majorDelayMinutes { after.majorDelayMinutes = majorDelayMinutes == 0 ? nil : majorDelayMinutes }
            after.reminderMinutes = reminderMinutes ?? before.reminderMinutes
            guard after != before else { return before }
            try await connection.query("""
                UPDATE store SET delay_notice_minutes = \(after.delayNoticeMinutes), major_delay_minutes = \(after.majorDelayMinutes),
                    reminder_minutes = \(after.reminderMinutes)
                WHERE store_id = \(id)
                """, logger: logger)
            try await Audit.record(by: actor, store: id, action: "notice rules changed", before: before.description,
                                   after: after.description, connection, logger)
            return after
        }
    }

    /// People left inside at closing as counted (either way) past which a store-day is
    /// flagged in the panel: the chain's counting tolerance.
    public static let countingToleranceRange = 0...1000

    public func countingTolerance() async throws -> Int {
        try await database.transaction { [logger = database.logger] connection in
            try await connection.all("SELECT counting_tolerance FROM chain_setting", as: Int.self, logger).first ?? 2
        }
    }

    /// Sets the chain's counting tolerance, audited; returns the one before.
    public func setCountingTolerance(_ people: Int, by actor: AuditActor) async throws -> Int {
        guard Self.countingToleranceRange.contains(people) else {
            throw HubError.badRequest("the counting tolerance is 0 to 1000 people, not \(people)")
        }
        return try await database.transaction { [logger = database.logger] connection in
            let before = try await connection.all("SELECT counting_tolerance FROM chain_setting FOR UPDATE", as: Int.self, logger).first ?? 2
            guard before != people else { return before }
            try await connection.query("UPDATE chain_setting SET counting_tolerance = \(people)", logger: logger)
            try await Audit.record(by: actor, store: nil, action: "counting tolerance", before: "\(before) people",
                                   after: "\(people) people", connection, logger)
            return before
        }
    }

    /// When a store's staff are alerted (by the chain's Alertmanager, through the shipped
    /// rules that read these from the hub's metrics): the estimated wait and the line's
    /// length past which they hear of it; 0 turns either off.
    public struct StaffAlerts: Sendable, Equatable {
        public var waitMinutes: Int
        public var waiting: Int

        public static let waitRange = 0...600
        public static let waitingRange = 0...100_000

        public init(waitMinutes: Int, waiting: Int) {
            self.waitMinutes = waitMinutes
            self.waiting = waiting
        }

        public var description: String {
            "staff alerted past " + (waitMinutes == 0 ? "no wait" : "a \(waitMinutes) min wait") + " and "
                + (waiting == 0 ? "no line length" : "\(waiting) waiting")
        }
    }

    /// A store's staff alerts.
    public func staffAlerts(id: StoreID) async throws -> StaffAlerts {
        guard let row = try await database.transaction({ [logger = database.logger] connection in
            try await connection.rows("SELECT alert_wait_minutes, alert_waiting FROM store WHERE store_id = \(id)",
                                      as: (Int, Int).self, logger).first
        }) else { throw HubError(.notFound, .unknownStore, "no store \"\(id.rawValue.prefix(16))\"") }
        return StaffAlerts(waitMinutes: row.0, waiting: row.1)
    }

    /// Changes a store's staff alerts (what is left nil stays), audited; returns those in force.
    public func setStaffAlerts(id: StoreID, waitMinutes: Int?, waiting: Int?, by actor: AuditActor) async throws -> StaffAlerts {
        if let waitMinutes, !StaffAlerts.waitRange.contains(waitMinutes) {
            throw HubError.badRequest("a staff alert's wait is 0 to 600 minutes (0: none), not \(waitMinutes)")
        }
        if let waiting, !StaffAlerts.waitingRange.contains(waiting) {
            throw HubError.badRequest("a staff alert's line length is 0 to 100000 waiting (0: none), not \(waiting)")
        }
        return try await database.transaction { [logger = database.logger] connection in
            guard let row = try await connection.rows("""
                SELECT alert_wait_minutes, alert_waiting FROM store WHERE store_id = \(id) FOR NO KEY UPDATE
                """, as: (Int, Int).self, logger).first
            else { throw HubError(.notFound, .unknownStore, "no store \"\(id.rawValue.prefix(16))\"") }
            let before = StaffAlerts(waitMinutes: row.0, waiting: row.1)
            let after = StaffAlerts(waitMinutes: waitMinutes ?? before.waitMinutes, waiting: waiting ?? before.waiting)
            guard after != before else { return before }
            try await connection.query("""
                UPDATE store SET alert_wait_minutes = \(after.waitMinutes), alert_waiting = \(after.waiting) WHERE store_id = \(id)
                """, logger: logger)
            try await Audit.record(by: actor, store: id, action: "staff alerts changed", before: before.description,
                                   after: after.description, connection, logger)
            return after
        }
    }

    /// Sets when a store opens and closes (minutes after midnight in `timeZone`): the hours
    /// its booking slots are offered in.
    public func setHours(id: StoreID, opens: String, closes: String, timeZone: String, by actor: AuditActor) async throws {
        guard let opensMinute = Self.minute(of: opens, upTo: 1439), let closesMinute = Self.minute(of: closes, upTo: 1440) else {
            throw HubError.badRequest("opening and closing are times HH:MM (closing may be 24:00): not \"\(opens)\", \"\(closes)\"")
        }
        guard opensMinute < closesMinute else { throw HubError.badRequest("the store closes (\(closes)) before it opens (\(opens))") }
        guard TimeZone(identifier: timeZone) != nil else {
            throw HubError.badRequest("\"\(timeZone.prefix(40))\" is not a time zone this machine knows (e.g. Europe/Rome, UTC)")
        }
        try await database.storeTransaction(id) { [logger = database.logger] locked in
            let connection = locked.connection
            guard let (before, zone) = try await connection.rows("""
                SELECT opens_minute, closes_minute, time_zone FROM store WHERE store_id = \(id)
                """, as: (Int, Int, String).self, logger).first.map({ (StoreSettingsDocument.OpeningHours(opensMinute: $0.0, closesMinute: $0.1), $0.2) })
            else { throw HubError(.notFound, .unknownStore, "no store \"\(id)\"") }
            try await connection.query("""
                UPDATE store SET opens_minute = \(opensMinute), closes_minute = \(closesMinute), time_zone = \(timeZone)
                WHERE store_id = \(id)
                """, logger: logger)
            // The totems hear the new hours with the next settings version.
            try await DoorShares.replan(locked, bump: .configuration)
            let after = StoreSettingsDocument.OpeningHours(opensMinute: opensMinute, closesMinute: closesMinute)
            try await Audit.record(by: actor, store: id, action: "opening hours changed", before: "\(before.description) \(zone)",
                                   after: "\(after.description) \(timeZone)", connection, logger)
        }
    }

    /// Minutes after midnight of `HH:MM`, at most `limit`.
    static func minute(of text: String, upTo limit: Int) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
              let hours = Int(parts[0]), let minutes = Int(parts[1]), (0...24).contains(hours), (0...59).contains(minutes)
        else { return nil }
        let minute = hours * 60 + minutes
        return minute <= limit ? minute : nil
    }
}

extension HubAdmin {
    /// A store's settings in a line, for the audit.
    static func describe(_ settings: StoreSettingsDocument) -> String {
        let booking = settings.bookingsPerSlot
        let totems = settings.totemBookingPlaces.map { ", \($0) per slot kept for each totem's own bookings" } ?? ""
        let windows = settings.windows.map {
            ", slots \(Int($0.slotMinutes)) min, presentation \(Int($0.presentationMinutes)) min, bookings \(Int($0.bookingEarlyMinutes)) min early to \(Int($0.bookingLateMinutes)) min late"
        } ?? ""
        return "capacity \(settings.capacity), walk-in \(settings.capacity - booking), booking \(booking), "
            + "priority share \(settings.priorityShare)\(windows)\(totems)"
    }
}

/// What `clup-hub store set` changes; nil leaves a setting as it is.
public struct StoreSettingsChange: Sendable {
    public var capacity: Int?
    public var priorityShare: Double?
    public var bookingShare: Double?
    public var presentationMinutes: Double?
    public var bookingEarlyMinutes: Double?
    public var bookingLateMinutes: Double?
    public var slotMinutes: Double?
    public var totemBookingPlaces: Int?

    public init(capacity: Int? = nil, priorityShare: Double? = nil, bookingShare: Double? = nil, presentationMinutes: Double? = nil,
                bookingEarlyMinutes: Double? = nil, bookingLateMinutes: Double? = nil, slotMinutes: Double? = nil,
                totemBookingPlaces: Int? = nil) {
        self.totemBookingPlaces = totemBookingPlaces
        self.capacity = capacity
        self.priorityShare = priorityShare
        self.bookingShare = bookingShare
        self.presentationMinutes = presentationMinutes
        self.bookingEarlyMinutes = bookingEarlyMinutes
        self.bookingLateMinutes = bookingLateMinutes
        self.slotMinutes = slotMinutes
    }
}
