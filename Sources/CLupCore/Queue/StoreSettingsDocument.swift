import Foundation

/// The store's settings as the hub keeps them, versioned: the hub's word on capacity and
/// shares for every totem of the store, on this door's part of the capacity, on the store's
/// totems' ticket keys and on the tickets called at its other doors. Applied at the totem
/// as an event and kept in force offline until a newer version arrives.
///
/// The hub writes one document per totem (the door's limit and the other doors' tickets
/// differ); the version is the store's, and grows by one with every change to any of them.
public struct StoreSettingsDocument: Codable, Hashable, Sendable {
    /// Grows by one with every change at the hub.
    public var version: Int64
    public var capacity: Int
    public var priorityShare: Double
    public var bookingShare: Double
    /// The windows and the slot length, in minutes (nil from a hub that sent none: the
    /// file's stay in force).
    public var windows: Windows?
    /// This door's part of the capacity (`CapacityEscrow`); nil from a hub that sent none.
    public var doorLimit: Int?
    /// The ticket keys of the store's totems that are not revoked: letter → Ed25519 public
    /// key (32 bytes, base64). A door admits the tickets of these totems only.
    public var totemKeys: [String: String]?
    /// Tickets of the store's other doors that are called now: this door admits them too.
    public var calledAtOtherDoors: [String]?
    /// This totem's tickets that were admitted at another door: used.
    public var usedAtOtherDoors: [String]?
    /// Bookings made through the hub (letter `TicketPayload.hubLetter`) for today or
    /// tomorrow that were cancelled: refused at the door. Their key is among `totemKeys`.
    public var cancelledBookings: [String]?
    /// Bookings made through the hub for today or tomorrow, neither cancelled nor used yet:
    /// the door keeps a place for each while its window is open.
    public var bookings: [HubBooking]?
    /// Places in this door's line taken from a phone (the app, the website) today, neither
    /// left nor over: the totem puts each new one in its line (`DayState.takeRemote`). Nil
    /// from a hub that sent none.
    public var remoteTickets: [RemoteJoin]?
    /// Places in this door's line whose holders left from their phone: voided here.
    public var leftRemote: [String]?
    /// The places of each slot this totem may book itself, offline too: the hub keeps them
    /// out of the bookings it makes. Nil from a hub that sent none.
    public var totemBookingPlaces: Int?
    /// The store's opening hours on its own clock; nil from a hub that sent none.
    public var hours: OpeningHours?
    /// The store's employees managed at the hub, who may log in at every totem's PIN pad:
    /// staff numbers and PIN hashes only. Nil from a hub that sent none (the totem's own stay).
    public var employees: [EmployeePin]?
    /// The clup-totem version this totem is to run, while a rollout takes it in; nil: keep
    /// what runs. Its update helper installs it when the entrance is idle.
    public var targetVersion: String?
    /// The signed release manifest that vouches for `targetVersion` (a DSSE envelope, JSON),
    /// as the hub holds it: the update helper installs nothing without one it can check.
    public var targetManifest: String?
    /// The signed release manifest of the version this totem last said it runs, sent with a
    /// target: the helper checks the copy it would go back to against it.
    public var runningManifest: String?

    /// The largest `targetManifest` taken (`SignedReleaseManifest.maximumBytes`).
    public static let maximumManifestBytes = 64 * 1024

    /// An employee's staff number and PIN hash (`PinHash`: scrypt, salted), base64.
    public struct EmployeePin: Codable, Hashable, Sendable {
        public var staffNumber: String
        public var kdf: String
        public var salt: String
        public var hash: String

        public init(staffNumber: String, kdf: String, salt: String, hash: String) {
            self.staffNumber = staffNumber
            self.kdf = kdf
            self.salt = salt
            self.hash = hash
        }

        /// What is wrong with it, if anything: the shapes the PIN pad and `PinHash` use.
        var problem: String? {
            guard (1...8).contains(staffNumber.count), staffNumber.allSatisfy({ ("0"..."9").contains($0) }) else {
                return "staff number \"\(staffNumber.prefix(12))\" is not 1 to 8 digits"
            }
            guard kdf.count <= 40, Data(base64Encoded: salt)?.count == 16, Data(base64Encoded: hash)?.count == 32 else {
                return "employee \(staffNumber)'s PIN hash is not a 16-byte salt and a 32-byte hash"
            }
            return nil
        }
    }

