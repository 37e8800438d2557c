import CLupCore
import Foundation
import XCTest

final class BusinessDayTests: XCTestCase {
    let rome = TimeZone(identifier: "Europe/Rome")!

    func instant(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text)!
    }

    func test_anInstantBeforeTheDayStartBelongsToThePreviousDay() {
        // 04:30 in Rome (UTC+1 in November) with days starting at 05:00.
        let day = BusinessDay(containing: instant("2026-11-21T03:30:00Z"), startMinute: 300, timeZone: rome)
        XCTAssertEqual(day.date, "2026-11-20")
    }

    func test_anInstantAfterTheDayStartBelongsToThatDay() {
        let day = BusinessDay(containing: instant("2026-11-21T04:00:00Z"), startMinute: 300, timeZone: rome)
        XCTAssertEqual(day.date, "2026-11-21")
    }

    func test_theTimeZoneDecidesTheDate() {
        let late = instant("2026-11-21T23:30:00Z")
        XCTAssertEqual(BusinessDay(containing: late, startMinute: 0, timeZone: TimeZone(identifier: "UTC")!).date, "2026-11-21")
        XCTAssertEqual(BusinessDay(containing: late, startMinute: 0, timeZone: rome).date, "2026-11-22")
    }
}
