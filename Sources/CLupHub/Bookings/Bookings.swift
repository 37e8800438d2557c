import HTTPTypes
import CLupCore
import Crypto
import Foundation
import Logging
import PostgresNIO

/// Bookings made through the hub, for the chain's phone app (R6, R7, R13, R14): a store's
/// free slots, a booking for oneself or someone else, a cancellation.
///
/// Bookings are numbered ZB-001, ZB-002, … on from the live ones, over days. A booking's
/// code is a ticket code (`TicketPayload`, version 2, letter Z) signed with the
/// store's booking key, so a door verifies it offline like a totem's ticket and admits it
/// within the window around its slot. A slot takes bookings up to the store's booking share
/// of its capacity; two customers racing for its last place are served one after the other
/// under the store's row lock, and exactly one gets it. Nothing personal is kept: the app
/// names its customer by an opaque reference.
public struct Bookings: Sendable {
    let database: HubDatabase

    public init(database: HubDatabase) {
        self.database = database
    }

    /// How far ahead a slot may be booked.
    static let daysAhead = 7.0

    /// A slot of a store's day, as the app sees it.
    public struct Slot: Codable, Sendable, Equatable {
        public let start: Date
        public let end: Date
        /// Booking places of the slot open to bookings made through the hub (the rest are
        /// kept for the totems' own, `StoreCalendar.totemPlaces`), how many are taken and how many are left.
        public let places: Int
        public let booked: Int
        public let free: Int
        /// Whether it can still be booked (its window has not closed).
        public let bookable: Bool

        public init(start: Date, end: Date, places: Int, booked: Int, bookable: Bool) {
            self.start = start
            self.end = end
            self.places = places
            self.booked = booked
            free = max(0, places - booked)
            self.bookable = bookable
        }
    }

    public struct DaySlots: Codable, Sendable {
        public let store: StoreID
        public let day: String
        public let timeZone: String
        public let slotMinutes: Double
        public let slots: [Slot]
    }

    /// What the app asks to book.
    public struct Request: Codable, Sendable {
        public let slotStart: Date
        public let customerRef: String
        public let forSomeoneElse: Bool?
    }

    /// A booking made: what the app shows and turns into a QR code.
    public struct Made: Codable, Sendable {
        public let store: StoreID
        public let number: String
        public let slotStart: Date
        public let slotEnd: Date
        /// The door admits it from `windowOpens` to `windowCloses`.
        public let windowOpens: Date
        public let windowCloses: Date
        public let code: String
    }

    public struct Cancellation: Codable, Sendable {
        public let customerRef: String
    }

    public struct Cancelled: Codable, Sendable {
        public let store: StoreID
        public let number: String
        public let cancelledAt: Date
    }

    /// The reference of bookings made for customers at a totem: the totem's, as nothing
    /// is known of a customer there (no notice can reach them).
    static func totemReference(_ deviceID: DeviceID) -> String {
        String(("totem-" + deviceID.rawValue).unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
            .map(Character.init).prefix(64))
    }

    /// The app's reference for its customer (`CustomerReference.app(checking:)`).
    static func checkReference(_ reference: String) throws {
        _ = try CustomerReference.app(checking: reference)
    }

    /// Places of each slot from `first` to `last` kept for the totems' own bookings: each
    /// totem's share, or as many as it issued when more (a totem offline may have issued them
    /// before it heard its share shrink). Unix seconds of the slot → places.
    static func keptForTotems(store: StoreID, from first: Date, to last: Date, calendar: StoreCalendar, _ connection: PostgresConnection,
                              _ logger: Logger) async throws -> [Double: Int] {
        let issued = try await connection.rows("""
            SELECT slot_start, device_id, count(*)::integer FROM ticket
            WHERE store_id = \(store) AND slot_start >= \(first) AND slot_start <= \(last) AND number NOT LIKE 'Z%'
                AND state NOT IN ('print-failed', 'voided')
            GROUP BY slot_start, device_id
            """, as: (Date, String, Int).self, logger)
        let active = Set(try await connection.all("""
            SELECT device_id FROM totem WHERE store_id = \(store) AND revoked_at IS NULL
            """, as: String.self, logger))
        var kept: [Double: Int] = [:]
        var start = first
        while start <= last, calendar.totemPlaces > 0 {
            kept[start.timeIntervalSince1970] = active.count * calendar.totemPlaces
            start = start.addingTimeInterval(calendar.slotSeconds)
        }
        for (slot, device, count) in issued {
            // A totem's own bookings beyond its share, or an earlier totem's, take more places.
            let beyond = active.contains(device) ? max(0, count - calendar.totemPlaces) : count
            kept[slot.timeIntervalSince1970, default: 0] = kept[slot.timeIntervalSince1970, default: 0].addingSaturating(beyond)
        }
        return kept
    }

