import HTTPTypes
import CLupCore
import Crypto
import Foundation
import PostgresNIO

/// The line of a store's door, joined from a phone (R3, R5, R8): the app (or the website)
/// asks for a place; the hub numbers it for one door (`AR-004` at totem A's door), signs its
/// code with the store's booking key and hands it to that door's totem with the settings,
/// which puts it in its line by the time the hub took it and calls it by the same rules as
/// a printed ticket. The totem stays in charge: a door the hub has not heard from lately
/// takes no remote places, as its line may be moving without the hub knowing.
///
/// Nothing personal is kept: the app names its customer by an opaque reference.
public struct RemoteLine: Sendable {
    let database: HubDatabase

    public init(database: HubDatabase) {
        self.database = database
    }

    /// A door whose totem's last batch is older than this takes no remote places (a totem
    /// sends one every 30 s at least while it reaches the hub).
    public static let heardWithin = 90.0
    /// How long a remote place's code is valid: the day's longest wait.
    static let validMinutes: UInt16 = 600
    /// Places one reference may take in a store in a day (leaving and joining again included).
    public static let joinsPerReference = 6
    /// Remote places waiting at a store at most: twice its capacity, and at least this.
    public static let minimumRemoteWaiting = 20
    /// The pace a door is assumed to call at when it called nobody in the last hour.
    static let assumedMinutesPerCall = 3.0

    /// What the app asks: a place in the store's line, at the door of the totem with letter
    /// `door`, or (nil) at the door with the shortest line.
    public struct Request: Codable, Sendable {
        public let customerRef: String
        public let door: String?
        /// The customer's language (ISO 639-1): the door tells them in it what it does with their code.
        public let language: String?

        public init(customerRef: String, door: String? = nil, language: String? = nil) {
            self.customerRef = customerRef
            self.door = door
            self.language = language
        }
    }

    /// A place: what the app shows, and the code it shows at the door.
    public struct Place: Codable, Sendable, Equatable {
        public let store: StoreID
        public let number: String
        /// The letter of the door's totem, and the door's name.
        public let door: String
        public let doorName: String
        public let joinedAt: Date
        /// waiting (also while the totem has not taken it yet), called, admitted, entered,
        /// no-show, voided, or left.
        public let state: String
        /// Whether the door's totem has it in its line.
        public let atTheDoor: Bool
        /// Places before it in the door's line (priority tickets included); nil once it is not waiting.
        public let ahead: Int?
        /// The estimated wait in minutes; nil once it is not waiting.
        public let estimatedWaitMinutes: Int?
        public let code: String
    }

    public struct Leaving: Codable, Sendable {
        public let customerRef: String
    }

    public struct Left: Codable, Sendable, Equatable {
        public let store: StoreID
        public let number: String
        public let leftAt: Date
    }

    /// One door of the store as a join sees it.
    struct Door {
        let device: DeviceID
        let letter: String
        let name: String
        let heardAgo: Double?
        let line: Int
    }

    /// Takes a place in the store's line for the app's customer `request.customerRef` (once for `key`).
    func join(store: StoreID, _ request: Request, once key: IdempotencyKey? = nil, now: Date = Date()) async throws -> Place {
        try await join(store: store, door: request.door, for: try .app(checking: request.customerRef), language: request.language,
                       once: key, now: now)
    }

