@testable import CLupHub
import CLupCore
import Foundation
import XCTest

/// The panel's pages as a manager reads them: a silent totem stands out, a refused form
/// keeps what was typed, an empty chart says so, and the slot under way is listed.
final class PanelPagesTests: XCTestCase {
    let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18T11:06:40Z

    func test_aSilentTotemIsFlaggedRedAndAHealthyOneGreen() {
        let silent = PanelPages.totemState(revoked: false, lastContact: now.addingTimeInterval(-121), now: now)
        XCTAssertEqual(silent, PanelPages.Cell("SILENT for over 120 s", .flag))
        XCTAssertEqual(PanelPages.totemState(revoked: false, lastContact: nil, now: now).style, .flag, "never heard from")
        XCTAssertEqual(PanelPages.totemState(revoked: false, lastContact: now.addingTimeInterval(-30), now: now),
                       PanelPages.Cell("ok", .ok))
        XCTAssertEqual(PanelPages.totemState(revoked: true, lastContact: nil, now: now), PanelPages.Cell("revoked"))
        // Drawn in the page's red flag style, not in the style of "ok".
        let table = PanelPages.table(["totem", "state"], [[PanelPages.Cell("store-7-totem-A-1"), silent]])
        XCTAssertTrue(table.contains("<td>store-7-totem-A-1</td><td class=\"flag\">SILENT for over 120 s</td>"), table)
        XCTAssertTrue(PanelPages.page(title: "Fleet", manager: nil, csrf: nil, body: table).contains(".flag { color: #a00000;"))
    }

    func test_aRefusedFormKeepsWhatWasTypedEscaped() {
        let settings = StoreSettingsDocument(version: 3, capacity: 30, priorityShare: 0.1, bookingShare: 0.3,
                                             windows: .init(presentationMinutes: 5, bookingEarlyMinutes: 10, bookingLateMinutes: 15,
                                                            slotMinutes: 30))
        let saved = PanelPages.settingsForm(store: "7", csrf: "token", settings: settings)
        XCTAssertTrue(saved.contains("id=\"walkIn\" type=\"number\" min=\"0\" max=\"100000\" value=\"21\""), saved)
        XCTAssertTrue(saved.contains("id=\"priorityPercent\" type=\"number\" min=\"0\" max=\"100\" step=\"1\" value=\"10\""), saved)

        let typed = PanelPages.settingsForm(store: "7", csrf: "token", settings: settings,
                                            typed: ["csrf": "token", "capacity": "30", "walkIn": "45", "slotMinutes": "15\"><b>x</b>"])
        XCTAssertTrue(typed.contains("id=\"walkIn\" type=\"number\" min=\"0\" max=\"100000\" value=\"45\""), typed)
        XCTAssertTrue(typed.contains("id=\"slotMinutes\" type=\"number\" min=\"5\" max=\"240\" value=\"15&quot;&gt;&lt;b&gt;x&lt;/b&gt;\""), typed)
        XCTAssertFalse(typed.contains("<b>"), "typed markup is escaped")
        // A field not sent keeps its saved value; the form's own CSRF token is the session's.
        XCTAssertTrue(typed.contains("id=\"lateMinutes\" type=\"number\" min=\"1\" max=\"240\" value=\"15\""), typed)
        XCTAssertTrue(typed.contains("<input type=\"hidden\" name=\"csrf\" value=\"token\">"), typed)
    }

    func test_aChartWithoutValuesSaysNoData() {
        let empty = PanelPages.barChart([], title: "Entries per day, the last 14 days")
        XCTAssertTrue(empty.contains(">no data</text>"), empty)
        let drawn = PanelPages.barChart([(label: "11-18", value: 0)], title: "Entries per day, the last 14 days")
        XCTAssertFalse(drawn.contains("no data"), "a day of no entries is a value: \(drawn)")
    }

