import Foundation

/// What a door's turnstile did that its count cannot vouch for, on one business day: people
/// through the entry with no release (tailgating, or a release the totem never gave),
/// releases nobody used (the admission lapsed), and passages the wrong way (the turnstile,
/// released for someone coming in, turned out). With the door's in − out ± corrections at
/// closing, the day's counting accuracy as the hub shows it.
public struct DoorCounting: Codable, Sendable, Equatable {
    /// The business day, "YYYY-MM-DD".
    public var day: String
    public var door: String
    public var withoutRelease: Int
    public var releasesUnused: Int
    public var wrongWay: Int

    public init(day: String, door: String, withoutRelease: Int = 0, releasesUnused: Int = 0, wrongWay: Int = 0) {
        self.day = day
        self.door = door
        self.withoutRelease = withoutRelease
        self.releasesUnused = releasesUnused
        self.wrongWay = wrongWay
    }

    /// What the hub takes of a report: a day as a day, a door as a short word, counts a
    /// door could have.
    public var isSane: Bool {
        Self.isDate(day) && !door.isEmpty && door.utf8.count <= 64
            && door.unicodeScalars.allSatisfy { !CharacterSet.controlCharacters.contains($0) }
            && [withoutRelease, releasesUnused, wrongWay].allSatisfy { (0...1_000_000).contains($0) }
    }
}

extension DoorCounting {
    /// Whether `text` is a date of the calendar written "YYYY-MM-DD" (not 2026-02-31).
    static func isDate(_ text: String) -> Bool {
        guard text.wholeMatch(of: /[0-9]{4}-[0-9]{2}-[0-9]{2}/) != nil else { return false }
        let parts = text.split(separator: "-").compactMap { Int($0) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard parts.count == 3, (1...9999).contains(parts[0]),
              let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])) else { return false }
        let back = calendar.dateComponents([.year, .month, .day], from: date)
        return back.year == parts[0] && back.month == parts[1] && back.day == parts[2]
    }
}

/// Counts `DoorCounting` from a totem's events, in their order: the same figures from the
/// log replayed as from the events as they were committed. `door` is the totem's own (a
/// lapsed admission names no door).
public struct CountingTally: Sendable {
    public let door: String
    /// Tickets admitted at this totem whose holder has not passed yet: the turnstile is
    /// released for them.
    private var admitted: Set<TicketNumber> = []
    private var days: [String: [String: DoorCounting]] = [:]

    public init(door: String) {
        self.door = door
    }

    public mutating func record(_ event: DomainEvent) {
        let day = event.businessDay.date
        switch event {
        case let .dayOpened(_, _, _, tickets, _):
            admitted = Set(tickets.filter { $0.state == .admitted }.map(\.number))
            keepLatest(2)
        case let .ticketAdmitted(number, _, _, _):
            admitted.insert(number)
        case let .admissionLapsed(number, _, _):
            admitted.remove(number)
            add(day, door) { $0.releasesUnused = $0.releasesUnused.addingSaturating(1) }
        case let .ticketVoided(number, _, _, _, _), let .ticketSkipped(number, _, _, _), let .ticketNoShow(number, _, _):
            admitted.remove(number)
        case let .passage(.entry, passageDoor, _, _, ticket, _):
            if let ticket {
                admitted.remove(ticket)
            } else {
                add(day, passageDoor) { $0.withoutRelease = $0.withoutRelease.addingSaturating(1) }
            }
        case let .passage(.exit, passageDoor, _, _, _, _):
            if !admitted.isEmpty { add(day, passageDoor) { $0.wrongWay = $0.wrongWay.addingSaturating(1) } }
        default:
            break
        }
    }

    private mutating func add(_ day: String, _ door: String, _ change: (inout DoorCounting) -> Void) {
        change(&days[day, default: [:]][door, default: DoorCounting(day: day, door: door)])
    }

    /// The figures of the days kept and of `today`, every door this totem counted each
    /// day, and its own door even with nothing to count (a day with none is a day counted
    /// right), oldest first.
    public func report(today: String) -> [DoorCounting] {
        Set(days.keys).union([today]).sorted().flatMap { day in
            var doors = days[day] ?? [:]
            if doors[door] == nil { doors[door] = DoorCounting(day: day, door: door) }
            return doors.values.sorted { $0.door < $1.door }
        }
    }

    /// Keeps the latest `count` days' figures only.
    public mutating func keepLatest(_ count: Int) {
        let kept = Set(days.keys.sorted().suffix(count))
        days = days.filter { kept.contains($0.key) }
    }

    /// The event types the tally reads, to replay them from the log.
    public static let eventTypes = ["day.opened", "ticket.admitted", "ticket.admission-lapsed", "ticket.voided", "ticket.skipped",
                                    "ticket.no-show", "occupancy.passage"]
}
