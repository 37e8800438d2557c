@testable import CLupHub
import CLupCore
import CLupProtocol
import Foundation
import XCTest

/// What a totem's batch may change at the hub: its own door's figures and its own tickets
/// (or another door's ticket it admitted once the hub said it was called), each seq once.
final class IngestAuthorityTests: XCTestCase {
    let day = BusinessDay.today

    /// `ticket` issued and printed (as job `job`) at its door: waiting.
    func printed(_ ticket: Ticket, job: Int) -> [DomainEvent] {
        [.ticketIssued(ticket), .ticketPrinted(ticket.number, businessDay: day, job: job)]
    }

    /// `ticket` issued, printed and called at its door.
    func called(_ ticket: Ticket, job: Int) -> [DomainEvent] {
        printed(ticket, job: job) + [.ticketCalled(ticket.number, businessDay: day, at: Date(), reason: "next", steady: nil)]
    }

    func passage(_ direction: PassageDirection, door: String, ticket: TicketNumber? = nil) -> DomainEvent {
        .passage(direction: direction, door: door, businessDay: day, at: Date(), ticket: ticket, steady: nil)
    }

    func test_anEventPostgresRefusesIsADeadLetterWithItsReason_andTheRestOfTheBatchIsStoredAndAcknowledged() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let ingest = Ingest(database: hub.database)
            // A rule of the database the hub does not check itself: corrections of 7 people refused.
            _ = try hub.sql("ALTER TABLE occupancy ADD CONSTRAINT no_seven CHECK (corrections <> 7)")
            let ticket = a.ticket(1, day: day)
            let events = printed(ticket, job: 1) + [
                .occupancyCorrected(door: "north", businessDay: day, delta: 7, by: "tech", reason: "count", at: Date()),
                passage(.entry, door: "north"),
            ]
            let reply = try await ingest.apply(a.batch(a.upload(events)), from: a.device)
            XCTAssertEqual(reply.acknowledged, 4)
            XCTAssertEqual(reply.deadLettered, 1)
            let reason = try hub.sql("SELECT seq, reason FROM dead_letter")
            XCTAssertTrue(reason.hasPrefix("3|PostgreSQL refused it: 23514"), reason)
            XCTAssertEqual(try hub.sql("SELECT number, state FROM ticket"), "\(ticket.number)|waiting")
            XCTAssertEqual(try hub.sql("SELECT entries, corrections FROM occupancy WHERE door = 'north'"), "1|0")
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM event"), "3")
        }
    }

    func test_aSeqSentAgainWithOtherContentOnAnotherDayIsADeadLetterAndStoredOnce() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let ingest = Ingest(database: hub.database)
            let reply = try await ingest.apply(a.batch(a.upload([passage(.entry, door: "north")])), from: a.device)
            XCTAssertEqual(reply.acknowledged, 1)
            // Seq 1 again, another event on another business day (the partition key differs).
            let yesterday = BusinessDay(CivilDay.text(CivilDay.number(day.date)! - 1))
            let other = DomainEvent.passage(direction: .exit, door: "north", businessDay: yesterday, at: Date(), ticket: nil, steady: nil)
            let again = try await ingest.apply(a.batch([TestTotem.uploaded(other, seq: 1)]), from: a.device)
            XCTAssertEqual(again.acknowledged, 1)
            XCTAssertEqual(again.deadLettered, 1)
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM event WHERE device_id = '\(a.device.deviceID)' AND seq = 1"), "1")
            XCTAssertEqual(try hub.sql("SELECT reason FROM dead_letter WHERE seq = 1"), "seq 1 was received before with different content")
            XCTAssertEqual(try hub.sql("SELECT entries, exits FROM occupancy WHERE door = 'north'"), "1|0")
        }
    }

    func test_anAcknowledgedSeqSentAgainWithOtherContentIsADeadLetter() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let ingest = Ingest(database: hub.database)
            _ = try await ingest.apply(a.batch(a.upload([passage(.entry, door: "north"), passage(.entry, door: "north")])), from: a.device)
            let forged = TestTotem.uploaded(passage(.exit, door: "north"), seq: 1)
            let reply = try await ingest.apply(a.batch([forged]), from: a.device)
            XCTAssertEqual(reply.acknowledged, 2)
            XCTAssertEqual(reply.deadLettered, 1)
            XCTAssertEqual(try hub.sql("SELECT seq, reason FROM dead_letter"), "1|seq 1 was received before with different content")
            XCTAssertEqual(try hub.sql("SELECT entries, exits FROM occupancy WHERE door = 'north'"), "2|0")
            // The same content again (a lost answer) changes nothing and is no dead letter.
            let retry = try await ingest.apply(a.batch([TestTotem.uploaded(passage(.entry, door: "north"), seq: 3)]), from: a.device)
            XCTAssertEqual(retry.acknowledged, 3)
            let replay = try hub.sql("SELECT payload FROM event WHERE seq = 3")
            let resent = UploadedEvent(seq: 3, wallTime: Date().timeIntervalSince1970, type: "occupancy.passage", payload: replay)
            let second = try await ingest.apply(a.batch([resent]), from: a.device)
            XCTAssertEqual(second.deadLettered, 0)
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM dead_letter"), "1")
        }
    }

    func test_passagesAndCorrectionsNamingAnotherDoorAreDeadLetters() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            _ = try await hub.enrol("B", door: "south")
            let events = a.upload([
                passage(.entry, door: "south"),
                passage(.entry, door: "nobody-stands-here"),
                .occupancyCorrected(door: "south", businessDay: day, delta: 5, by: "tess", reason: "counted", at: Date()),
                passage(.entry, door: "north"),
            ])
            let reply = try await Ingest(database: hub.database).apply(a.batch(events), from: a.device)
            XCTAssertEqual(reply.acknowledged, 4)
            XCTAssertEqual(reply.deadLettered, 3)
            XCTAssertEqual(try hub.sql("SELECT door, entries, corrections FROM occupancy ORDER BY door"), "north|1|0")
            XCTAssertEqual(try hub.sql("SELECT reason FROM dead_letter ORDER BY seq LIMIT 1"),
                           "occupancy.passage names door \"south\"; this totem is enrolled at door \"north\"")
        }
    }

    func test_aDoorCannotChangeAnotherTotemsTicket() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let b = try await hub.enrol("B", door: "south")
            let ingest = Ingest(database: hub.database)
            let ticket = a.ticket(1, day: day)
            _ = try await ingest.apply(a.batch(a.upload(called(ticket, job: 1))), from: a.device)
            let forged = b.upload([
                .ticketVoided(ticket.number, businessDay: day, at: Date(), by: "tess", reason: "x"),
                .ticketIssued(Ticket(number: TicketNumber(totem: "A", lane: .regular, sequence: 9), businessDay: day, issuedAt: Date(),
                                     state: .printing, code: "FORGED")),
            ])
            let reply = try await ingest.apply(b.batch(forged), from: b.device)
            XCTAssertEqual(reply.deadLettered, 2)
            XCTAssertEqual(try hub.sql("SELECT number, state FROM ticket ORDER BY number"), "A-001|called")
        }
    }

    func test_aDoorAdmitsAnotherDoorsTicketOnlyOnceTheHubKnowsItWasCalled() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let b = try await hub.enrol("B", door: "south")
            let ingest = Ingest(database: hub.database)
            let called = a.ticket(1, day: day), waiting = a.ticket(2, day: day)
            _ = try await ingest.apply(a.batch(a.upload(self.called(called, job: 1) + printed(waiting, job: 2))), from: a.device)
            var arrived = called
            arrived.state = .called
            var early = waiting
            early.state = .called
            let reply = try await ingest.apply(b.batch(b.upload([
                .ticketFromOtherDoor(arrived, at: Date()),
                .ticketAdmitted(called.number, businessDay: day, at: Date(), steady: nil),
                passage(.entry, door: "south", ticket: called.number),
                .ticketLeft(called.number, businessDay: day, at: Date()),
                // Never called at its door: this door may not take it.
                .ticketFromOtherDoor(early, at: Date()),
                .ticketAdmitted(waiting.number, businessDay: day, at: Date(), steady: nil),
            ])), from: b.device)
            XCTAssertEqual(reply.acknowledged, 6)
            XCTAssertEqual(reply.deadLettered, 2)
            XCTAssertEqual(try hub.sql("SELECT number, state, admitted_by IS NOT NULL, left_at IS NOT NULL FROM ticket ORDER BY number"),
                           "A-001|entered|t|t\nA-002|waiting|f|f")
            XCTAssertEqual(try hub.sql("SELECT door, entries FROM occupancy ORDER BY door"), "south|1")
        }
    }

    func test_aDayOpenedAtADoorCarriesItsOwnFiguresOnlyAndLeavesAnotherDoorsTicketAlone() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let b = try await hub.enrol("B", door: "south")
            let ingest = Ingest(database: hub.database)
            let ticket = a.ticket(1, day: day)
            _ = try await ingest.apply(a.batch(a.upload(called(ticket, job: 1))), from: a.device)
            var stale = ticket
            stale.state = .waiting
            let reply = try await ingest.apply(b.batch(b.upload([
                // Its own door's people and, among the tickets in play, one of door A's.
                .dayOpened(businessDay: day, after: nil, inside: ["south": 2], tickets: [stale], at: Date()),
                .dayOpened(businessDay: day, after: nil, inside: ["north": 3], tickets: [], at: Date()),
            ])), from: b.device)
            XCTAssertEqual(reply.acknowledged, 2)
            XCTAssertEqual(reply.deadLettered, 1)
            XCTAssertEqual(try hub.sql("SELECT door, carried FROM occupancy ORDER BY door"), "south|2")
            XCTAssertEqual(try hub.sql("SELECT number, state FROM ticket"), "A-001|called")
        }
    }

    /// The day before `day`, as store 7 has it.
    var yesterday: BusinessDay {
        BusinessDay(containing: Date().addingTimeInterval(-86_400), startMinute: 0, timeZone: TimeZone(identifier: "UTC")!)
    }

    /// Door B's taking-in of door A's ticket `ticket` called, as B's totem records it: a ticket
    /// of B's own business day `day`, admitted at once, and its holder through B's turnstile.
    func takenIn(_ ticket: Ticket, on day: BusinessDay) -> [DomainEvent] {
        var arrived = Ticket(number: ticket.number, businessDay: day, issuedAt: ticket.issuedAt, state: .called, code: ticket.code)
        arrived.calledAt = Date()
        return [.ticketFromOtherDoor(arrived, at: Date()),
                .ticketAdmitted(ticket.number, businessDay: day, at: Date(), steady: nil),
                .passage(direction: .entry, door: "south", businessDay: day, at: Date(), ticket: ticket.number, steady: nil)]
    }

    /// A ticket still waiting when its business day ended is carried into the next, where its
    /// door calls it: the hub keeps one row of it, under the new day, with the day it was
    /// issued, as the totem does. Another door takes it in on the new day, admits it and lets
    /// its holder in, in one batch. The hub once kept a second row, the old day's, "waiting"
    /// for good.
    func test_aTicketCarriedIntoTheNextDayIsOneRowThatTheNewDaysEventsChangeAtEitherDoor() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let b = try await hub.enrol("B", door: "south")
            let ingest = Ingest(database: hub.database)
            let (before, today) = (yesterday, day)
            let ticket = a.ticket(6, day: before)
            _ = try await ingest.apply(a.batch(a.upload([.ticketIssued(ticket), .ticketPrinted(ticket.number, businessDay: before, job: 1)])),
                                       from: a.device)
            var carried = ticket
            carried.state = .waiting
            var reply = try await ingest.apply(a.batch(a.upload([
                .dayOpened(businessDay: today, after: before, inside: [:], tickets: [carried], at: Date()),
                .ticketCalled(ticket.number, businessDay: today, at: Date(), reason: "next", steady: nil),
            ])), from: a.device)
            XCTAssertEqual(reply.deadLettered, 0)
            XCTAssertEqual(try hub.sql("SELECT business_day, issued_day, number, state FROM ticket"), "\(today.date)|\(before.date)|A-006|called")
            reply = try await ingest.apply(b.batch(b.upload(takenIn(ticket, on: today))), from: b.device)
            XCTAssertEqual(try hub.sql("SELECT string_agg(reason, '; ') FROM dead_letter"), "", "no dead letter")
            XCTAssertEqual(reply.deadLettered, 0)
            XCTAssertEqual(try hub.sql("SELECT business_day, issued_day, number, state, admitted_by FROM ticket"),
                           "\(today.date)|\(before.date)|A-006|entered|\(b.device.deviceID)")
        }
    }

    /// The same, with door B's batch at the hub before door A's: B names the new day, and the
    /// ticket is still under the old one (A's day.opened has not come yet); it is found there,
    /// taken in, admitted, and the hub hears of its holder going in. When A's batch comes, the
    /// ticket moves to the new day with all of that. The same ticket carried again the next
    /// day is still one row.
    func test_anotherDoorsBatchBeforeTheCarryFindsTheTicketUnderTheDayBefore() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let b = try await hub.enrol("B", door: "south")
            let ingest = Ingest(database: hub.database)
            let (before, today) = (yesterday, day)
            let ticket = a.ticket(6, day: before)
            _ = try await ingest.apply(a.batch(a.upload([
                .ticketIssued(ticket), .ticketPrinted(ticket.number, businessDay: before, job: 1),
                .ticketCalled(ticket.number, businessDay: before, at: Date(), reason: "next", steady: nil),
            ])), from: a.device)
            var reply = try await ingest.apply(b.batch(b.upload(takenIn(ticket, on: today))), from: b.device)
            XCTAssertEqual(try hub.sql("SELECT string_agg(reason, '; ') FROM dead_letter"), "", "no dead letter")
            XCTAssertEqual(reply.deadLettered, 0)
            XCTAssertEqual(try hub.sql("SELECT business_day, number, state, admitted_by FROM ticket"),
                           "\(before.date)|A-006|entered|\(b.device.deviceID)")
            // A's day opens with the ticket still called there (A has not heard yet).
            var carried = ticket
            carried.state = .called
            reply = try await ingest.apply(a.batch(a.upload([
                .dayOpened(businessDay: today, after: before, inside: [:], tickets: [carried], at: Date()),
            ])), from: a.device)
            XCTAssertEqual(reply.deadLettered, 0)
            XCTAssertEqual(try hub.sql("SELECT business_day, issued_day, number, state, admitted_by, entered_at IS NOT NULL FROM ticket"),
                           "\(today.date)|\(before.date)|A-006|entered|\(b.device.deviceID)|t")
            // Carried once more, into the day after: still one row, with the day it was issued.
            let tomorrow = BusinessDay(containing: Date().addingTimeInterval(86_400), startMinute: 0, timeZone: TimeZone(identifier: "UTC")!)
            _ = try await ingest.apply(a.batch(a.upload([
                .dayOpened(businessDay: tomorrow, after: today, inside: [:], tickets: [carried], at: Date()),
            ])), from: a.device)
            XCTAssertEqual(try hub.sql("SELECT business_day, issued_day, number, state FROM ticket"),
                           "\(tomorrow.date)|\(before.date)|A-006|entered")
        }
    }

    /// A hub that kept a carried ticket twice (before schema 29) keeps it once when it is
    /// migrated: the last day's row, with what only the older one held (an admission at
    /// another door that reached only the old row) and the day it was issued; a ticket of the
    /// same number on another day, which was not carried, stays.
    func test_theMigrationKeepsOneRowOfEachTicketCarriedOver() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let (before, today) = (yesterday, day)
            try await hub.database.ensurePartitions(for: [before.date, today.date])
            let latest = HubMigrations.all.last!.version
            XCTAssertEqual(latest, 29, "this test undoes schema 29")
            _ = try hub.sql("""
                DELETE FROM schema_migration WHERE version = 29;
                DROP FUNCTION ticket_day;
                ALTER TABLE ticket DROP COLUMN issued_day;
                INSERT INTO ticket (store_id, business_day, number, device_id, lane, state, issued_at, admitted_by) VALUES
                    ('7', '\(before.date)', 'A-006', '\(a.device.deviceID)', 'regular', 'waiting', '2026-11-30 20:00Z', 'store-7-totem-B'),
                    ('7', '\(today.date)', 'A-006', '\(a.device.deviceID)', 'regular', 'called', '2026-11-30 20:00Z', NULL),
                    ('7', '\(today.date)', 'A-007', '\(a.device.deviceID)', 'regular', 'waiting', '2026-12-01 07:00Z', NULL),
                    ('7', '\(before.date)', 'A-007', '\(a.device.deviceID)', 'regular', 'entered', '2026-11-30 07:00Z', NULL),
                    ('7', '\(before.date)', 'A-008', '\(a.device.deviceID)', 'regular', 'entered', '2026-11-30 21:00Z', 'store-7-totem-B'),
                    ('7', '\(today.date)', 'A-008', '\(a.device.deviceID)', 'regular', 'called', '2026-11-30 21:00Z', NULL)
                """)
            let applied = try await hub.database.migrate()
            XCTAssertEqual(applied.count, 1, "\(applied)")
            XCTAssertEqual(try hub.sql("""
                SELECT business_day || ' ' || number || ' ' || state || ' ' || coalesce(issued_day::text, '-') || ' ' || coalesce(admitted_by, '-')
                FROM ticket ORDER BY number, business_day
                """), "\(today.date) A-006 called \(before.date) store-7-totem-B\n\(before.date) A-007 entered - -\n\(today.date) A-007 waiting - -\n"
                   + "\(today.date) A-008 entered \(before.date) store-7-totem-B", "an admission at another door kept over the copy's state")
        }
    }

    func test_aTicketWhoseAdmissionLapsedAtItsDoorIsTakenInAtAnotherAndAPassageAlwaysCounts() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let b = try await hub.enrol("B", door: "south")
            let ingest = Ingest(database: hub.database)
            let lapsed = a.ticket(1, day: day), waiting = a.ticket(2, day: day), late = a.ticket(3, day: day)
            _ = try await ingest.apply(a.batch(a.upload(called(lapsed, job: 1) + [
                // Admitted at its own door, but the turnstile did not turn.
                .ticketAdmitted(lapsed.number, businessDay: day, at: Date(), steady: nil),
                .admissionLapsed(lapsed.number, businessDay: day, at: Date()),
            ] + printed(waiting, job: 2) + called(late, job: 3))), from: a.device)
            var arrived = lapsed
            arrived.state = .called
            var other = late
            other.state = .called
            let reply = try await ingest.apply(b.batch(b.upload([
                .ticketFromOtherDoor(arrived, at: Date()),
                .ticketAdmitted(lapsed.number, businessDay: day, at: Date(), steady: nil),
                passage(.entry, door: "south", ticket: lapsed.number),
                // A person went through naming a ticket this door never took in: they count, the ticket stays.
                passage(.entry, door: "south", ticket: waiting.number),
                // Taken in, then its window ran out at this door.
                .ticketFromOtherDoor(other, at: Date()),
                .ticketNoShow(late.number, businessDay: day, at: Date()),
            ])), from: b.device)
            XCTAssertEqual(reply.acknowledged, 6)
            let reasons = try hub.sql("SELECT reason FROM dead_letter")
            XCTAssertEqual(reply.deadLettered, 0, reasons)
            XCTAssertEqual(try hub.sql("SELECT number, state FROM ticket ORDER BY number"), "A-001|entered\nA-002|waiting\nA-003|no-show")
            XCTAssertEqual(try hub.sql("SELECT door, entries FROM occupancy ORDER BY door"), "south|2")
        }
    }

    /// Where two doors' news cross, CLupCore's rules hold at the hub (`TicketState.changeable`):
    /// the issuing door's no-show and void, arriving after the holder went in at another door,
    /// leave the ticket entered; the same void of a ticket still waiting voids it.
    func test_aNoShowOrAVoidArrivingAfterTheHolderWentInElsewhereLeavesTheTicketIn() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let b = try await hub.enrol("B", door: "south")
            let ingest = Ingest(database: hub.database)
            let walked = a.ticket(1, day: day), waiting = a.ticket(2, day: day)
            _ = try await ingest.apply(a.batch(a.upload(called(walked, job: 1) + printed(waiting, job: 2))), from: a.device)
            var arrived = walked
            arrived.state = .called
            _ = try await ingest.apply(b.batch(b.upload([
                .ticketFromOtherDoor(arrived, at: Date()),
                .ticketAdmitted(walked.number, businessDay: day, at: Date(), steady: nil),
                passage(.entry, door: "south", ticket: walked.number),
            ])), from: b.device)
            // Door A, offline meanwhile, saw its window end and a technician void it; and voids its waiting one.
            let reply = try await ingest.apply(a.batch(a.upload([
                .ticketNoShow(walked.number, businessDay: day, at: Date()),
                .ticketVoided(walked.number, businessDay: day, at: Date(), by: "tess", reason: "did not come"),
                .ticketVoided(waiting.number, businessDay: day, at: Date(), by: "tess", reason: "printed twice"),
            ])), from: a.device)
            let reasons = try hub.sql("SELECT reason FROM dead_letter")
            XCTAssertEqual(reply.deadLettered, 0, reasons)
            XCTAssertEqual(try hub.sql("SELECT number, state FROM ticket ORDER BY number"), "A-001|entered\nA-002|voided")
        }
    }

    func test_aDoorIssuesABookingOnlyIfTheHubBookedItForThatDoor() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let ingest = Ingest(database: hub.database)
            let forged = Ticket(number: TicketNumber(totem: TicketPayload.hubLetter, lane: .booking, sequence: 7), businessDay: day,
                                issuedAt: Date(), state: .printing, code: "FORGED")
            let reply = try await ingest.apply(a.batch(a.upload([.ticketIssued(forged)])), from: a.device)
            XCTAssertEqual(reply.deadLettered, 1)
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM ticket"), "0")
        }
    }
}
