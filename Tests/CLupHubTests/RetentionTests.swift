@testable import CLupHub
import CLupCore
import CLupProtocol
import Foundation
import XCTest

/// The panel's hours kept at ingest, and old days retired with their statistics kept.
final class RetentionTests: XCTestCase {
    /// Today at `hour`:`minute` UTC, `daysAgo` days back, and that business day.
    func moment(daysAgo: Int, _ hour: Int, _ minute: Int) -> (Date, BusinessDay) {
        let midnight = (Date().timeIntervalSince1970 / 86_400).rounded(.down) * 86_400 - Double(daysAgo) * 86_400
        let at = Date(timeIntervalSince1970: midnight + Double(hour * 3600 + minute * 60))
        return (at, BusinessDay(CivilDay.text(Int(midnight / 86_400))))
    }

    func passage(_ direction: PassageDirection, _ moment: (Date, BusinessDay)) -> DomainEvent {
        .passage(direction: direction, door: "main", businessDay: moment.1, at: moment.0, ticket: nil, steady: nil)
    }

    /// The day's passages of `totem`, each uploaded at its own moment.
    func upload(_ totem: TestTotem, _ moves: [(PassageDirection, (Date, BusinessDay))]) -> [UploadedEvent] {
        moves.flatMap { direction, moment in totem.upload([passage(direction, moment)], at: moment.0) }
    }

