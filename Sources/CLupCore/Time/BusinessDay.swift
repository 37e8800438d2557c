import Foundation

/// A store's business day, named by the date on which it starts (`2026-11-21`).
///
/// A business day starts at a configured local time (say 05:00), so a ticket issued at
/// 01:30 belongs to the previous day's numbering and ledger. The comparison is made on the
/// local clock face, not by subtracting the start from the instant: on the days the clocks
/// change, a local day is 23 or 25 hours long, and 05:30 is still after 05:00.
public struct BusinessDay: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let date: String

    public init(_ date: String) { self.date = date }

    /// The business day that contains `instant` in `timeZone`, for days starting at
    /// `startMinute` minutes after local midnight.
    public init(containing instant: Date, startMinute: Int, timeZone: TimeZone) {
        var local = Calendar(identifier: .gregorian)
        local.timeZone = timeZone
        let parts = local.dateComponents([.year, .month, .day, .hour, .minute], from: instant)
        let minuteOfDay = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        var date = (year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0)
        if minuteOfDay < startMinute {
            // The day before on the calendar: counted in UTC, where every day has 24 hours.
            var utc = Calendar(identifier: .gregorian)
            utc.timeZone = TimeZone(identifier: "UTC")!
            let noon = utc.date(from: DateComponents(year: date.year, month: date.month, day: date.day, hour: 12)) ?? instant
            let before = utc.dateComponents([.year, .month, .day], from: noon.addingTimeInterval(-86_400))
            date = (before.year ?? 0, before.month ?? 0, before.day ?? 0)
        }
        self.date = String(format: "%04d-%02d-%02d", date.year, date.month, date.day)
    }

    public var description: String { date }

    public static func < (lhs: BusinessDay, rhs: BusinessDay) -> Bool { lhs.date < rhs.date }
}
