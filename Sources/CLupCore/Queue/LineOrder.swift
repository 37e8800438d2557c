import Foundation

/// Who came first in a door's line: one rule, written once, that the totem calls by
/// (`DayState.line`) and the hub counts the places ahead of a phone's place by, so that what
/// the app and the website say ("2 before you") is what the door will do.
///
/// A place's instant is on the hub's clock, to the millisecond: a place taken from a phone
/// when the hub took it; a printed ticket when the totem printed it, by its own clock
/// corrected by the offset its sync measured (`Moment.onHubClock`). Earlier comes first; in
/// the same millisecond a printed ticket comes before a phone's place, then the lower
/// number. Whole seconds, which both sides used to keep, tied every ticket printed in the
/// second after a join, and each side broke the tie its own way.
public enum LineOrder {
    /// A place in the line as both sides know it.
    public struct Place: Hashable, Sendable {
        public let number: TicketNumber
        /// When it was taken, on the hub's clock.
        public let takenAt: Date

        public init(number: TicketNumber, takenAt: Date) {
            self.number = number
            self.takenAt = takenAt
        }

        var key: (Int64, Int, Int, String) {
            (LineOrder.milliseconds(takenAt), number.lane == .remote ? 1 : 0, number.sequence, String(number.totem))
        }
    }

    /// Whether `a` is before `b` in the line.
    public static func precedes(_ a: Place, _ b: Place) -> Bool { a.key < b.key }

    /// Places before `place`: every priority ticket waiting (they go first while a place is
    /// kept for them), and the line's places that came before it.
    public static func ahead(of place: Place, priorityWaiting: Int, line: [Place]) -> Int {
        priorityWaiting + line.count { $0.number != place.number && precedes($0, place) }
    }

    /// `date` in whole milliseconds since 1970 (a date that is no time counts as 0).
    public static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return 0 }
        return Int64(min(max(value, -9e15), 9e15))
    }

    /// `date` to the millisecond, as a place keeps it.
    public static func instant(_ date: Date) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds(date)) / 1000)
    }
}