    func test_theHoursOfADayAreReadFromQuartersKeptAtIngest_andTheMigrationFillsThemAlike() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "main")
            let ingest = Ingest(database: hub.database)
            let moves: [(PassageDirection, (Date, BusinessDay))] = [
                (.entry, moment(daysAgo: 3, 9, 1)), (.entry, moment(daysAgo: 3, 9, 14)), (.entry, moment(daysAgo: 3, 9, 15)),
                (.exit, moment(daysAgo: 3, 10, 40)), (.entry, moment(daysAgo: 3, 12, 59)),
            ]
            // In two batches, the second adding to the first's quarter.
            let events = upload(a, moves)
            _ = try await ingest.apply(a.batch(Array(events.prefix(2))), from: a.device)
            _ = try await ingest.apply(a.batch(Array(events.dropFirst(2))), from: a.device)
            let quarters = try hub.sql("""
                SELECT to_char(to_timestamp(quarter * 900) AT TIME ZONE 'UTC', 'HH24:MI'), entries, exits FROM occupancy_quarter ORDER BY quarter
                """)
            XCTAssertEqual(quarters, "09:00|2|0\n09:15|1|0\n10:30|0|1\n12:45|1|0")

            let day = moment(daysAgo: 3, 0, 0).1.date
            let hours = try await Panel(database: hub.database).insideByHour(HubFixture.store, zone: .gmt, day: try XCTUnwrap(Panel.Day(day)))
            XCTAssertEqual(hours.count, 24)
            XCTAssertEqual(hours[8].value, 0)
            XCTAssertEqual(hours[9].value, 3)
            XCTAssertEqual(hours[10].value, 2)
            XCTAssertEqual(hours[11].value, 2)
            XCTAssertEqual(hours[12].value, 3)
            // India's hours begin at :30 of UTC's: 09:01 and 09:14 UTC are 14:31 and 14:44 there.
            let india = try await Panel(database: hub.database).insideByHour(HubFixture.store, zone: TimeZone(identifier: "Asia/Kolkata")!,
                                                                              day: try XCTUnwrap(Panel.Day(day)))
            XCTAssertEqual(india.first { $0.label == "14" }?.value, 3)

            // Migration 13 makes the same quarters from the events a hub held before it.
            let backfill = try XCTUnwrap(HubMigrations.statements(of: HubMigrations.all.first { $0.version == 13 }!.sql)
                .first { $0.hasPrefix("INSERT INTO occupancy_quarter") })
            _ = try hub.sql("TRUNCATE occupancy_quarter")
            _ = try hub.sql(backfill)
            XCTAssertEqual(try hub.sql("""
                SELECT to_char(to_timestamp(quarter * 900) AT TIME ZONE 'UTC', 'HH24:MI'), entries, exits FROM occupancy_quarter ORDER BY quarter
                """), quarters)
        }
    }

    func test_daysOlderThanTheChainKeepsAreRetired_theirStatisticsStay_andTheirEventsAreNeverAppliedAgain() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "main")
            let ingest = Ingest(database: hub.database)
            let retention = Retention(database: hub.database)
            let old = moment(daysAgo: 50, 10, 0), lessOld = moment(daysAgo: 45, 10, 0), recent = moment(daysAgo: 1, 10, 0)
            let oldEvents = upload(a, [(.entry, old), (.entry, old), (.exit, lessOld)])
            let recentEvents = upload(a, [(.entry, recent)])
            let reply = try await ingest.apply(a.batch(oldEvents + recentEvents), from: a.device)
            XCTAssertEqual(reply.acknowledged, 4)
            XCTAssertEqual(reply.deadLettered, 0)
            let oldTable = "event_\(old.1.date.replacingOccurrences(of: "-", with: ""))"
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM \(oldTable)"), "2")

            // The chain keeps 400 days by itself; nothing is that old.
            let none = try await retention.retire()
            XCTAssertEqual(none, [])
            do {
                _ = try await retention.setEventDays(10, by: .test)
                XCTFail("10 days were taken")
            } catch let error as HubError {
                XCTAssertEqual(error.coded.message, "the chain keeps between 30 and 3660 days of events, not 10")
            }
            let before = try await retention.setEventDays(30, by: .test)
            XCTAssertEqual(before, 400)
            let retired = try await retention.retire()
            XCTAssertEqual(retired, [old.1.date, lessOld.1.date], "the days retired, oldest first")
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM pg_class WHERE relname = '\(oldTable)'"), "0")
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM event"), "1")
            XCTAssertEqual(try hub.sql("SELECT action, before, after FROM audit WHERE action = 'retention'"),
                           "retention|events kept 400 days|events kept 30 days")
            // Its statistics stay: the day's entries, and its hours on the panel.
            XCTAssertEqual(try hub.sql("SELECT entries FROM occupancy WHERE business_day = '\(old.1.date)'"), "2")
            let hours = try await Panel(database: hub.database).insideByHour(HubFixture.store, zone: .gmt,
                                                                              day: try XCTUnwrap(Panel.Day(old.1.date)))
            XCTAssertEqual(hours[10].value, 2)

            // The old events sent again (an answer lost long ago) are not counted twice, and a
            // new event of a day the chain no longer keeps is a dead letter with its reason.
            let again = try await ingest.apply(a.batch(oldEvents), from: a.device)
            XCTAssertEqual(again.acknowledged, 4)
            let late = upload(a, [(.entry, moment(daysAgo: 35, 9, 0))])
            let lateReply = try await ingest.apply(a.batch(late), from: a.device)
            XCTAssertEqual(lateReply.acknowledged, 5)
            XCTAssertEqual(lateReply.deadLettered, 1)
            XCTAssertEqual(try hub.sql("SELECT entries FROM occupancy WHERE business_day = '\(old.1.date)'"), "2")
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM occupancy WHERE business_day = '\(moment(daysAgo: 35, 0, 0).1.date)'"), "0")
            let reason = try hub.sql("SELECT reason FROM dead_letter WHERE seq = 5")
            XCTAssertTrue(reason.hasPrefix("business day \(moment(daysAgo: 35, 0, 0).1.date) is outside the days the hub accepts"), reason)

            // A retirement stopped half way (the partition detached, the table left) is finished.
            let recentDay = moment(daysAgo: 1, 0, 0).1.date
            let recentTable = "event_\(recentDay.replacingOccurrences(of: "-", with: ""))"
            _ = try hub.sql("ALTER TABLE event DETACH PARTITION \(recentTable)")
            let later = try await retention.retire(now: Date().addingTimeInterval(40 * 86_400))
            XCTAssertTrue(later.contains(recentDay), "\(later)")
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM pg_class WHERE relname = '\(recentTable)'"), "0")
        }
    }
}
