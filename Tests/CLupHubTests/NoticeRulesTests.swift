import HTTPTypes
@testable import CLupHub
import CLupCore
import CLupProtocol
import Foundation
import XCTest

/// A store's rules for what its customers with a booking hear (R10, R11, reminders), as the
/// doors' batches say the store fills and empties.
final class NoticeRulesTests: XCTestCase {
    func passage(_ direction: PassageDirection, _ totem: TestTotem) -> DomainEvent {
        .passage(direction: direction, door: totem.door, businessDay: .today, at: Date(), ticket: nil, steady: nil)
    }

    /// The next slot of store 7 to start: within half an hour (its slots' length).
    func nextSlot(_ hub: HubFixture) async throws -> Date {
        let now = Date()
        let today = try await Bookings(database: hub.database).slots(store: HubFixture.store, day: nil).slots
        if let next = today.first(where: { $0.start > now }) { return next.start }
        // The day's last slot has begun: tomorrow's first.
        let tomorrow = BusinessDay(containing: now.addingTimeInterval(86_400), startMinute: 0, timeZone: TimeZone(identifier: "UTC")!)
        let first = try await Bookings(database: hub.database).slots(store: HubFixture.store, day: tomorrow.description).slots.first
        return try XCTUnwrap(first).start
    }

    func book(_ hub: HubFixture, _ reference: String, at start: Date) async throws -> String {
        try await Bookings(database: hub.database).book(
            store: HubFixture.store, .init(slotStart: start, customerRef: reference, forSomeoneElse: nil)).number
    }

    func notices(_ hub: HubFixture) throws -> String {
        try hub.sql("SELECT kind || ' ' || booking_number || ' ' || customer_ref FROM notice ORDER BY notice_id")
    }

    func test_whileFullANearBookingHearsOfTheDelayOnceAndAfterTheMajorDelayItIsCancelledAndTheDoorsHearIt() async throws {
        try await withHub { hub in
            let admin = HubAdmin(database: hub.database)
            try await admin.setStore(id: "7", .init(capacity: 4, bookingShare: 0.5, totemBookingPlaces: 0), by: .test)
            let rules = try await admin.setNoticeRules(id: "7", delayNoticeMinutes: 45, majorDelayMinutes: 10, reminderMinutes: nil, by: .test)
            XCTAssertEqual(rules, .init(delayNoticeMinutes: 45, majorDelayMinutes: 10, reminderMinutes: 60))
            let a = try await hub.enrol("A", door: "north")
            let start = try await nextSlot(hub)
            let app = try await book(hub, "customer-0001", at: start)
            let atTotem = try await book(hub, "totem-store-7-totem-A-0001", at: start)
            let ingest = Ingest(database: hub.database)
            let t0 = Date()
            // Three inside of four: not full, nothing to tell.
            _ = try await ingest.apply(a.batch(a.upload([passage(.entry, a), passage(.entry, a), passage(.entry, a)])), from: a.device,
                                       now: t0)
            XCTAssertEqual(try notices(hub), "")
            XCTAssertEqual(try hub.sql("SELECT full_since IS NULL FROM store"), "t")
            // The fourth fills it: the app's booking hears of the delay; the totem's has nobody to tell.
            _ = try await ingest.apply(a.batch(a.upload([passage(.entry, a)])), from: a.device, now: t0)
            XCTAssertEqual(try notices(hub), "delayed \(app) customer-0001")
            XCTAssertEqual(try hub.sql("SELECT floor(extract(epoch FROM full_since))::bigint FROM store"), "\(Int(t0.timeIntervalSince1970))")
            // Still full five minutes on: told once, not cancelled yet.
            _ = try await ingest.apply(a.batch(a.upload([passage(.entry, a)])), from: a.device, now: t0.addingTimeInterval(300))
            XCTAssertEqual(try notices(hub), "delayed \(app) customer-0001")
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM booking WHERE cancelled_at IS NOT NULL"), "0")
            // Full for its major delay: the app's booking is cancelled and told so, and the doors refuse it.
            let version = try hub.sql("SELECT settings_version FROM store")
            _ = try await ingest.apply(a.batch(a.upload([passage(.exit, a)])), from: a.device, now: t0.addingTimeInterval(601))
            XCTAssertEqual(try notices(hub), "delayed \(app) customer-0001\ncancelled \(app) customer-0001")
            XCTAssertEqual(try hub.sql("SELECT number FROM booking WHERE cancelled_at IS NOT NULL"), app)
            XCTAssertNotEqual(try hub.sql("SELECT settings_version FROM store"), version, "the doors hear of it with new settings")
            let settings = try await hub.database.transaction { connection in
                try await StoreSettingsReader.current(store: "7", device: a.device.deviceID, connection, HubFixture.logger)
            }
            XCTAssertEqual(settings?.cancelledBookings, [app])
            XCTAssertFalse(settings?.bookings?.contains { $0.number.description == app } ?? true)
            XCTAssertTrue(settings?.bookings?.contains { $0.number.description == atTotem } ?? false, "the totem's booking stands")
            // Room again: the store is no longer full, and full_since starts over next time.
            _ = try await ingest.apply(a.batch(a.upload([passage(.exit, a)])), from: a.device, now: t0.addingTimeInterval(660))
            XCTAssertEqual(try hub.sql("SELECT full_since IS NULL FROM store"), "t")
        }
    }

