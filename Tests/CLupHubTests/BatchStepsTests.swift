@testable import CLupHub
import CLupCore
import CLupProtocol
import Foundation
import XCTest

/// What a stored batch sets going after its commit (`BatchSteps`), each step alone, and a
/// step that fails leaving the batch's answer as it is.
final class BatchStepsTests: XCTestCase {
    func passage(_ direction: PassageDirection, _ totem: TestTotem) -> DomainEvent {
        .passage(direction: direction, door: totem.door, businessDay: .today, at: Date(), ticket: nil, steady: nil)
    }

    func version(_ hub: HubFixture) throws -> String { try hub.sql("SELECT settings_version FROM store") }

    func test_theHealthStepKeepsWhatTheTotemReportedAndOnlyAVersionThatIsOne() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let steps = BatchSteps(database: hub.database)
            let health = TotemHealth(devices: [.init(role: "printer", state: "fault", detail: "no paper")], printer: "NOT READY: stopped",
                                     softwareVersion: "1.4.2")
            let paused = try await steps.recordHealth(health, device: a.device.deviceID)
            XCTAssertNil(paused, "no update reported, no rollout paused")
            XCTAssertEqual(try hub.sql("SELECT software_version FROM totem"), "1.4.2")
            XCTAssertEqual(try hub.sql("SELECT last_health::jsonb->>'printer' FROM totem"), "NOT READY: stopped")
            _ = try await steps.recordHealth(TotemHealth(devices: [], printer: "ready", softwareVersion: "1.4.2'; DROP TABLE totem; --"),
                                             device: a.device.deviceID)
            XCTAssertEqual(try hub.sql("SELECT software_version || ' ' || (last_health::jsonb->>'printer') FROM totem"), "1.4.2 ready",
                           "what is not a version is not kept as one")
        }
    }

    /// A totem's health arriving while a transaction holds its store's row and then wants the
    /// totem's (as `clup-hub totem replace` does): the report waits for the store's row and
    /// holds nothing meanwhile, so both go through. It held the totem's row first once, and
    /// PostgreSQL ended the pair as a deadlock (the replace answered E-HUB-010).
    func test_aHealthReportWaitsBehindAStoreTransactionWithoutADeadlock() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let holder = try LockHolder(hub.postgres, database: hub.name, lockingStatement: BatchStatements.LockStore.sql
                .replacingOccurrences(of: "$1", with: "'7'"))
            let failsafe = Task { try await Task.sleep(for: .seconds(60)); holder.release() }
            defer { failsafe.cancel(); holder.release() }
            let health = TotemHealth(devices: [], printer: "ready", softwareVersion: "1.4.3")
            let report = Task { try await BatchSteps(database: hub.database).recordHealth(health, device: a.device.deviceID) }
            try waitUntil("the report waits for a lock") {
                try hub.sql("SELECT count(*) FROM pg_locks WHERE NOT granted AND pid <> (SELECT pid FROM pg_stat_activity WHERE application_name = 'lock-holder')") != "0"
            }
            // The holder takes the totem's row, as the replace does next.
            let takeTotem = "SELECT 1 FROM totem WHERE device_id = '\(a.device.deviceID)' FOR NO KEY UPDATE"
            holder.then(takeTotem)
            try waitUntil("the holder's statement has run") {
                !["", "active"].contains(try LockHolder.state(hub.postgres, database: hub.name, after: takeTotem))
            }
            XCTAssertEqual(try LockHolder.state(hub.postgres, database: hub.name, after: takeTotem), "idle in transaction",
                           "the holder got the totem's row (not ended as a deadlock)")
            holder.release()
            _ = try await report.value
            XCTAssertEqual(try hub.sql("SELECT software_version FROM totem"), "1.4.3", "the report was kept once the store's row was free")
        }
    }

    /// A totem's daily integrity check that found its files changed raises the alert once:
    /// an audit record of its store naming the totem as the source, and the metric; the same
    /// report sent again with every upload adds nothing, a clean one clears the metric.
    func test_filesChangedAtATotemAreAuditedOnceAndShownInTheMetrics() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let steps = BatchSteps(database: hub.database)
            let changed = IntegrityReport(at: 1_800_000_000, version: "0.12.0", files: 40, changed: ["/usr/bin/clupd changed"])
            let health = TotemHealth(devices: [], printer: "ready", softwareVersion: "0.12.0", integrity: changed)
            for _ in 0..<3 { _ = try await steps.recordHealth(health, device: a.device.deviceID) }
            XCTAssertEqual(try hub.sql("SELECT who || ' | ' || source || ' | ' || store_id || ' | ' || action || ' | ' || result FROM audit WHERE action = 'integrity check'"),
                           "clup-hub | report of totem \(a.device.deviceID) | 7 | integrity check | "
                               + "1 file of clup-totem 0.12.0 changed outside an update: /usr/bin/clupd changed")
            // A new check's time with the next batch (a totem filling the audit): no second record within 12 hours.
            let again = IntegrityReport(at: 1_800_000_060, version: "0.12.0", files: 40, changed: ["/usr/bin/clupd changed"])
            _ = try await steps.recordHealth(TotemHealth(devices: [], printer: "ready", softwareVersion: "0.12.0", integrity: again),
                                             device: a.device.deviceID)
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM audit WHERE action = 'integrity check'"), "1")
            var text = await HubMetrics().scrape(hub.database, stateDirectory: NSTemporaryDirectory())
            XCTAssertTrue(text.contains("clup_hub_totem_files_changed{device=\"\(a.device.deviceID)\",store=\"7\"} 1\n"), text)
            // The next day's check finds them as installed again.
            let clean = IntegrityReport(at: 1_800_086_400, version: "0.12.0", files: 40, changed: [])
            _ = try await steps.recordHealth(TotemHealth(devices: [], printer: "ready", softwareVersion: "0.12.0", integrity: clean),
                                             device: a.device.deviceID)
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM audit WHERE action = 'integrity check'"), "1")
            text = await HubMetrics().scrape(hub.database, stateDirectory: NSTemporaryDirectory())
            XCTAssertTrue(text.contains("clup_hub_totem_files_changed{device=\"\(a.device.deviceID)\",store=\"7\"} 0\n"), text)
            XCTAssertTrue(text.contains("clup_hub_totem_integrity_check_timestamp_seconds{device=\"\(a.device.deviceID)\",store=\"7\"} 1800086400"), text)
        }
    }

    /// What the shipped alert rules read: a printer out of paper, a device gone, the disk,
    /// each store's line beside what its manager set, and whether the database answered.
    func test_theMetricsGiveWhatTheAlertRulesRead() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let steps = BatchSteps(database: hub.database)
            let health = TotemHealth(devices: [.init(role: "touchscreen", state: "ok", detail: ""),
                                               .init(role: "door-reader", state: "missing", detail: "unplugged")],
                                     printer: "NOT READY: stopped (media-empty)", softwareVersion: "0.13.0",
                                     printerReady: false, printerReasons: ["media-empty", "bad\nreason", "cover-open"],
                                     disk: DiskFill(availableBytes: 100, sizeBytes: 1000),
                                     notRecording: "NOT RECORDING: E-DB-005 the disk holding /var/lib/clup/clup.sqlite is full",
                                     paper: PaperStatus(low: true, ticketsLeft: 42))
            _ = try await steps.recordHealth(health.bounded(), device: a.device.deviceID)
            let admin = HubAdmin(database: hub.database)
            let alerts = try await admin.setStaffAlerts(id: "7", waitMinutes: 15, waiting: 40, by: .shell)
            XCTAssertEqual(alerts.description, "staff alerted past a 15 min wait and 40 waiting")
            XCTAssertEqual(try hub.sql("SELECT action || ': ' || before || ' -> ' || after FROM audit WHERE action = 'staff alerts changed'"),
                           "staff alerts changed: staff alerted past no wait and no line length -> staff alerted past a 15 min wait and 40 waiting")
            do {
                _ = try await admin.setStaffAlerts(id: "7", waitMinutes: 601, waiting: nil, by: .shell)
                XCTFail("a wait of 601 minutes was taken")
            } catch let error as HubError {
                XCTAssertTrue(error.coded.message.contains("0 to 600 minutes"), error.coded.message)
            }
            let text = await HubMetrics().scrape(hub.database, stateDirectory: NSTemporaryDirectory())
            let totem = "device=\"\(a.device.deviceID)\",store=\"7\""
            for line in ["clup_hub_totem_printer_ready{\(totem)} 0", "clup_hub_totem_printer_paper_out{\(totem)} 1",
                         "clup_hub_totem_device_ok{\(totem),role=\"touchscreen\"} 1", "clup_hub_totem_device_ok{\(totem),role=\"door-reader\"} 0",
                         "clup_hub_totem_disk_used_ratio{\(totem)} 0.9", "clup_hub_store_alert_wait_seconds{store=\"7\"} 900",
                         "clup_hub_store_alert_waiting{store=\"7\"} 40", "clup_hub_store_waiting{store=\"7\"} 0",
                         "clup_hub_store_estimated_wait_seconds{store=\"7\"} 0", "clup_hub_database_up 1",
                         "clup_hub_totem_not_recording{\(totem)} 1", "clup_hub_totem_paper_low{\(totem)} 1",
                         "clup_hub_totem_paper_tickets_left{\(totem)} 42"] {
                XCTAssertTrue(text.contains(line + "\n"), "no \(line) in\n\(text)")
            }
            XCTAssertTrue(text.contains("clup_hub_disk_used_ratio{path=\""), text)
            XCTAssertTrue(try XCTUnwrap(text.firstMatch(of: /clup_hub_store_open\{store="7"\} [01]\n/)).output.count > 0)
            XCTAssertEqual(try hub.sql("SELECT last_health::jsonb->>'printerReasons' FROM totem"), #"["media-empty", "cover-open"]"#,
                           "what is not an IPP keyword is not kept")
        }
    }

    /// A door's counting figures: kept per day for its own door and days about now only,
    /// replaced by the next report, given in the metrics with the chain's tolerance.
    func test_aDoorsCountingFiguresAreKeptForItsOwnDoorAndDaysAboutNow() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let steps = BatchSteps(database: hub.database)
            let today = try hub.sql("SELECT current_date::text")
            let longAgo = try hub.sql("SELECT (current_date - 30)::text")
            func report(_ counting: [DoorCounting]) async throws {
                _ = try await steps.recordHealth(TotemHealth(devices: [], printer: "ready", counting: counting), device: a.device.deviceID)
            }
            try await report([DoorCounting(day: today, door: "north", withoutRelease: 2, releasesUnused: 1, wrongWay: 0),
                              DoorCounting(day: today, door: "south", withoutRelease: 99),
                              DoorCounting(day: longAgo, door: "north", withoutRelease: 99)])
            XCTAssertEqual(try hub.sql("SELECT business_day || ' ' || door || ' ' || without_release || ' ' || releases_unused || ' ' || wrong_way FROM door_counting"),
                           "\(today) north 2 1 0", "another door's and an old day's figures are not this totem's to give")
            try await report([DoorCounting(day: today, door: "north", withoutRelease: 3, releasesUnused: 1, wrongWay: 1)])
            XCTAssertEqual(try hub.sql("SELECT without_release || ' ' || wrong_way FROM door_counting"), "3 1")
            let before = try await HubAdmin(database: hub.database).setCountingTolerance(5, by: .shell)
            XCTAssertEqual(before, 2)
            _ = try hub.sql("INSERT INTO occupancy (store_id, business_day, door, carried, entries, exits, corrections) VALUES ('7', current_date, 'north', 0, 4, 1, 0)")
            let text = await HubMetrics().scrape(hub.database, stateDirectory: NSTemporaryDirectory())
            for line in ["clup_hub_door_entries_without_release{store=\"7\",door=\"north\"} 3",
                         "clup_hub_door_exits_while_released{store=\"7\",door=\"north\"} 1", "clup_hub_counting_tolerance 5"] {
                XCTAssertTrue(text.contains(line + "\n"), "no \(line) in\n\(text)")
            }
            do {
                _ = try await HubAdmin(database: hub.database).setCountingTolerance(1001, by: .shell)
                XCTFail("a tolerance of 1001 people was taken")
            } catch let error as HubError {
                XCTAssertTrue(error.coded.message.contains("0 to 1000 people"), error.coded.message)
            }
        }
    }

    func test_theDoorSharesStepKeepsTheDoorsFiguresAndWakesNoDoorForTheSameOnes() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            _ = try await hub.enrol("B", door: "south")
            let steps = BatchSteps(database: hub.database)
            try await steps.planDoorShares(DoorReport(held: 3, waiting: 2, seq: 5), store: "7", device: a.device.deviceID)
            XCTAssertEqual(try hub.sql("SELECT held || ' ' || waiting || ' ' || held_seq FROM door_grant WHERE device_id = '\(a.device.deviceID)'"),
                           "3 2 5")
            let before = try version(hub)
            try await steps.planDoorShares(DoorReport(held: 3, waiting: 2, seq: 6), store: "7", device: a.device.deviceID)
            XCTAssertEqual(try version(hub), before, "the same figures and no news: the doors are not woken")
            // An older report (its seq before the one kept) changes nothing.
            try await steps.planDoorShares(DoorReport(held: 9, waiting: 9, seq: 4), store: "7", device: a.device.deviceID)
            XCTAssertEqual(try hub.sql("SELECT held FROM door_grant WHERE device_id = '\(a.device.deviceID)'"), "3")
        }
    }

    /// Where every door follows its line, a ticket used at one door is news on the others'
    /// lines from the batch's own transaction: when the hub answers that it holds B's
    /// admission of A's ticket, A's line already lists the ticket as used, though the door
    /// shares step after the commit fails (its table held past the statement's deadline); and
    /// no settings version is made for it.
    func test_aTicketUsedAtADoorIsOnTheIssuingDoorsLineOnceTheBatchIsHeldEvenWithItsStepFailing() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north"), b = try await hub.enrol("B", door: "south")
            for totem in [a, b] {
                _ = try await RemoteLine.nextLine(store: "7", device: totem.device.deviceID, after: 0, takesDoorLimit: true, wait: 0,
                                                  database: hub.database, signals: SettingsSignals())
            }
            func line(_ totem: TestTotem) async throws -> DoorLine {
                try await hub.database.transaction { connection in
                    try await RemoteLine.line(store: "7", device: totem.device.deviceID, connection, hub.database.logger)
                }
            }
            let ingest = Ingest(database: hub.database)
            let day = BusinessDay.today
            var ticket = a.ticket(1, day: day)
            _ = try await ingest.apply(a.batch(a.upload([.ticketIssued(ticket), .ticketPrinted(ticket.number, businessDay: day, job: 1),
                                                         .ticketCalled(ticket.number, businessDay: day, at: Date(), reason: "next",
                                                                       steady: nil)])), from: a.device)
            let heard = try await line(b).calledAtOtherDoors
            XCTAssertEqual(heard, [ticket.number.description], "B hears of A's call on its line")
            let settingsBefore = try version(hub), lineBefore = try await line(a).version
            let holder = try LockHolder(hub.postgres, database: hub.name, lockingStatement: "LOCK TABLE door_grant IN EXCLUSIVE MODE")
            defer { holder.release() }
            ticket.state = .called
            let reply = try await ingest.apply(b.batch(b.upload([.ticketFromOtherDoor(ticket, at: Date()),
                                                                 .ticketAdmitted(ticket.number, businessDay: day, at: Date(), steady: nil)])),
                                               from: b.device)
            XCTAssertEqual(reply.acknowledged, 2, "B's admission is held")
            let told = try await line(a)
            XCTAssertGreaterThan(told.version, lineBefore, "A is woken on its line")
            XCTAssertEqual(told.usedAtOtherDoors, [ticket.number.description], "and its line says the ticket was used at B")
            holder.release()
            XCTAssertEqual(try version(hub), settingsBefore, "no settings version for it")
        }
    }

    /// Where a door of the store does not follow its line (a totem from before the line's own
    /// feed), the news goes with a settings version too, made in the batch's own transaction.
    func test_aDoorThatDoesNotFollowItsLineHearsOfACallThroughTheSettings() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            _ = try await hub.enrol("B", door: "south")
            // A follows its line; B, an older totem, does not.
            _ = try await RemoteLine.nextLine(store: "7", device: a.device.deviceID, after: 0, takesDoorLimit: true, wait: 0,
                                              database: hub.database, signals: SettingsSignals())
            let ingest = Ingest(database: hub.database)
            let day = BusinessDay.today
            _ = try await ingest.apply(a.batch(a.upload([])), from: a.device)
            let before = Int(try version(hub))!
            let ticket = a.ticket(1, day: day)
            _ = try await ingest.apply(a.batch(a.upload([.ticketIssued(ticket), .ticketPrinted(ticket.number, businessDay: day, job: 1)])),
                                       from: a.device)
            XCTAssertEqual(Int(try version(hub))!, before, "a ticket issued is no news")
            _ = try await ingest.apply(a.batch(a.upload([.ticketCalled(ticket.number, businessDay: day, at: Date(), reason: "next",
                                                                       steady: nil)])), from: a.device)
            XCTAssertEqual(Int(try version(hub))!, before + 1, "a ticket called is: B hears of it with its settings")
        }
    }

    /// A door that follows its line is given its part of the capacity there: a new part
    /// moves its line's version and the store's settings version, not the configuration's,
    /// which is all the door's settings wait on; a door that does not follow its line has its
    /// part in its settings, as before. The part recorded at the door confirms it.
    func test_aDoorThatFollowsItsLineIsGivenItsPartThereAndItsSettingsStayAsTheyWere() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north"), b = try await hub.enrol("B", door: "south")
            _ = try await RemoteLine.nextLine(store: "7", device: a.device.deviceID, after: -1, takesDoorLimit: true, wait: 0,
                                              database: hub.database, signals: SettingsSignals())
            func documents() async throws -> (a: StoreSettingsDocument, b: StoreSettingsDocument, line: DoorLine) {
                try await hub.database.transaction { connection in
                    let logger = hub.database.logger
                    return (try await StoreSettingsReader.current(store: "7", device: a.device.deviceID, connection, logger)!,
                            try await StoreSettingsReader.current(store: "7", device: b.device.deviceID, connection, logger)!,
                            try await RemoteLine.line(store: "7", device: a.device.deviceID, connection, logger))
                }
            }
            let first = try await documents()
            XCTAssertEqual(first.line.doorLimit?.limit, 30, "A, enrolled first, was given the whole capacity")
            XCTAssertEqual(first.a.doorLimit, 30, "and its settings carry it too, as it is when they are read")
            XCTAssertEqual(first.b.doorLimit, 0, "B's part, with its settings: none until A gives some back")
            // A records its part, on its line: the hub knows A is held to it.
            let ingest = Ingest(database: hub.database)
            _ = try await ingest.apply(a.batch(a.upload([.doorLimitApplied(first.line.doorLimit!, businessDay: .today, at: Date())])),
                                       from: a.device)
            func confirmed(_ totem: TestTotem) throws -> String {
                try hub.sql("SELECT confirmed_limit || ' v' || confirmed_version FROM door_grant WHERE device_id = '\(totem.device.deviceID)'")
            }
            XCTAssertEqual(try confirmed(a), "30 v\(first.line.doorLimit!.version)")
            // B puts its settings in force, and customers wait there: the hub takes places back
            // from A, on A's line alone.
            _ = try await ingest.apply(b.batch(b.upload([.storeSettingsApplied(first.b, businessDay: .today, at: Date())]), waiting: 20),
                                       from: b.device)
            let lowered = try await documents()
            let settingsVersion = Int64(try version(hub))!
            XCTAssertLessThan(lowered.line.doorLimit!.limit, 30, "A's part shrank")
            XCTAssertEqual(lowered.line.doorLimit?.version, settingsVersion, "given at the store's next settings version")
            XCTAssertGreaterThan(lowered.line.version, first.line.version, "A is woken on its line")
            XCTAssertEqual(lowered.a.version, first.a.version, "A's settings did not change: no document for A")
            XCTAssertLessThan(Int64(try hub.sql("SELECT config_version FROM store"))!, settingsVersion)
            // A puts its smaller part in force: B, which does not follow its line, is given the
            // places with its settings.
            _ = try await ingest.apply(a.batch(a.upload([.doorLimitApplied(lowered.line.doorLimit!, businessDay: .today, at: Date())])),
                                       from: a.device)
            XCTAssertEqual(try confirmed(a), "\(lowered.line.doorLimit!.limit) v\(settingsVersion)")
            let given = try await documents()
            XCTAssertGreaterThan(given.b.doorLimit!, 0, "B was given places")
            XCTAssertGreaterThan(given.b.version, lowered.b.version)
            XCTAssertEqual(given.a.version, first.a.version, "and still no document for A")
            XCTAssertEqual(given.line.doorLimit!.limit + given.b.doorLimit!, 30, "the doors' parts add up to the capacity")
            // A change of configuration is every door's.
            try await HubAdmin(database: hub.database).setStore(id: "7", .init(capacity: 12), by: .test)
            let changed = try await documents()
            XCTAssertGreaterThan(changed.a.version, given.a.version)
            XCTAssertEqual(changed.a.capacity, 12)
            // A's update is undone to a clupd that follows its line but takes its part from its
            // settings (it asks without `doorLimit=1`): its settings carry its part again, at
            // the store's settings version, which is above any A knew.
            _ = try await RemoteLine.nextLine(store: "7", device: a.device.deviceID, after: -1, takesDoorLimit: false, wait: 0,
                                              database: hub.database, signals: SettingsSignals())
            let undone = try await documents()
            XCTAssertEqual(undone.a.doorLimit, undone.line.doorLimit?.limit)
            XCTAssertEqual(undone.a.version, Int64(try version(hub))!)
            XCTAssertNil(undone.a.remoteTickets, "its line is still its own")
            // A door's log claiming a version the store has not reached confirms nothing.
            _ = try await ingest.apply(a.batch(a.upload([.doorLimitApplied(DoorLimit(limit: 30, version: 1_000_000), businessDay: .today,
                                                                           at: Date())])), from: a.device)
            XCTAssertEqual(try confirmed(a), "\(lowered.line.doorLimit!.limit) v\(settingsVersion)")
        }
    }

    /// A door confirming a newer version of the limit it already confirmed stays settled:
    /// the seq of its first confirmation is kept (`CapacityEscrow.Door.confirmed`), so a
    /// report made between the two does not make its old, higher limit count again.
    func test_aNewerVersionOfTheSameLimitKeepsTheSeqOfItsFirstConfirmation() async throws {
        try await withHub { hub in
            let b = try await hub.enrol("B", door: "south")
            let device = b.device.deviceID
            _ = try hub.sql("UPDATE store SET settings_version = 40")
            _ = try hub.sql("""
                INSERT INTO door_grant (store_id, device_id, held, held_seq, issued_limit, issued_version, outstanding_max,
                                        confirmed_limit, confirmed_version, confirmed_seq)
                VALUES ('7', '\(device)', 0, 32, 0, 16, 1, 0, 17, 32)
                ON CONFLICT (store_id, device_id) DO UPDATE SET held = 0, held_seq = 32, issued_limit = 0, issued_version = 16,
                    outstanding_max = 1, confirmed_limit = 0, confirmed_version = 17, confirmed_seq = 32
                """)
            func confirmed() throws -> String {
                try hub.sql("SELECT confirmed_limit || ' v' || confirmed_version || ' @' || confirmed_seq FROM door_grant WHERE device_id = '\(device)'")
            }
            try await hub.database.storeTransaction("7") { locked in
                try await DoorShares.confirm(limit: 0, version: 18, seq: 33, device: device, locked)
            }
            XCTAssertEqual(try confirmed(), "0 v18 @32", "the same limit, in force since seq 32")
            _ = try hub.sql("UPDATE door_grant SET issued_limit = 1, issued_version = 19 WHERE device_id = '\(device)'")
            try await hub.database.storeTransaction("7") { locked in
                try await DoorShares.confirm(limit: 1, version: 19, seq: 34, device: device, locked)
            }
            XCTAssertEqual(try confirmed(), "1 v19 @34", "a new limit is in force from its own confirmation")
        }
    }

    /// The notice rules failing (their table held by another session past the statement's
    /// deadline) neither fails the batch nor loses its events; the step run again later does
    /// what was left undone, from what the database holds.
    func test_aFailingStepLeavesTheBatchHeldAndTheStepDoneLaterCatchesUp() async throws {
        try await withHub { hub in
            let admin = HubAdmin(database: hub.database)
            try await admin.setStore(id: "7", .init(capacity: 2, bookingShare: 0.5, totemBookingPlaces: 0), by: .test)
            _ = try await admin.setNoticeRules(id: "7", delayNoticeMinutes: 45, majorDelayMinutes: 600, reminderMinutes: nil, by: .test)
            let a = try await hub.enrol("A", door: "north")
            // Store 7 is open all day in slots of 30 minutes: the next starts within the delay notice's 45.
            let today = try await Bookings(database: hub.database).slots(store: "7", day: nil).slots
            let tomorrow = BusinessDay(containing: Date().addingTimeInterval(86_400), startMinute: 0, timeZone: TimeZone(identifier: "UTC")!)
            var next = today.first(where: { $0.start > Date() })
            if next == nil { next = try await Bookings(database: hub.database).slots(store: "7", day: tomorrow.description).slots.first }
            let booked = try await Bookings(database: hub.database).book(
                store: "7", .init(slotStart: try XCTUnwrap(next).start, customerRef: "customer-0042", forSomeoneElse: nil)).number
            let holder = try LockHolder(hub.postgres, database: hub.name, lockingStatement: "LOCK TABLE notice IN EXCLUSIVE MODE")
            defer { holder.release() }
            // Two in: the store is full, and its notice rules wait on the table until their deadline.
            let reply = try await Ingest(database: hub.database).apply(a.batch(a.upload([passage(.entry, a), passage(.entry, a)])),
                                                                       from: a.device)
            XCTAssertEqual(reply.acknowledged, 2, "the batch is held though its notice rules could not run")
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM event"), "2")
            holder.release()
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM notice"), "0")
            // Its statement was being prepared when it waited past its deadline: the connection
            // it failed on is gone, and the step runs on another (`HubDatabase.withConnection`).
            try await BatchSteps(database: hub.database).applyNoticeRules(store: "7", now: Date())
            XCTAssertEqual(try hub.sql("SELECT kind || ' ' || booking_number FROM notice"), "delayed \(booked)")
        }
    }
}
