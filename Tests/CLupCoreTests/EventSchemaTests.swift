import CLupCore
import Foundation
import XCTest

/// The event schema is a contract: an event stored by any released clupd must still be read,
/// by clupd and by the hub, as what it meant. `Golden/events/` keeps one payload per event
/// type and version (`ticket.called.2.json`: the second shape `ticket.called` had); each is
/// decoded here and compared with the event it stands for, and the newest of each type must
/// be exactly what this code writes. A golden file is never edited: a change to an event is
/// a new version file beside the old ones (DESIGN.md, "The event schema").
///
/// To record the payload of a new version, write its event below and run the tests once with
/// `CLUP_RECORD_GOLDEN=1`: a missing file is written (an existing one never is) and the test
/// fails, asking for the new file to be read and committed.
final class EventSchemaTests: XCTestCase {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/events")

    static let issuedAt = Date(timeIntervalSince1970: 1_795_514_400)  // 2026-11-24 10:00 UTC
    static let later = issuedAt.addingTimeInterval(754.25)
    static let day = BusinessDay("2026-11-24")
    static let number = TicketNumber(totem: "A", lane: .regular, sequence: 17)
    static let steady = SteadyTime(boot: "5c1d4b7e-2f0a-4a53-9d64-0b6f1c2e3a44", seconds: 81_234.5)
    static let code = "CL1:A:R017:20261124:MEUCIQ"

    /// A ticket as the first releases stored it: the fields every ticket has.
    static let plainTicket = Ticket(number: number, businessDay: day, issuedAt: issuedAt, state: .waiting, code: code)

    /// A ticket with every field this release may store.
    static var fullTicket: Ticket {
        var ticket = Ticket(number: TicketNumber(totem: "A", lane: .priority, sequence: 3), businessDay: day, issuedAt: issuedAt,
                            issuedSteady: steady, state: .entered, code: code, slotStart: later, priorityReason: .pregnant)
        ticket.printJob = 41
        ticket.calledAt = later
        ticket.calledSteady = steady
        ticket.callReason = "priority lane: a place is free"
        ticket.admittedAt = later.addingTimeInterval(30)
        ticket.admittedSteady = steady
        ticket.enteredAt = later.addingTimeInterval(34)
        ticket.leftAt = later.addingTimeInterval(1_800)
        ticket.failureReason = nil
        ticket.promisedWait = WaitEstimate(low: 5, high: 10)
        ticket.language = "it"
        ticket.issuedBy = "104"
        return ticket
    }

    /// The same with the instant it took its place in the line (issue 40), to the millisecond.
    static var fullTicketTaken: Ticket {
        var ticket = fullTicket
        ticket.takenAt = issuedAt.addingTimeInterval(0.347)
        return ticket
    }

    static var settings: StoreSettingsDocument {
        var document = StoreSettingsDocument(version: 12, capacity: 40, priorityShare: 0.1, bookingShare: 0.2,
                                             windows: .init(presentationMinutes: 5, bookingEarlyMinutes: 10, bookingLateMinutes: 15,
                                                            slotMinutes: 30),
                                             doorLimit: 25, totemKeys: ["A": "bW9jay1rZXktb2YtMzItYnl0ZXMtLS0tLS0tLS0tLS0="],
                                             calledAtOtherDoors: ["B-R005"], usedAtOtherDoors: ["A-R002"], cancelledBookings: ["Z-B010"])
        document.bookings = [.init(number: "Z-B011", slotStart: 817_207_200)]
        document.totemBookingPlaces = 2
        document.hours = .init(opensMinute: 480, closesMinute: 1_260)
        document.employees = [.init(staffNumber: "104", kdf: "scrypt-16384-8-1", salt: "c2FsdA==", hash: "aGFzaA==")]
        return document
    }

