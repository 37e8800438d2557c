import Foundation

/// `clupctl ledger`: the occupancy ledger of each door today.
public struct LedgerReport: Codable, Sendable {
    public let businessDay: String
    public let inside: Int
    public let doors: [DoorLedger]
    public let corrections: [CorrectionLine]
    /// Whether the stored ledger equals the one rebuilt from the event log.
    public let matchesEventLog: Bool

    public init(businessDay: String, inside: Int, doors: [DoorLedger], corrections: [CorrectionLine], matchesEventLog: Bool) {
        self.businessDay = businessDay
        self.inside = inside
        self.doors = doors
        self.corrections = corrections
        self.matchesEventLog = matchesEventLog
    }
}

/// One door's counts.
public struct DoorLedger: Codable, Sendable {
    public let door: String
    /// People inside when the business day began.
    public let carried: Int
    public let entries: Int
    public let exits: Int
    public let corrections: Int
    public let inside: Int

    public init(door: String, carried: Int, entries: Int, exits: Int, corrections: Int, inside: Int) {
        self.door = door
        self.carried = carried
        self.entries = entries
        self.exits = exits
        self.corrections = corrections
        self.inside = inside
    }
}

/// One audited correction.
public struct CorrectionLine: Codable, Sendable {
    public let at: Date
    public let door: String
    public let delta: Int
    public let by: String
    public let reason: String

    public init(at: Date, door: String, delta: Int, by: String, reason: String) {
        self.at = at
        self.door = door
        self.delta = delta
        self.by = by
        self.reason = reason
    }
}