    /// Takes a place in the store's line for `customer`, at `door` (nil: the door with the
    /// shortest line). A website's visitor comes from `client`: one network takes at most
    /// `joinsPerNetworkPerMinute` places a minute and holds at most a quarter of the store's
    /// places from phones (`networkShare`), so a bot on one address cannot take the line.
    func join(store: StoreID, door asked: String?, for customer: CustomerReference, from client: ClientAddress? = nil,
              language: String? = nil, once key: IdempotencyKey? = nil, now: Date = Date()) async throws -> Place {
        if let door = asked, !(door.count == 1 && door.allSatisfy({ $0.isASCII && $0.isUppercase })) {
            throw HubError.badRequest("door is a totem's letter, A to Y: not \"\(TypedText.kept(door, maximum: 8))\"")
        }
        if let language, !(language.utf8.count == 2 && language.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) })) {
            throw HubError.badRequest("language is a two-letter code (ISO 639-1): not \"\(TypedText.kept(language, maximum: 8))\"")
        }
        let reference = customer.stored
        guard let storeNumber = UInt32(store.rawValue) else { throw HubError(.notFound, .unknownStore, "no store \"\(store.rawValue.prefix(16))\"") }
        let logger = database.logger
        let place = try await database.storeTransaction(store, once: key) { locked -> Place in
            // Under the store's lock: joins, leaves and the limits of one store one at a time.
            let connection = locked.connection
            let calendar = try await StoreCalendar.read(store: store, connection, logger)
            let minute = calendar.gregorian.dateComponents([.hour, .minute], from: now)
            let local = (minute.hour ?? 0) * 60 + (minute.minute ?? 0)
            guard (calendar.opensMinute..<calendar.closesMinute).contains(local) else {
                throw HubError(.unprocessableContent, .storeClosed, String(format: "store %@ is closed now: it opens %02d:%02d–%02d:%02d",
                                                                           store.rawValue, calendar.opensMinute / 60, calendar.opensMinute % 60,
                                                                           calendar.closesMinute / 60, calendar.closesMinute % 60))
            }
            let day = try await Self.businessDay(store: store, connection, logger)
            if let held = try await Self.livePlace(store: store, reference: reference, day: day, connection, logger) {
                throw HubError(.conflict, .alreadyInLine, "that reference holds \(held) in store \(store)'s line already")
            }
            let joins = try await connection.all("""
                SELECT count(*)::integer FROM remote_ticket
                WHERE store_id = \(store) AND customer_ref = \(reference) AND business_day = \(day)::date
                """, as: Int.self, logger).first ?? 0
            guard joins < Self.joinsPerReference else {
                throw HubError(.tooManyRequests, .joinLimit, "that reference took \(joins) places in store \(store)'s line today; at most \(Self.joinsPerReference)")
            }
            let most = max(Self.minimumRemoteWaiting, calendar.settings.capacity.addingSaturating(calendar.settings.capacity))
            var network: Data?
            if let client {
                let digest = try await Self.networkDigest(client, connection, logger)
                network = digest
                let (lastMinute, holding) = try await connection.rows("""
                    SELECT count(*) FILTER (WHERE r.joined_at > \(now.addingTimeInterval(-60)))::integer,
                        count(*) FILTER (WHERE r.left_at IS NULL AND NOT EXISTS (SELECT 1 FROM ticket t WHERE t.store_id = r.store_id
                            AND t.device_id = r.device_id AND t.number = r.number AND t.business_day >= r.business_day - 1
                            AND t.state <> 'waiting'))::integer
                    FROM remote_ticket r WHERE r.store_id = \(store) AND r.client_net = \(digest) AND r.business_day >= \(day)::date - 1
                    """, as: (Int, Int).self, logger).first ?? (0, 0)
                guard lastMinute < Self.joinsPerNetworkPerMinute else {
                    throw HubError(.tooManyRequests, .joinLimit,
                                   "\(client) took \(lastMinute) places in store \(store)'s line in the last minute; at most \(Self.joinsPerNetworkPerMinute)")
                }
                let share = Self.networkShare(of: most)
                guard holding < share else {
                    throw HubError(.tooManyRequests, .joinLimit,
                                   "\(client) holds \(holding) of store \(store)'s \(most) places from phones; one network holds at most \(share)")
                }
            }
            let waiting = try await connection.all("""
                SELECT count(*)::integer FROM remote_ticket r
                WHERE r.store_id = \(store) AND r.business_day >= \(day)::date - 1 AND r.left_at IS NULL
                    AND NOT EXISTS (SELECT 1 FROM ticket t WHERE t.store_id = r.store_id AND t.device_id = r.device_id
                                    AND t.number = r.number AND t.business_day >= r.business_day - 1 AND t.state <> 'waiting')
                """, as: Int.self, logger).first ?? 0
            guard waiting < most else {
                throw HubError(.tooManyRequests, .joinLimit, "store \(store)'s line holds \(waiting) places taken from phones; at most \(most) (book a slot instead)")
            }
            let door = try await Self.chooseDoor(store: store, asked: asked, day: day, now: now, connection, logger)
            let sequence = try await connection.all("""
                SELECT coalesce(max(seq), 0) + 1 FROM remote_ticket
                WHERE store_id = \(store) AND device_id = \(door.device) AND business_day >= \(day)::date - 1
                """, as: Int.self, logger).first ?? 1
            guard sequence <= TicketNumber.maximumSequence, let letter = door.letter.first else {
                throw HubError(.tooManyRequests, .joinLimit, "door \(door.letter) has given every number of its remote line")
            }
            let number = TicketNumber(totem: letter, lane: .remote, sequence: sequence)
            // To the millisecond: its place in the line (`LineOrder`; its code keeps whole seconds).
            let joinedAt = LineOrder.instant(now)
            let key = try await Bookings.bookingKey(locked)
            let code = TicketCode.make(TicketPayload(store: storeNumber, remote: number, joinedAt: joinedAt, validMinutes: Self.validMinutes),
                                       signedWith: key)
            try await connection.query("""
                INSERT INTO remote_ticket (store_id, business_day, device_id, seq, number, customer_ref, joined_at, code, client_net, language)
                VALUES (\(store), \(day)::date, \(door.device), \(sequence), \(number.description), \(reference), \(joinedAt), \(code),
                        \(network), \(language))
                """, logger: logger)
            // The door's totem hears of it at once (its line's long poll).
            try await Self.lineChanged(device: door.device, locked)
            return try await Self.place(store: store, number: number.description, reference: reference, now: now, connection, logger)
        }
        HubMetrics.remoteJoined()
        return place
    }

    /// Places a minute one network may take in a store's line from the website.
    public static let joinsPerNetworkPerMinute = 5

    /// The places from phones one network may hold at a store that takes `most`: a quarter
    /// (at least 2), so the other three quarters are always left to others.
    public static func networkShare(of most: Int) -> Int { max(2, most / 4) }

    /// What the hub keeps of the network a website's visitor came from: an HMAC with the
    /// chain's own key (`chain_setting.address_key`), so the table names no address, kept
    /// for the limits only and cleared a day on (`Retention`).
    static func networkDigest(_ client: ClientAddress, _ connection: PostgresConnection, _ logger: Logger) async throws -> Data {
        guard let key = try await connection.all("SELECT address_key FROM chain_setting", as: Data.self, logger).first else {
            throw HubError(.internalServerError, .hubInternalError, "the chain's settings row is missing")
        }
        return Data(HMAC<SHA256>.authenticationCode(for: client.network, using: SymmetricKey(data: key)).prefix(16))
    }

    /// Where the place `number` of the app's customer `reference` is now.
    public func place(store: StoreID, number: String, reference: String, now: Date = Date()) async throws -> Place {
        try await place(store: store, number: number, of: try .app(checking: reference), now: now)
    }

    /// Where the place `number` of `customer` is now.
    func place(store: StoreID, number: String, of customer: CustomerReference, now: Date = Date()) async throws -> Place {
        let number = try Self.remoteNumber(number)
        return try await database.transaction { connection in
            try await Self.place(store: store, number: number.description, reference: customer.stored, now: now, connection, database.logger)
        }
    }

    /// Leaves the line for the app's customer `reference` (once for `key`).
    func leave(store: StoreID, number: String, reference: String, once key: IdempotencyKey? = nil, now: Date = Date()) async throws -> Left {
        try await leave(store: store, number: number, of: try .app(checking: reference), once: key, now: now)
    }

    /// Leaves the line: the place is voided at the door with the next settings. Leaving a
    /// place already left answers as the first time did.
    func leave(store: StoreID, number: String, of customer: CustomerReference, once key: IdempotencyKey? = nil,
               now: Date = Date()) async throws -> Left {
        let reference = customer.stored
        let number = try Self.remoteNumber(number)
        let logger = database.logger
        let now = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        return try await database.storeTransaction(store, once: key) { locked in
            let connection = locked.connection
            let place = try await Self.place(store: store, number: number.description, reference: reference, now: now, connection, logger)
            if place.state == "left", let leftAt = try await connection.all("""
                SELECT left_at FROM remote_ticket WHERE store_id = \(store) AND number = \(place.number) AND joined_at = \(place.joinedAt)
                """, as: Date.self, logger).first {
                return Left(store: store, number: place.number, leftAt: leftAt)
            }
            guard place.state == "waiting" || place.state == "called" else {
                throw HubError(.unprocessableContent, .placeOver, "\(place.number) is \(place.state): there is no place to leave")
            }
            let doors = try await connection.all("""
                UPDATE remote_ticket SET left_at = \(now) WHERE store_id = \(store) AND number = \(place.number) AND joined_at = \(place.joinedAt)
                RETURNING device_id
                """, as: DeviceID.self, logger)
            for door in doors { try await Self.lineChanged(device: door, locked) }
            return Left(store: store, number: place.number, leftAt: now)
        }
    }

    // MARK: Reading

    /// A store as a person choosing where to go sees it: open or not, people inside and
    /// waiting, the estimated wait for a new place, whether its doors take places now.
    public struct StoreView: Sendable, Equatable {
        public let store: StoreID
        public let name: String
        public let isOpen: Bool
        /// "08:00–20:00" on the store's clock.
        public let hours: String
        public let inside: Int
        public let capacity: Int
        public let waiting: Int
        public let estimatedWaitMinutes: Int
        /// Doors whose totems the hub heard lately: the ones taking places now.
        public let doorsTaking: Int
    }

    public func store(_ store: StoreID, now: Date = Date()) async throws -> StoreView {
        try await database.transaction { connection in
            try await Self.view(store: store, now: now, connection, database.logger)
        }
    }

    static func view(store: StoreID, now: Date, _ connection: PostgresConnection, _ logger: Logger) async throws -> StoreView {
        let calendar = try await StoreCalendar.read(store: store, connection, logger)
        let day = try await businessDay(store: store, connection, logger)
        guard let (name, inside, waiting, calls, heard) = try await connection.rows("""
            SELECT s.name,
                (SELECT coalesce(sum(carried + entries - exits + corrections), 0)::integer FROM occupancy
                    WHERE store_id = s.store_id AND business_day = \(day)::date),
                (SELECT count(*)::integer FROM ticket k WHERE k.store_id = s.store_id AND k.business_day >= \(day)::date - 1
                    AND k.state = 'waiting' AND k.lane IN ('regular', 'priority', 'remote'))
                + (SELECT count(*)::integer FROM remote_ticket r WHERE r.store_id = s.store_id AND r.business_day >= \(day)::date - 1
                    AND r.left_at IS NULL AND NOT EXISTS (SELECT 1 FROM ticket k WHERE k.store_id = r.store_id
                        AND k.device_id = r.device_id AND k.number = r.number AND k.business_day >= r.business_day - 1)),
                (SELECT count(*)::integer FROM ticket WHERE store_id = s.store_id AND business_day >= \(day)::date - 1
                    AND called_at > \(now.addingTimeInterval(-3600))),
                (SELECT count(*)::integer FROM totem WHERE store_id = s.store_id AND revoked_at IS NULL
                    AND last_contact > \(now.addingTimeInterval(-heardWithin)))
            FROM store s WHERE s.store_id = \(store)
            """, as: (String, Int, Int, Int, Int).self, logger).first
        else { throw HubError(.notFound, .unknownStore, "no store \"\(store.rawValue.prefix(16))\"") }
        let minute = calendar.gregorian.dateComponents([.hour, .minute], from: now)
        let local = (minute.hour ?? 0) * 60 + (minute.minute ?? 0)
        let perCall = calls >= 2 ? 60.0 / Double(calls) : assumedMinutesPerCall
        // Room for everyone waiting and one more: a new place is called at once.
        let room = inside.addingSaturating(waiting) < calendar.settings.capacity
        return StoreView(store: store, name: name, isOpen: (calendar.opensMinute..<calendar.closesMinute).contains(local),
                         hours: StoreSettingsDocument.OpeningHours(opensMinute: calendar.opensMinute, closesMinute: calendar.closesMinute).description,
                         inside: max(0, inside), capacity: calendar.settings.capacity, waiting: waiting,
                         estimatedWaitMinutes: room ? 0 : Int((Double(waiting + 1) * perCall).rounded(.up)), doorsTaking: heard)
    }

    /// The place `customer` holds in the store's line now, if any (the website's way back to it).
    func livePlace(store: StoreID, of customer: CustomerReference) async throws -> String? {
        try await database.transaction { connection in
            let day = try await Self.businessDay(store: store, connection, database.logger)
            return try await Self.livePlace(store: store, reference: customer.stored, day: day, connection, database.logger)
        }
    }

    /// The number of a place taken from a phone, as the API documents it (a door's letter, R,
    /// and 3 to 5 digits); one that no door can give (AR-99999: beyond 65535) is no place, 404.
    static func remoteNumber(_ text: String) throws -> TicketNumber {
        guard text.utf8.count <= 8, text.range(of: #"\A[A-Y]R-[0-9]{3,5}\z"#, options: .regularExpression) != nil else {
            throw HubError.badRequest("\"\(TypedText.kept(text, maximum: 16))\" is not the number of a place taken from a phone (AR-004)")
        }
        guard let number = TicketNumber(text), number.lane == .remote else {
            throw HubError(.notFound, .unknownPlace, "no place \(text): a door numbers its places up to \(TicketNumber.maximumSequence)")
        }
        return number
    }

    /// The store's business day now (its totems' latest, else the hub's date), YYYY-MM-DD.
    static func businessDay(store: StoreID, _ connection: PostgresConnection, _ logger: Logger) async throws -> String {
        try await connection.all("""
            SELECT coalesce((SELECT max(business_day) FROM occupancy WHERE store_id = \(store) AND business_day <= current_date + 1),
                            current_date)::text
            """, as: String.self, logger).first ?? ""
    }

    /// The place `reference` holds in the store's line and has not finished with, if any.
    static func livePlace(store: StoreID, reference: String, day: String, _ connection: PostgresConnection, _ logger: Logger)
        async throws -> String? {
        try await connection.all("""
            SELECT r.number FROM remote_ticket r
            WHERE r.store_id = \(store) AND r.customer_ref = \(reference) AND r.business_day >= \(day)::date - 1 AND r.left_at IS NULL
                AND r.joined_at > now() - interval '\(Int(validMinutes)) minutes'
                AND NOT EXISTS (SELECT 1 FROM ticket t WHERE t.store_id = r.store_id AND t.device_id = r.device_id AND t.number = r.number
                                AND t.business_day >= r.business_day - 1
                                AND t.state IN ('entered', 'no-show', 'voided'))
            ORDER BY r.joined_at DESC LIMIT 1
            """, as: String.self, logger).first
    }

    /// The door asked for, or the one with the shortest line among those heard lately.
    static func chooseDoor(store: StoreID, asked: String?, day: String, now: Date, _ connection: PostgresConnection,
                           _ logger: Logger) async throws -> Door {
        let doors = try await connection.rows("""
            SELECT t.device_id, t.letter, t.door, extract(epoch FROM \(now) - t.last_contact)::float8,
                (SELECT count(*)::integer FROM ticket k WHERE k.store_id = t.store_id AND k.device_id = t.device_id
                    AND k.business_day >= \(day)::date - 1 AND k.state = 'waiting' AND k.lane IN ('regular', 'priority', 'remote'))
                + (SELECT count(*)::integer FROM remote_ticket r WHERE r.store_id = t.store_id AND r.device_id = t.device_id
                    AND r.business_day >= \(day)::date - 1 AND r.left_at IS NULL
                    AND NOT EXISTS (SELECT 1 FROM ticket k WHERE k.store_id = r.store_id AND k.device_id = r.device_id
                                    AND k.number = r.number AND k.business_day >= r.business_day - 1))
            FROM totem t WHERE t.store_id = \(store) AND t.revoked_at IS NULL AND t.letter <> \(String(TicketPayload.hubLetter))
            ORDER BY t.letter
            """, as: (DeviceID, String, String, Double?, Int).self, logger).map {
            Door(device: $0.0, letter: $0.1, name: $0.2, heardAgo: $0.3, line: $0.4)
        }
        let heard = { (door: Door) in (door.heardAgo ?? .infinity) <= heardWithin }
        let offer = "book a slot instead (GET /v1/stores/\(store)/slots), or join the line of another store (GET /v1/nearby)"
        if let asked {
            guard let door = doors.first(where: { $0.letter == asked }) else {
                throw HubError(.notFound, .unknownStore, "store \(store) has no door with totem \(asked)")
            }
            guard heard(door) else { throw HubError(.conflict, .doorNotHeard, silence(door) + "; " + offer) }
            return door
        }
        guard let door = doors.filter(heard).min(by: { ($0.line, $0.letter) < ($1.line, $1.letter) }) else {
            let why = doors.isEmpty ? "store \(store) has no totem" : doors.map(silence).joined(separator: "; ")
            throw HubError(.conflict, .doorNotHeard, why + "; " + offer)
        }
        return door
    }

    static func silence(_ door: Door) -> String {
        guard let ago = door.heardAgo else { return "door \(door.letter)'s totem has never reached the hub" }
        return "door \(door.letter)'s totem was last heard \(Int(ago.rounded())) s ago (a remote place needs it within \(Int(heardWithin)) s)"
    }

    /// Places before `place` in its door's line, by the rule the door calls by (`LineOrder`):
    /// the door's tickets waiting as its events say, and the places taken from phones the
    /// door has not taken in yet, which it will put in the line by the time each was taken.
    static func placesAhead(of place: LineOrder.Place, store: StoreID, device: DeviceID, day: String,
                            _ connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        let rows = try await connection.rows("""
            SELECT k.number, coalesce(k.taken_at, k.issued_at) FROM ticket k
            WHERE k.store_id = \(store) AND k.device_id = \(device) AND k.business_day >= \(day)::date - 1 AND k.state = 'waiting'
                AND k.lane IN ('regular', 'remote', 'priority')
            UNION ALL
            SELECT r.number, r.joined_at FROM remote_ticket r
            WHERE r.store_id = \(store) AND r.device_id = \(device) AND r.business_day >= \(day)::date - 1 AND r.left_at IS NULL
                AND NOT EXISTS (SELECT 1 FROM ticket k WHERE k.store_id = r.store_id AND k.device_id = r.device_id
                                AND k.number = r.number AND k.business_day >= r.business_day - 1)
            """, as: (String, Date).self, logger)
        let places = rows.compactMap { number, takenAt in TicketNumber(number).map { LineOrder.Place(number: $0, takenAt: takenAt) } }
        return LineOrder.ahead(of: place, priorityWaiting: places.count { $0.number.lane == .priority },
                               line: places.filter { $0.number.lane != .priority })
    }

    /// The place as the app sees it, with what the door's events say of it.
    static func place(store: StoreID, number: String, reference: String, now: Date, _ connection: PostgresConnection,
                      _ logger: Logger) async throws -> Place {
        guard let row = try await connection.rows("""
            SELECT r.device_id, t.letter, t.door, r.joined_at, r.code, r.left_at IS NOT NULL, r.business_day::text,
                (SELECT k.state FROM ticket k WHERE k.store_id = r.store_id AND k.device_id = r.device_id AND k.number = r.number
                    AND k.business_day >= r.business_day - 1 ORDER BY k.business_day DESC LIMIT 1)
            FROM remote_ticket r JOIN totem t ON t.device_id = r.device_id
            WHERE r.store_id = \(store) AND r.number = \(number) AND r.customer_ref = \(reference)
            ORDER BY r.joined_at DESC LIMIT 1
            """, as: (DeviceID, String, String, Date, String, Bool, String, String?).self, logger).first
        else { throw HubError(.notFound, .unknownPlace, "store \(store) has no place \(number) taken with that reference") }
        let (device, letter, doorName, joinedAt, code, left, day, doorState) = row
        let state = left && (doorState == nil || doorState == "waiting" || doorState == "called") ? "left" : doorState ?? "waiting"
        var ahead: Int?, wait: Int?
        if state == "waiting", let placeNumber = TicketNumber(number) {
            let count = try await Self.placesAhead(of: LineOrder.Place(number: placeNumber, takenAt: joinedAt), store: store,
                                                   device: device, day: day, connection, logger)
            let calls = try await connection.all("""
                SELECT count(*)::integer FROM ticket WHERE store_id = \(store) AND device_id = \(device)
                    AND business_day >= \(day)::date - 1 AND called_at > \(now.addingTimeInterval(-3600))
                """, as: Int.self, logger).first ?? 0
            let perCall = calls >= 2 ? 60.0 / Double(calls) : assumedMinutesPerCall
            ahead = count
            wait = Int((Double(count + 1) * perCall).rounded(.up))
        }
        return Place(store: store, number: number, door: letter, doorName: doorName, joinedAt: joinedAt, state: state,
                     atTheDoor: doorState != nil, ahead: ahead, estimatedWaitMinutes: wait, code: code)
    }
}
