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

    /// Rome moves from 02:00 to 03:00 on 2026-03-29: 05:30 is still half an hour after a
    /// 05:00 start, though only 3.5 hours have passed since local midnight.
    func test_theSpringChangeStartsTheDayAtFiveLocalTime() {
        XCTAssertEqual(BusinessDay(containing: instant("2026-03-29T03:30:00Z"), startMinute: 300, timeZone: rome).date,
                       "2026-03-29", "05:30 CEST")
        XCTAssertEqual(BusinessDay(containing: instant("2026-03-29T02:59:00Z"), startMinute: 300, timeZone: rome).date,
                       "2026-03-28", "04:59 CEST")
    }

    /// Rome moves from 03:00 back to 02:00 on 2026-10-25: the day starts at 05:00 local
    /// time, 6 hours after midnight, not at 04:00.
    func test_theAutumnChangeStartsTheDayAtFiveLocalTime() {
        XCTAssertEqual(BusinessDay(containing: instant("2026-10-25T03:30:00Z"), startMinute: 300, timeZone: rome).date,
                       "2026-10-24", "04:30 CET")
        XCTAssertEqual(BusinessDay(containing: instant("2026-10-25T04:00:00Z"), startMinute: 300, timeZone: rome).date,
                       "2026-10-25", "05:00 CET")
    }

    func test_theDayBeforeTheFirstOfTheMonthAndOfTheYear() {
        XCTAssertEqual(BusinessDay(containing: instant("2027-01-01T03:00:00Z"), startMinute: 300, timeZone: rome).date, "2026-12-31")
        XCTAssertEqual(BusinessDay(containing: instant("2028-03-01T03:00:00Z"), startMinute: 300, timeZone: rome).date, "2028-02-29")
    }
}
