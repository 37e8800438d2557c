/// Who is inside, counted from turnstile passages on one business day.
///
/// Counting goes on from events alone; the count shown to people never goes below zero,
/// even when exits outnumber entries (someone came in before the day rolled over).
public struct OccupancyLedger: Hashable, Codable, Sendable {
    public let businessDay: BusinessDay
    public private(set) var entries: Int = 0
    public private(set) var exits: Int = 0

    public init(businessDay: BusinessDay, entries: Int = 0, exits: Int = 0) {
        self.businessDay = businessDay
        self.entries = entries
        self.exits = exits
    }

    /// The number of people inside, as shown on screen and in the shell.
    public var inside: Int { max(0, entries - exits) }

    /// Records one passage and returns its event.
    @discardableResult
    public mutating func record(_ direction: PassageDirection, door: String) -> DomainEvent {
        apply(direction)
        return .passage(direction: direction, door: door, businessDay: businessDay)
    }

    mutating func apply(_ direction: PassageDirection) {
        switch direction {
        case .entry: entries += 1
        case .exit: exits += 1
        }
    }
}