    /// The slots of `day` (YYYY-MM-DD; nil: today on the store's clock) with their free places.
    public func slots(store: StoreID, day: String?, now: Date = Date()) async throws -> DaySlots {
        let logger = database.logger
        return try await database.transaction { connection in
            let calendar = try await StoreCalendar.read(store: store, connection, logger)
            let day = day ?? calendar.day(of: now)
            guard CivilDay.number(day) != nil else { throw HubError.badRequest("day is a date, YYYY-MM-DD: not \"\(day.prefix(16))\"") }
            let starts = calendar.starts(of: day)
            let counts = Dictionary(try await connection.rows("""
                SELECT slot_start, count(*)::integer FROM booking
                WHERE store_id = \(store) AND cancelled_at IS NULL AND slot_start >= \(starts.first ?? now)
                    AND slot_start <= \(starts.last ?? now)
                GROUP BY slot_start
                """, as: (Date, Int).self, logger).map { ($0.0.timeIntervalSince1970, $0.1) }, uniquingKeysWith: +)
            let kept = try await Self.keptForTotems(store: store, from: starts.first ?? now, to: starts.last ?? now,
                                                    calendar: calendar, connection, logger)
            let slots = starts.map { start in
                Slot(start: start, end: start.addingTimeInterval(calendar.slotSeconds),
                     places: max(0, calendar.placesPerSlot - (kept[start.timeIntervalSince1970] ?? 0)),
                     booked: counts[start.timeIntervalSince1970] ?? 0, bookable: now <= start.addingTimeInterval(calendar.late))
            }
            return DaySlots(store: store, day: day, timeZone: calendar.zone.identifier,
                            slotMinutes: calendar.slotSeconds / 60, slots: slots)
        }
    }

    /// Books a place in the slot starting at `request.slotStart`, if it has one free (once for `key`).
    func book(store: StoreID, _ request: Request, once key: IdempotencyKey? = nil, now: Date = Date()) async throws -> Made {
        try Self.checkReference(request.customerRef)
        guard let storeNumber = UInt32(store.rawValue) else { throw HubError(.notFound, .unknownStore, "no store \"\(store.rawValue.prefix(16))\"") }
        let logger = database.logger
        return try await database.storeTransaction(store, once: key) { locked in
            // The store's row lock serves bookings of one store one at a time: the count
            // below is not changed by another hub process before this one commits.
            let connection = locked.connection
            let calendar = try await StoreCalendar.read(store: store, connection, logger)
            let start = request.slotStart
            let day = calendar.day(of: start)
            guard calendar.starts(of: day).contains(start) else {
                throw HubError(.unprocessableContent, .bookingClosed,
                               "\(start.formatted(.iso8601)) is not the start of one of store \(store)'s slots (GET its slots)")
            }
            guard now <= start.addingTimeInterval(calendar.late) else {
                throw HubError(.unprocessableContent, .bookingClosed, "the slot at \(start.formatted(.iso8601)) is over")
            }
            let booked = try await connection.all("""
                SELECT count(*)::integer FROM booking WHERE store_id = \(store) AND slot_start = \(start) AND cancelled_at IS NULL
                """, as: Int.self, logger).first ?? 0
            let kept = try await Self.keptForTotems(store: store, from: start, to: start, calendar: calendar, connection, logger)
            let places = max(0, calendar.placesPerSlot - (kept[start.timeIntervalSince1970] ?? 0))
            guard booked < places else {
                throw HubError(.conflict, .bookingSlotFull,
                               "the slot at \(start.formatted(.iso8601)) holds \(booked) of \(places) bookings")
            }
            guard start <= now.addingTimeInterval(Self.daysAhead * 86_400) else {
                throw HubError(.unprocessableContent, .bookingClosed, "bookings are taken up to \(Int(Self.daysAhead)) days ahead")
            }
            // Numbered on from the bookings still live (from the day before yesterday on), so
            // that no number a door may still hear of (cancelled, used) is given twice.
            let sequence = (try await connection.all("""
                SELECT coalesce(max(seq), 0) + 1 FROM booking WHERE store_id = \(store) AND slot_day >= current_date - 2
                """, as: Int.self, logger).first ?? 1)
            guard sequence <= TicketNumber.maximumSequence else {
                throw HubError(.conflict, .bookingSlotFull, "store \(store) holds \(TicketNumber.maximumSequence) live bookings")
            }
            let key = try await Self.bookingKey(locked)
            let payload = TicketPayload(store: storeNumber, hubBooking: sequence, slotStart: start,
                                        slotMinutes: UInt16(clamping: Int(calendar.slotSeconds / 60)))
            let code = TicketCode.make(payload, signedWith: key)
            let number = payload.number.description
            try await connection.query("""
                INSERT INTO booking (store_id, slot_day, seq, number, slot_start, customer_ref, for_someone_else, code)
                VALUES (\(store), \(day)::date, \(sequence), \(number), \(start), \(request.customerRef),
                        \(request.forSomeoneElse ?? false), \(code))
                """, logger: logger)
            // The doors keep its place while its window is open: they hear of it with the settings.
            try await DoorShares.replan(locked, bump: .configuration)
            return Made(store: store, number: number, slotStart: start, slotEnd: start.addingTimeInterval(calendar.slotSeconds),
                        windowOpens: start.addingTimeInterval(-calendar.early), windowCloses: start.addingTimeInterval(calendar.late),
                        code: code)
        }
    }