    func test_withoutAMajorDelayAFullStoreOnlyTellsItsBookingsAndOnlyThoseNearTheirSlot() async throws {
        try await withHub { hub in
            let admin = HubAdmin(database: hub.database)
            try await admin.setStore(id: "7", .init(capacity: 1, priorityShare: 0, bookingShare: 1, totemBookingPlaces: 0), by: .test)
            _ = try await admin.setNoticeRules(id: "7", delayNoticeMinutes: 0, majorDelayMinutes: 0, reminderMinutes: nil, by: .test)
            let a = try await hub.enrol("A", door: "north")
            let start = try await nextSlot(hub)
            let later = try await book(hub, "customer-0002", at: start.addingTimeInterval(3 * 3600))
            let ingest = Ingest(database: hub.database)
            _ = try await ingest.apply(a.batch(a.upload([passage(.entry, a)])), from: a.device, now: Date().addingTimeInterval(3600))
            // Full for an hour, no major delay set: nothing cancelled; a slot three hours on hears nothing.
            XCTAssertEqual(try notices(hub), "")
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM booking WHERE cancelled_at IS NOT NULL"), "0")
            XCTAssertEqual(try hub.sql("SELECT number FROM booking"), later)
        }
    }

    func test_aReminderIsQueuedOnceForEachAppBookingWithinItsStoresReminderTimeAndNoneWhenTheStoreSaysNone() async throws {
        try await withHub { hub in
            let admin = HubAdmin(database: hub.database)
            try await admin.setStore(id: "7", .init(capacity: 10, priorityShare: 0, bookingShare: 1, totemBookingPlaces: 0), by: .test)
            let soon = try await nextSlot(hub)
            let near = try await book(hub, "customer-0001", at: soon)
            _ = try await book(hub, "totem-store-7-totem-A-0001", at: soon)
            let far = try await book(hub, "customer-0002", at: soon.addingTimeInterval(3 * 3600))
            // Reminders an hour ahead (the default): the near booking only, and once.
            var queued = try await Bookings.queueReminders(hub.database)
            XCTAssertEqual(queued, 1)
            queued = try await Bookings.queueReminders(hub.database)
            XCTAssertEqual(queued, 0)
            XCTAssertEqual(try notices(hub), "reminder \(near) customer-0001")
            // Two and a half hours on, the far one's turn.
            queued = try await Bookings.queueReminders(hub.database, now: Date().addingTimeInterval(2.5 * 3600))
            XCTAssertEqual(queued, 1)
            XCTAssertEqual(try notices(hub), "reminder \(near) customer-0001\nreminder \(far) customer-0002")
            // A store that sends none: none, even when a slot is near.
            _ = try await book(hub, "customer-0003", at: soon)
            let rules = try await admin.setNoticeRules(id: "7", delayNoticeMinutes: nil, majorDelayMinutes: nil, reminderMinutes: 0, by: .test)
            XCTAssertEqual(rules.reminderMinutes, 0)
            queued = try await Bookings.queueReminders(hub.database)
            XCTAssertEqual(queued, 0)
        }
    }

    func test_rulesOutOfBoundsAreRefusedAndNothingChanges() async throws {
        try await withHub { hub in
            let admin = HubAdmin(database: hub.database)
            for (delay, major, reminder) in [(241, nil, nil), (-1, nil, nil), (nil, 601, nil), (nil, -5, nil), (nil, nil, 1441)] as [(Int?, Int?, Int?)] {
                do {
                    _ = try await admin.setNoticeRules(id: "7", delayNoticeMinutes: delay, majorDelayMinutes: major, reminderMinutes: reminder, by: .test)
                    XCTFail("\(String(describing: delay)) \(String(describing: major)) \(String(describing: reminder)) taken")
                } catch let error as HubError {
                    XCTAssertEqual(error.status, .badRequest)
                }
            }
            do {
                _ = try await admin.setNoticeRules(id: "70", delayNoticeMinutes: 10, majorDelayMinutes: nil, reminderMinutes: nil, by: .test)
                XCTFail("an unknown store's rules set")
            } catch let error as HubError {
                XCTAssertEqual(error.coded.code, ErrorCode.unknownStore.rawValue)
            }
            XCTAssertEqual(try hub.sql("SELECT delay_notice_minutes, major_delay_minutes IS NULL, reminder_minutes FROM store"), "30|t|60")
        }
    }
}
