/// Who is inside, counted at one door on one business day: turnstile entries and exits,
/// plus technicians' corrections.
///
/// A technician corrects by at most `maximumCorrection` at a time, or sets the count to at
/// most `maximumCount`: no store holds more.
///
/// The raw count can go below zero (someone who came in before the day rolled over walks
/// out); the count shown to people never does.
public struct OccupancyLedger: Hashable, Codable, Sendable {
    public let door: String
    public static let maximumCorrection = 10_000
    public static let maximumCount = 100_000
    public private(set) var entries: Int = 0
    public private(set) var exits: Int = 0
    /// The sum of all corrections' deltas.
    public private(set) var corrections: Int = 0

    public init(door: String, entries: Int = 0, exits: Int = 0, corrections: Int = 0) {
        self.door = door
        self.entries = entries
        self.exits = exits
        self.corrections = corrections
    }

    /// Entries minus exits plus corrections, which may be negative. Saturating: a stored
    /// correction of any size must not stop the totem.
    public var count: Int { entries.subtractingSaturating(exits).addingSaturating(corrections) }

    /// The number of people inside, as shown on screen and in the shell.
    public var inside: Int { max(0, count) }

    mutating func apply(_ direction: PassageDirection) {
        switch direction {
        case .entry: entries = entries.addingSaturating(1)
        case .exit: exits = exits.addingSaturating(1)
        }
    }

    mutating func apply(correction delta: Int) {
        corrections = corrections.addingSaturating(delta)
    }
}
