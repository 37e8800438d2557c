import Foundation

/// A door's line as the hub keeps it (`GET /v1/line`): the places taken from phones at this
/// door that are still live, those their holders left, and what the store's other doors did
/// with tickets this door may see (called there, so it may admit them; its own used there,
/// so it must refuse them); and the door's part of the store's capacity. Its version goes
/// up at each join or leave at this door, at each call or use at another, and when the hub
/// gives this door another part, and at nothing else: a door follows its line apart from
/// the store's settings, and a join wakes only the door that takes the place. It is whole
/// each time: a door that restarts asks from no version (-1) and takes what it does not
/// hold yet.
public struct DoorLine: Codable, Hashable, Sendable {
    public var version: Int64
    public var remoteTickets: [RemoteJoin]
    public var leftRemote: [String]
    /// Tickets called now at the store's other doors, and this door's own tickets (with the
    /// store's bookings made through the hub) admitted at another door.
    public var calledAtOtherDoors: [String]
    public var usedAtOtherDoors: [String]
    /// The places this door may fill where the hub shares the store's capacity among its
    /// doors (`CapacityEscrow`); none where it shares nothing yet, or from a hub that sends
    /// the door's part with the settings.
    public var doorLimit: DoorLimit?
    /// Someone at the hub's panel asked to see this totem's screen: it sends one frame
    /// (absent from hubs before 0.13, and when nobody asks).
    public var screenWanted: ScreenWanted?

    public init(version: Int64, remoteTickets: [RemoteJoin], leftRemote: [String], calledAtOtherDoors: [String] = [],
                usedAtOtherDoors: [String] = [], doorLimit: DoorLimit? = nil, screenWanted: ScreenWanted? = nil) {
        self.version = version
        self.remoteTickets = remoteTickets
        self.leftRemote = leftRemote
        self.calledAtOtherDoors = calledAtOtherDoors
        self.usedAtOtherDoors = usedAtOtherDoors
        self.doorLimit = doorLimit
        self.screenWanted = screenWanted
    }

    /// What is wrong with it, if anything (the hub's answer is input like any other).
    public var problem: String? {
        guard version >= 0 else { return "line version \(version) is below zero" }
        for list in [remoteTickets.map(\.number.description), leftRemote, calledAtOtherDoors, usedAtOtherDoors]
        where list.count > StoreSettingsDocument.maximumListCount {
            return "\(list.count) tickets in a list of a door's line; at most \(StoreSettingsDocument.maximumListCount)"
        }
        if let bad = (calledAtOtherDoors + usedAtOtherDoors).first(where: { TicketNumber($0) == nil }) {
            return "\"\(bad.prefix(16))\" is not a ticket number"
        }
        if let problem = doorLimit?.problem { return problem }
        if let problem = screenWanted?.problem { return problem }
        if let problem = remoteTickets.lazy.compactMap(\.problem).first { return problem }
        if let bad = leftRemote.first(where: { TicketNumber($0)?.lane != .remote }) {
            return "\"\(bad.prefix(16))\" is not a place taken from a phone"
        }
        return nil
    }

    /// The lists parsed (`problem` refused any that do not parse).
    public var leftNumbers: Set<TicketNumber> { Set(leftRemote.compactMap { TicketNumber($0) }) }
    public var calledElsewhere: Set<TicketNumber> { Set(calledAtOtherDoors.compactMap { TicketNumber($0) }) }
    public var usedElsewhere: Set<TicketNumber> { Set(usedAtOtherDoors.compactMap { TicketNumber($0) }) }
}

/// A door's part of the store's capacity as the hub gave it: the places, at the version it
/// was given at. Versions come from one counter per store, the one the store's settings
/// take theirs from, so a part sent on the line and one sent with the settings compare:
/// the one of the higher version is in force. The door records each one it puts in force
/// (`store.door-limit-applied`), which is how the hub knows its part is held to.
public struct DoorLimit: Codable, Hashable, Sendable {
    public var limit: Int
    public var version: Int64

    public init(limit: Int, version: Int64) {
        self.limit = limit
        self.version = version
    }

    /// What is wrong with it, if anything.
    public var problem: String? {
        if version < 1 { return "door limit version \(version)" }
        if !(-StoreSettingsDocument.maximumDoorLimit...StoreSettingsDocument.maximumDoorLimit).contains(limit) {
            return "door limit \(limit) is outside ±\(StoreSettingsDocument.maximumDoorLimit)"
        }
        return nil
    }

    /// The part in force of two: the one given later.
    public static func newer(_ first: DoorLimit?, _ second: DoorLimit?) -> DoorLimit? {
        guard let first, let second else { return first ?? second }
        return second.version > first.version ? second : first
    }
}

/// A look at a totem's screen asked for at the hub's panel: the request's id, to send the
/// frame under, and who asked (kept in the totem's audit trail).
public struct ScreenWanted: Codable, Hashable, Sendable {
    public var id: String
    public var by: String

    public init(id: String, by: String) {
        self.id = id
        self.by = by
    }

    var problem: String? {
        guard (1...64).contains(id.utf8.count),
              id.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }) else {
            return "a screen request's id is 1 to 64 lower-case letters, digits and dashes"
        }
        guard (1...64).contains(by.utf8.count), !by.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            return "who asked for the screen is 1 to 64 bytes, no control characters"
        }
        return nil
    }
}