    /// Every golden payload: its file, and the event it stands for.
    static var goldens: [(file: String, event: DomainEvent)] {
        [
            ("day.opened.1", .dayOpened(businessDay: day, after: BusinessDay("2026-11-23"), inside: ["A": 3], tickets: [plainTicket],
                                        at: issuedAt)),
            ("ticket.issued.1", .ticketIssued(plainTicket)),
            ("ticket.issued.2", .ticketIssued(fullTicket)),
            ("ticket.issued.3", .ticketIssued(fullTicketTaken)),
            ("ticket.submitted.1", .ticketSubmitted(number, businessDay: day, job: 41)),
            ("ticket.printed.1", .ticketPrinted(number, businessDay: day, job: 41)),
            ("ticket.print-failed.1", .ticketPrintFailed(number, businessDay: day, reason: "media-empty-error")),
            ("ticket.called.1", .ticketCalled(number, businessDay: day, at: later, reason: "a place is free")),
            ("ticket.called.2", .ticketCalled(number, businessDay: day, at: later, reason: "a place is free", steady: steady)),
            ("ticket.no-show.1", .ticketNoShow(number, businessDay: day, at: later)),
            ("ticket.admitted.1", .ticketAdmitted(number, businessDay: day, at: later)),
            ("ticket.admitted.2", .ticketAdmitted(number, businessDay: day, at: later, steady: steady)),
            ("ticket.admission-lapsed.1", .admissionLapsed(number, businessDay: day, at: later)),
            ("ticket.reprinted.1", .ticketReprinted(number, businessDay: day, by: "tess")),
            ("ticket.skipped.1", .ticketSkipped(number, businessDay: day, at: later, by: "tess")),
            ("ticket.voided.1", .ticketVoided(number, businessDay: day, at: later, by: "tess", reason: "printed twice")),
            ("occupancy.passage.1", .passage(direction: .entry, door: "A", businessDay: day, at: later, ticket: number)),
            ("occupancy.passage.2", .passage(direction: .exit, door: "A", businessDay: day, at: later, ticket: nil, steady: steady)),
            ("occupancy.corrected.1", .occupancyCorrected(door: "A", businessDay: day, delta: -2, by: "tess", reason: "counted 12",
                                                          at: later)),
            ("store.settings-applied.1", .storeSettingsApplied(StoreSettingsDocument(version: 3, capacity: 40, priorityShare: 0.1,
                                                                                     bookingShare: 0.2),
                                                               businessDay: day, at: later)),
            ("store.settings-applied.2", .storeSettingsApplied(settings, businessDay: day, at: later)),
            ("store.door-limit-applied.1", .doorLimitApplied(DoorLimit(limit: 6, version: 42), businessDay: day, at: later)),
            ("ticket.from-other-door.1", .ticketFromOtherDoor(plainTicket, at: later)),
            ("ticket.left.1", .ticketLeft(number, businessDay: day, at: later)),
            ("staff.audit.1", .audited(AuditEntry(role: .employee, who: "104", action: .priorityTicket, result: "ticket A-P003", from: nil),
                                       businessDay: day, at: later)),
            ("staff.audit.2", .audited(AuditEntry(role: .technician, who: "tess", action: .command, result: "ok", uid: 1000,
                                                  what: "void A-R017 --reason \"printed twice\"", from: nil), businessDay: day, at: later)),
            // 0.12: where it came from.
            ("staff.audit.3", .audited(AuditEntry(role: .technician, who: "tess", action: .command, result: "ok", uid: 1000,
                                                  what: "void A-R017 --reason \"printed twice\"",
                                                  from: "pid 4711, uid 1000 (tess); says clupctl on pts/1, login tess (uid 1000)"), businessDay: day, at: later)),
        ]
    }