    func test_theSlotUnderWayIsListedWithoutBookings() {
        // 30-minute slots from 10:00 (one booked): the one under way began at 11:00, nobody has booked it.
        let slotStart = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 1800).rounded(.down) * 1800)
        let slots = (-2...9).map { index in
            let begins = slotStart.addingTimeInterval(Double(index) * 1800)
            return Bookings.Slot(start: begins, end: begins.addingTimeInterval(1800), places: 9, booked: index == -2 ? 1 : 0,
                                 bookable: now <= begins.addingTimeInterval(15 * 60))
        }
        let table = PanelPages.slotsNowAndNext(slots, now: now, zone: .gmt)
        XCTAssertTrue(table.contains("<tr><td>2026-11-18 11:00</td><td>0</td><td>9</td></tr>"), "the slot under way: \(table)")
        XCTAssertFalse(table.contains(" 10:00<") || table.contains(" 10:30<"), "a slot that has ended is not now or next: \(table)")
        // The same slots in Rome are an hour later on the store's clock.
        let rome = PanelPages.slotsNowAndNext(slots, now: now, zone: TimeZone(identifier: "Europe/Rome")!)
        XCTAssertTrue(rome.contains("<tr><td>2026-11-18 12:00</td><td>0</td><td>9</td></tr>"), "in Rome: \(rome)")
        XCTAssertEqual(table.components(separatedBy: "<tr><td>").count - 1, 8, "the slot under way and the next seven")
    }

    /// The hourly chart on the store's clock: Europe/Rome on 25 October 2026, when its clocks
    /// go back from 03:00 CEST to 02:00 CET (01:00 UTC).
    func test_theHoursAreTheStoresOwnOnTheDayItsClocksGoBack() throws {
        let rome = try XCTUnwrap(TimeZone(identifier: "Europe/Rome"))
        let change = Date(timeIntervalSince1970: 1_792_890_000)   // 2026-10-25 01:00 UTC
        // One in at 01:30 CEST, one at 02:30 CEST, one at 02:30 CET, one out at 03:30 CET.
        let changes: [(at: Date, delta: Int)] = [(change.addingTimeInterval(-5400), 1), (change.addingTimeInterval(-1800), 1),
                                                  (change.addingTimeInterval(1800), 1), (change.addingTimeInterval(5400), -1)]
        let bars = Panel.hourlyInside(changes, carried: 2, now: change.addingTimeInterval(5500), zone: rome)
        XCTAssertEqual(bars.map(\.label), ["01", "02", "02", "03"], "the repeated hour is two bars")
        XCTAssertEqual(bars.map(\.value), [3, 4, 5, 4])
        // The same day in UTC: the hours are UTC's.
        XCTAssertEqual(Panel.hourlyInside(changes, carried: 2, now: change.addingTimeInterval(5500), zone: .gmt).map(\.label),
                       ["23", "00", "01", "02"])
    }

    func test_aStoreHalfAnHourOffUTCCountsFromItsOwnFullHours() throws {
        let kolkata = try XCTUnwrap(TimeZone(identifier: "Asia/Kolkata"))
        // 2026-11-29 10:45 and 11:15 UTC are 16:15 and 16:45 in Kolkata: the same hour, 16.
        let first = Date(timeIntervalSince1970: 1_795_949_100)
        let bars = Panel.hourlyInside([(first, 1), (first.addingTimeInterval(1800), 1)], carried: 0,
                                      now: first.addingTimeInterval(2000), zone: kolkata)
        XCTAssertEqual(bars.map(\.label), ["16"])
        XCTAssertEqual(bars.map(\.value), [2])
    }

    func test_theChartShowsTheLast24HoursAtMostAndNothingBelowZero() {
        let start = Date(timeIntervalSince1970: 1_795_910_400)   // 2026-11-29 00:00 UTC
        let changes = (0..<30).map { (at: start.addingTimeInterval(Double($0) * 3600), delta: $0 == 29 ? -100 : 1) }
        let bars = Panel.hourlyInside(changes, carried: 0, now: start.addingTimeInterval(29.5 * 3600), zone: .gmt)
        XCTAssertEqual(bars.count, 24)
        XCTAssertEqual(bars.first?.label, "06")
        XCTAssertEqual(bars.first?.value, 7)
        XCTAssertEqual(bars.last?.value, 0, "a count below zero is shown as none inside")
    }
}