    /// Cancels booking `number` of the store made with `reference`: its place is free again,
    /// the store's doors hear it with the next settings, and a notice waits for the SMS gateway.
    func cancel(store: StoreID, number: String, reference: String, once key: IdempotencyKey? = nil, now: Date = Date()) async throws -> Cancelled {
        try Self.checkReference(reference)
        // The documented pattern, checked as written: `TicketNumber` also reads forms (ZB-8)
        // that no booking is ever given.
        guard number.utf8.count <= 8, number.range(of: #"\AZB-[0-9]{3,5}\z"#, options: .regularExpression) != nil else {
            throw HubError.badRequest("\"\(TypedText.kept(number, maximum: 16))\" is not the number of a booking (ZB- and 3 to 5 digits)")
        }
        // Of that form, but beyond what a booking is ever numbered (ZB-99999): no such booking.
        guard let parsed = TicketNumber(number), parsed.totem == TicketPayload.hubLetter, parsed.lane == .booking else {
            throw HubError(.notFound, .unknownBooking, "store \(store) has no booking \(number): bookings are numbered up to ZB-\(TicketNumber.maximumSequence)")
        }
        let logger = database.logger
        return try await database.storeTransaction(store, once: key) { locked in
            let connection = locked.connection
            let calendar = try await StoreCalendar.read(store: store, connection, logger)
            // The newest booking with that number (numbers restart each day).
            guard let (day, start, cancelledAt) = try await connection.rows("""
                SELECT slot_day::text, slot_start, cancelled_at FROM booking
                WHERE store_id = \(store) AND number = \(parsed.description) AND customer_ref = \(reference)
                ORDER BY slot_day DESC LIMIT 1
                """, as: (String, Date, Date?).self, logger).first
            else { throw HubError(.notFound, .unknownBooking, "store \(store) has no booking \(parsed) made with that reference") }
            if let cancelledAt { return Cancelled(store: store, number: parsed.description, cancelledAt: cancelledAt) }
            guard now <= start.addingTimeInterval(calendar.late) else {
                throw HubError(.unprocessableContent, .bookingClosed, "booking \(parsed)'s slot at \(start.formatted(.iso8601)) is over")
            }
            let admitted = try await connection.all("""
                SELECT count(*)::integer FROM ticket WHERE store_id = \(store) AND number = \(parsed.description)
                    AND business_day >= \(day)::date - 1 AND admitted_at IS NOT NULL
                """, as: Int.self, logger).first ?? 0
            guard admitted == 0 else {
                throw HubError(.unprocessableContent, .bookingClosed, "booking \(parsed) was already used at the door")
            }
            try await connection.query("""
                UPDATE booking SET cancelled_at = \(now) WHERE store_id = \(store) AND slot_day = \(day)::date AND number = \(parsed.description)
                """, logger: logger)
            try await connection.query("""
                INSERT INTO notice (store_id, customer_ref, kind, booking_number, slot_start)
                VALUES (\(store), \(reference), 'cancelled', \(parsed.description), \(start))
                """, logger: logger)
            // The doors refuse it from their next settings on.
            try await DoorShares.replan(locked, bump: .configuration)
            return Cancelled(store: store, number: parsed.description, cancelledAt: now)
        }
    }

