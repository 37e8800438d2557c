/// Who is inside, counted at one door on one business day: those still inside when the
/// day began, turnstile entries and exits, plus technicians' corrections.
///
/// The raw count can go below zero (someone who came in before the day's count began walks
/// out); the count shown to people never does. A technician corrects by at most
/// `maximumCorrection` at a time, or sets the count to at most `maximumCount`: no store
/// holds more. The arithmetic saturates: a stored correction of any size must not stop the
/// totem.
public struct OccupancyLedger: Hashable, Codable, Sendable {
    public let door: String
    public static let maximumCorrection = 10_000
    public static let maximumCount = 100_000

    /// People inside when the business day began (carried over from the day before).
    public private(set) var carried: Int = 0
    public private(set) var entries: Int = 0
    public private(set) var exits: Int = 0
    /// The sum of all corrections' deltas.
    public private(set) var corrections: Int = 0

    public init(door: String, carried: Int = 0, entries: Int = 0, exits: Int = 0, corrections: Int = 0) {
        self.door = door
        self.carried = carried
        self.entries = entries
        self.exits = exits
        self.corrections = corrections
    }

    /// Carried plus entries minus exits plus corrections, which may be negative.
    public var count: Int {
        carried.addingSaturating(entries).subtractingSaturating(exits).addingSaturating(corrections)
    }

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
