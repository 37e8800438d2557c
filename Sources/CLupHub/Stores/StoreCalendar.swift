import CLupCore
import Foundation
import Logging
import PostgresNIO

/// A store's calendar and clock, one home for every feature that needs them (bookings, the
/// line, the stores nearby): its time zone and opening hours, the slot length and the places.
struct StoreCalendar {
    let zone: TimeZone
    let opensMinute: Int
    let closesMinute: Int
    let settings: StoreSettingsDocument

    var slotSeconds: Double { (settings.windows?.slotMinutes ?? 30) * 60 }
    var placesPerSlot: Int { settings.bookingsPerSlot }
    /// Places of each slot every totem of the store may book itself (offline too).
    var totemPlaces: Int { settings.totemBookingPlaces ?? 0 }
    var early: Double { (settings.windows?.bookingEarlyMinutes ?? 10) * 60 }
    var late: Double { (settings.windows?.bookingLateMinutes ?? 15) * 60 }

    var gregorian: Foundation.Calendar {
        var calendar = Foundation.Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// The day (YYYY-MM-DD) `date` falls on in the store's zone.
    func day(of date: Date) -> String {
        let parts = gregorian.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// The slot starts of `day` (on the store's clock, from opening to closing): whole
    /// multiples of the slot length, as the totems issue them.
    func starts(of day: String) -> [Date] {
        guard let number = CivilDay.number(day) else { return [] }
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, number >= 0,
              let midnight = gregorian.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))
        else { return [] }
        let opens = midnight.addingTimeInterval(Double(opensMinute) * 60).timeIntervalSince1970
        let closes = midnight.addingTimeInterval(Double(closesMinute) * 60).timeIntervalSince1970
        var start = (opens / slotSeconds).rounded(.up) * slotSeconds
        var starts: [Date] = []
        while start + slotSeconds <= closes, starts.count < 24 * 60 {
            starts.append(Date(timeIntervalSince1970: start))
            start += slotSeconds
        }
        return starts
    }

    /// `store`'s calendar as its row and settings say now (in a `StoreTransaction`, where
    /// nothing changes them meanwhile).
    static func read(store: StoreID, _ connection: PostgresConnection, _ logger: Logger) async throws -> StoreCalendar {
        guard let settings = try await StoreSettingsReader.current(store: store, device: nil, connection, logger),
              let (opens, closes, zoneName) = try await connection.rows("""
                  SELECT opens_minute, closes_minute, time_zone FROM store WHERE store_id = \(store)
                  """, as: (Int, Int, String).self, logger).first
        else { throw HubError(.notFound, .unknownStore, "no store \"\(store)\"") }
        guard let zone = TimeZone(identifier: zoneName) else {
            throw HubError(.internalServerError, .hubInternalError, "store \(store)'s time zone \"\(zoneName)\" is unknown to this hub")
        }
        return StoreCalendar(zone: zone, opensMinute: opens, closesMinute: closes, settings: settings)
    }
}
