import Foundation

/// A store's business day, named by the date on which it starts (`2026-11-21`).
///
/// A business day starts at a configured local time (say 05:00), so a ticket issued at
/// 01:30 belongs to the previous day's numbering and ledger.
public struct BusinessDay: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let date: String

    public init(_ date: String) { self.date = date }

    /// The business day that contains `instant` in `timeZone`, for days starting at
    /// `startMinute` minutes after local midnight.
    public init(containing instant: Date, startMinute: Int, timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let shifted = instant.addingTimeInterval(-Double(startMinute) * 60)
        let parts = calendar.dateComponents([.year, .month, .day], from: shifted)
        date = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    public var description: String { date }

    public static func < (lhs: BusinessDay, rhs: BusinessDay) -> Bool { lhs.date < rhs.date }
}