    /// Most employees of a store the hub sends.
    public static let maximumEmployees = 1000

    /// When the store is open: minutes after local midnight.
    public struct OpeningHours: Codable, Hashable, Sendable {
        public var opensMinute: Int
        public var closesMinute: Int

        public init(opensMinute: Int, closesMinute: Int) {
            self.opensMinute = opensMinute
            self.closesMinute = closesMinute
        }

        /// "08:00–20:00".
        public var description: String {
            String(format: "%02d:%02d–%02d:%02d", opensMinute / 60, opensMinute % 60, closesMinute / 60, closesMinute % 60)
        }
    }

    /// A booking made through the hub: its number and its slot's start (Unix seconds).
    public struct HubBooking: Codable, Hashable, Sendable {
        public var number: String
        public var slotStart: Double

        public init(number: String, slotStart: Double) {
            self.number = number
            self.slotStart = slotStart
        }
    }

    /// The largest door limit either way: twice the largest capacity (a door people leave
    /// by holds fewer than none, the one they come in by more than the capacity).
    public static let maximumDoorLimit = 200_000

    /// How long a called ticket has to reach the door, and a booking around its slot; the
    /// length of a booking slot. Minutes.
    public struct Windows: Codable, Hashable, Sendable {
        public var presentationMinutes: Double
        public var bookingEarlyMinutes: Double
        public var bookingLateMinutes: Double
        public var slotMinutes: Double

        public init(presentationMinutes: Double, bookingEarlyMinutes: Double, bookingLateMinutes: Double, slotMinutes: Double) {
            self.presentationMinutes = presentationMinutes
            self.bookingEarlyMinutes = bookingEarlyMinutes
            self.bookingLateMinutes = bookingLateMinutes
            self.slotMinutes = slotMinutes
        }

        /// The bounds the hub keeps them in.
        public static let windowRange = 0.5...240.0
        public static let slotRange = 5.0...240.0

        var problem: String? {
            for (name, value) in [("presentation window", presentationMinutes), ("booking early window", bookingEarlyMinutes),
                                  ("booking late window", bookingLateMinutes)] where !Self.windowRange.contains(value) {
                return "\(name) of \(value) minutes is outside 0.5...240"
            }
            if !Self.slotRange.contains(slotMinutes) { return "slot of \(slotMinutes) minutes is outside 5...240" }
            return nil
        }
    }

    /// Most entries in a list or key set: a store does not have more.
    public static let maximumListCount = 10_000

    public init(version: Int64, capacity: Int, priorityShare: Double, bookingShare: Double, windows: Windows? = nil, doorLimit: Int? = nil,
                totemKeys: [String: String]? = nil, calledAtOtherDoors: [String]? = nil, usedAtOtherDoors: [String]? = nil,
                cancelledBookings: [String]? = nil) {
        self.version = version
        self.capacity = capacity
        self.priorityShare = priorityShare
        self.bookingShare = bookingShare
        self.windows = windows
        self.doorLimit = doorLimit
        self.totemKeys = totemKeys
        self.calledAtOtherDoors = calledAtOtherDoors
        self.usedAtOtherDoors = usedAtOtherDoors
        self.cancelledBookings = cancelledBookings
    }

