@testable import CLupHub
import CLupCore
import Foundation
import XCTest

/// A store's booking slots: from opening to closing on the store's clock, starting at whole
/// multiples of the slot length (as the totems issue them), whatever the time zone.
final class BookingCalendarTests: XCTestCase {
    func calendar(zone: String, opens: Int, closes: Int, slotMinutes: Double = 30, capacity: Int = 40,
                  bookingShare: Double = 0.25) -> StoreCalendar {
        let settings = StoreSettingsDocument(version: 1, capacity: capacity, priorityShare: 0.1, bookingShare: bookingShare,
                                             windows: .init(presentationMinutes: 5, bookingEarlyMinutes: 10, bookingLateMinutes: 15,
                                                            slotMinutes: slotMinutes))
        return StoreCalendar(zone: TimeZone(identifier: zone)!, opensMinute: opens, closesMinute: closes, settings: settings)
    }

    func iso(_ date: Date) -> String { date.formatted(.iso8601) }

    func test_slotsRunFromOpeningToClosingOnTheStoresClock() {
        let rome = calendar(zone: "Europe/Rome", opens: 8 * 60, closes: 20 * 60)
        let slots = rome.starts(of: "2026-11-23")
        XCTAssertEqual(slots.count, 24, "twelve hours of 30-minute slots")
        XCTAssertEqual(iso(slots.first!), "2026-11-23T07:00:00Z", "08:00 in Rome in winter")
        XCTAssertEqual(iso(slots.last!), "2026-11-23T18:30:00Z", "the last slot ends at closing, 20:00 in Rome")
        XCTAssertEqual(rome.placesPerSlot, 10, "a quarter of 40")
        XCTAssertEqual(rome.day(of: slots.first!), "2026-11-23")
        // Summer time: the same hours are an hour earlier in UTC.
        XCTAssertEqual(iso(rome.starts(of: "2026-07-01").first!), "2026-07-01T06:00:00Z")
    }

    func test_everySlotStartsAtAMultipleOfItsLength_asTheTotemsIssueThem() {
        // Kolkata is 5:30 ahead: a 08:15 opening is 02:45 UTC, not a multiple of 30 minutes.
        let kolkata = calendar(zone: "Asia/Kolkata", opens: 8 * 60 + 15, closes: 9 * 60 + 45)
        let slots = kolkata.starts(of: "2026-11-23")
        XCTAssertEqual(slots.map(iso), ["2026-11-23T03:00:00Z", "2026-11-23T03:30:00Z"],
                       "the first whole slot after opening, the last that ends by closing")
        for zone in ["UTC", "America/St_Johns", "Pacific/Chatham", "Australia/Adelaide"] {
            for slot in calendar(zone: zone, opens: 0, closes: 1440, slotMinutes: 20).starts(of: "2026-03-29") {
                XCTAssertEqual(slot.timeIntervalSince1970.truncatingRemainder(dividingBy: 20 * 60), 0, "\(zone) \(iso(slot))")
            }
        }
    }

    func test_aDayThatIsNoDateHasNoSlots() {
        let utc = calendar(zone: "UTC", opens: 0, closes: 1440)
        XCTAssertEqual(utc.starts(of: "2026-11-23").count, 48)
        for day in ["", "yesterday", "2026-13-01", "2026-11-32", "-001-01-01", "99999-01-01"] {
            XCTAssertEqual(utc.starts(of: day), [], day)
        }
    }

    func test_aCustomerReferenceIsOpaqueAndBounded() {
        XCTAssertNoThrow(try Bookings.checkReference("app-user_0001"))
        for bad in ["short", "has space 0001", "mario.rossi@example.com", "+393331234567", String(repeating: "x", count: 65)] {
            XCTAssertThrowsError(try Bookings.checkReference(bad), bad)
        }
    }
}