    /// The newest golden version of each event type. A switch with no default: a new case of
    /// `DomainEvent` does not compile here until it has a golden payload.
    static func newestVersion(of event: DomainEvent) -> Int {
        switch event {
        case .dayOpened, .ticketSubmitted, .ticketPrinted, .ticketPrintFailed, .ticketNoShow, .admissionLapsed, .ticketReprinted,
             .ticketSkipped, .ticketVoided, .occupancyCorrected, .ticketFromOtherDoor, .ticketLeft, .doorLimitApplied:
            1
        case .ticketCalled, .ticketAdmitted, .passage, .storeSettingsApplied:
            2
        case .ticketIssued, .audited:
            3
        }
    }

    func golden(_ name: String, writing event: DomainEvent) throws -> String {
        let url = Self.folder.appendingPathComponent(name + ".json")
        if !FileManager.default.fileExists(atPath: url.path), ProcessInfo.processInfo.environment["CLUP_RECORD_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
            try (try EventCoding.payload(event) + "\n").write(to: url, atomically: true, encoding: .utf8)
            XCTFail("recorded \(url.path): read it, then commit it")
        }
        let text = try String(contentsOf: url, encoding: .utf8)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    func test_everyGoldenPayloadStillDecodesToTheEventItMeant() throws {
        for (name, event) in Self.goldens {
            let payload = try golden(name, writing: event)
            XCTAssertEqual(try EventCoding.event(from: payload), event, name)
        }
    }

    func test_theNewestVersionOfEachTypeIsExactlyWhatThisCodeWrites() throws {
        for (name, event) in Self.goldens where name == "\(event.type).\(Self.newestVersion(of: event))" {
            XCTAssertEqual(try EventCoding.payload(event), try golden(name, writing: event), name)
        }
    }

    func test_everyEventTypeHasItsNewestGoldenAndNoFileIsLeftUnchecked() throws {
        let names = Set(Self.goldens.map(\.file))
        XCTAssertEqual(names.count, Self.goldens.count, "a golden file named twice")
        for (_, event) in Self.goldens {
            XCTAssertTrue(names.contains("\(event.type).\(Self.newestVersion(of: event))"), "\(event.type) has no newest golden")
        }
        // The 19 cases of DomainEvent (newestVersion(of:) names each); a case with no golden fails here.
        XCTAssertEqual(Set(Self.goldens.map(\.event.type)).count, 19)
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".json") }
        XCTAssertEqual(Set(files.map { String($0.dropLast(5)) }), names, "a golden file no test reads, or one missing")
    }

    /// Dates are seconds since 2001 as numbers; a reader takes an ISO 8601 string as well,
    /// so that a later writer can move to strings once every hub reads them.
    func test_datesAreNumbersSince2001AndAnISO8601StringIsReadToo() throws {
        let payload = try EventCoding.payload(.ticketLeft(Self.number, businessDay: Self.day, at: Self.later))
        XCTAssertTrue(payload.contains("\"at\":\(Self.later.timeIntervalSinceReferenceDate)"), payload)
        let iso = #"{"ticketLeft":{"_0":"A-017","at":"2026-11-24T10:12:34.250Z","businessDay":{"date":"2026-11-24"}}}"#
        XCTAssertEqual(try EventCoding.event(from: iso), .ticketLeft(Self.number, businessDay: Self.day, at: Self.later))
        let plain = #"{"ticketLeft":{"_0":"A-017","at":"2026-11-24T10:12:34Z","businessDay":{"date":"2026-11-24"}}}"#
        XCTAssertEqual(try EventCoding.event(from: plain), .ticketLeft(Self.number, businessDay: Self.day, at: Self.later.addingTimeInterval(-0.25)))
    }

    func test_anAbsurdDateIsRefusedNotTrappedOn() {
        for date in ["1e300", "-1e300", #""tomorrow""#, #""2026-13-45T99:00:00Z""#, "\"" + String(repeating: "9", count: 100) + "\""] {
            let payload = #"{"ticketLeft":{"_0":"A-017","at":"# + date + #","businessDay":{"date":"2026-11-24"}}}"#
            XCTAssertThrowsError(try EventCoding.event(from: payload), date)
        }
    }
}