    /// Why the settings cannot be used, or nil: the same bounds the local file has.
    public var problem: String? {
        if !(1...100_000).contains(capacity) { return "capacity \(capacity) is out of range 1...100000" }
        if !(0...1).contains(priorityShare) || !(0...1).contains(bookingShare) { return "a share is outside 0...1" }
        if priorityShare + bookingShare > 1 { return "priority and booking shares together are over 1" }
        if version < 1 { return "version \(version)" }
        if let problem = windows?.problem { return problem }
        if let targetVersion, targetVersion.utf8.count > 64
            || targetVersion.range(of: "^[0-9][A-Za-z0-9.+~-]*\\z", options: .regularExpression) == nil {
            return "target version \"\(targetVersion.prefix(16))\" is not a Debian version"
        }
        for manifest in [targetManifest, runningManifest].compactMap({ $0 }) where manifest.utf8.count > Self.maximumManifestBytes {
            return "a release manifest of \(manifest.utf8.count) bytes is over \(Self.maximumManifestBytes)"
        }
        if let doorLimit, !(-Self.maximumDoorLimit...Self.maximumDoorLimit).contains(doorLimit) {
            return "door limit \(doorLimit) is outside ±\(Self.maximumDoorLimit)"
        }
        if let totemKeys {
            if totemKeys.count > 26 { return "\(totemKeys.count) totem keys; a store has at most 26 totems" }
            for (letter, key) in totemKeys {
                guard letter.count == 1, let character = letter.first, character.isASCII, character.isUppercase else {
                    return "totem key for \"\(letter.prefix(8))\", which is not a totem letter"
                }
                guard Data(base64Encoded: key)?.count == 32 else { return "totem \(letter)'s key is not 32 bytes of base64" }
            }
        }
        if let employees {
            if employees.count > Self.maximumEmployees { return "\(employees.count) employees; at most \(Self.maximumEmployees)" }
            if let problem = employees.lazy.compactMap(\.problem).first { return problem }
        }
        for list in [calledAtOtherDoors, usedAtOtherDoors, cancelledBookings, leftRemote] {
            guard let list else { continue }
            if list.count > Self.maximumListCount { return "\(list.count) tickets in a list; at most \(Self.maximumListCount)" }
            if let bad = list.first(where: { TicketNumber($0) == nil }) { return "\"\(bad.prefix(16))\" is not a ticket number" }
        }
        if let totemBookingPlaces, !(0...1000).contains(totemBookingPlaces) {
            return "\(totemBookingPlaces) places per slot for the totem's own bookings; at most 1000"
        }
        if let hours, !(0..<1440).contains(hours.opensMinute) || !(1...1440).contains(hours.closesMinute)
            || hours.opensMinute >= hours.closesMinute {
            return "opening hours \(hours.opensMinute)–\(hours.closesMinute) (minutes) are not a span of one day"
        }
        if let remoteTickets {
            if remoteTickets.count > Self.maximumListCount { return "\(remoteTickets.count) remote tickets; at most \(Self.maximumListCount)" }
            if let problem = remoteTickets.lazy.compactMap(\.problem).first { return problem }
        }
        if let bookings {
            if bookings.count > Self.maximumListCount { return "\(bookings.count) bookings; at most \(Self.maximumListCount)" }
            for booking in bookings {
                guard let number = TicketNumber(booking.number), number.totem == TicketPayload.hubLetter, number.lane == .booking else {
                    return "\"\(booking.number.prefix(16))\" is not the number of a booking made through the hub"
                }
                guard (0...Double(UInt32.max)).contains(booking.slotStart) else { return "booking \(number) has no slot time" }
            }
        }
        return nil
    }

    /// The tickets of the other doors, parsed (`problem` refused any that do not parse).
    public var calledElsewhere: Set<TicketNumber> { Set((calledAtOtherDoors ?? []).compactMap { TicketNumber($0) }) }
    public var usedElsewhere: Set<TicketNumber> { Set((usedAtOtherDoors ?? []).compactMap { TicketNumber($0) }) }
    public var leftRemoteNumbers: Set<TicketNumber> { Set((leftRemote ?? []).compactMap { TicketNumber($0) }) }
    public var cancelledBookingNumbers: Set<TicketNumber> { Set((cancelledBookings ?? []).compactMap { TicketNumber($0) }) }

    /// How many bookings one slot holds (the booking share of the capacity).
    public var bookingsPerSlot: Int {
        applied(to: QueuePolicy()).bookingsPerSlot
    }

    /// `policy` with these settings in force.
    public func applied(to policy: QueuePolicy) -> QueuePolicy {
        var policy = policy
        policy.capacity = capacity
        policy.priorityShare = priorityShare
        policy.bookingShare = bookingShare
        policy.doorLimit = doorLimit
        policy.ownBookingsPerSlot = totemBookingPlaces
        policy.hubBookings = bookings.map { bookings in
            Dictionary(bookings.compactMap { booking in
                TicketNumber(booking.number).map { ($0, Date(timeIntervalSince1970: booking.slotStart)) }
            }, uniquingKeysWith: { first, _ in first })
        }
        if let windows {
            policy.presentationWindow = windows.presentationMinutes * 60
            policy.bookingEarly = windows.bookingEarlyMinutes * 60
            policy.bookingLate = windows.bookingLateMinutes * 60
            policy.slotLength = windows.slotMinutes * 60
        }
        return policy
    }
}