    /// The store's notice rules after a batch of its doors (R10, R11): while the store is
    /// full, a booking whose slot is near (`delay_notice_minutes`) or under way hears that its
    /// customer may wait at the door for someone to leave (`delayed`, once per booking); once
    /// it has been full for its `major_delay_minutes`, those bookings are cancelled and told
    /// so, and the doors refuse them from their next settings. A booking made at a totem has
    /// nobody to tell, and is left alone.
    static func applyNoticeRules(now: Date, _ locked: StoreTransaction) async throws {
        let (store, connection, logger) = (locked.store, locked.connection, locked.logger)
        guard let (fullSince, majorDelay) = try await connection.rows(BatchStatements.MarkFull(store: store, now: now), logger).first,
              let fullSince
        else { return }
        _ = try await connection.execute(BatchStatements.NoticeDelays(store: store, now: now), logger: logger)
        guard let majorDelay, now.timeIntervalSince(fullSince) >= Double(majorDelay) * 60 else { return }
        let cancelled = try await connection.rows(BatchStatements.MajorDelays(store: store, now: now), logger)
        if !cancelled.isEmpty {
            logger.notice("bookings cancelled: the store has been full for its major delay", metadata: [
                "store": "\(store)", "bookings": "\(cancelled.joined(separator: " "))", "full since": "\(fullSince.formatted(.iso8601))"])
            try await DoorShares.replan(locked, bump: .configuration)
        }
    }

    /// Queues a reminder for each booking made in the app whose slot starts within its store's
    /// `reminder_minutes` (once per booking); returns how many.
    public static func queueReminders(_ database: HubDatabase, now: Date = Date()) async throws -> Int {
        try await database.transaction { connection in
            try await connection.all("""
                WITH queued AS (
                    INSERT INTO notice (store_id, customer_ref, kind, booking_number, slot_start)
                    SELECT b.store_id, b.customer_ref, 'reminder', b.number, b.slot_start
                    FROM booking b JOIN store s ON s.store_id = b.store_id
                    WHERE b.cancelled_at IS NULL AND b.slot_start > \(now) AND b.slot_start <= \(now) + interval '1440 minutes'
                        AND s.reminder_minutes > 0 AND b.slot_start <= \(now) + s.reminder_minutes * interval '1 minute'
                        AND b.customer_ref NOT LIKE 'totem-%'
                    ON CONFLICT DO NOTHING RETURNING 1)
                SELECT count(*)::integer FROM queued
                """, as: Int.self, database.logger).first ?? 0
        }
    }

    /// The store's booking key, made the first time it is needed (a booking, a place taken
    /// from a phone); its doors learn the public half with the new settings version that
    /// making it makes, before any code it signed reaches them.
    static func bookingKey(_ locked: StoreTransaction) async throws -> Curve25519.Signing.PrivateKey {
        let (store, connection, logger) = (locked.store, locked.connection, locked.logger)
        if let raw = try await connection.all("SELECT booking_key FROM store WHERE store_id = \(store) AND booking_key IS NOT NULL",
                                              as: Data.self, logger).first {
            guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
                throw HubError(.internalServerError, .hubKeysUnusable, "store \(store)'s booking key is not an Ed25519 key")
            }
            return key
        }
        let key = Curve25519.Signing.PrivateKey()
        try await connection.query("UPDATE store SET booking_key = \(key.rawRepresentation) WHERE store_id = \(store)", logger: logger)
        // A new key the doors must know (with the totems' keys in the settings) before they
        // see a code it signed.
        try await DoorShares.replan(locked, bump: .configuration)
        return key
    }
}

extension UInt8 {
    var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }
}

extension Bookings {
    /// The hub's round that queues the reminders due (`queueReminders`) every `interval`,
    /// whether or not a gateway takes them yet, as every notice is.
    static func reminderRound(_ database: HubDatabase, every interval: Duration = .seconds(15), logger: Logger) -> Round {
        Round(name: "queueing reminders", interval: interval, database: database, logger: logger) {
            _ = try await queueReminders(database)
        }
    }
}
