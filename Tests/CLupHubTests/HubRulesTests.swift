@testable import CLupHub
import CLupCore
import CLupProtocol
import Crypto
import Foundation
import Logging
import XCTest

/// The hub's rules that need no database: what it refuses to apply, what a signature covers.
final class HubRulesTests: XCTestCase {
    let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18

    func upload(_ event: DomainEvent, seq: Int64 = 1) throws -> UploadedEvent {
        UploadedEvent(seq: seq, wallTime: now.timeIntervalSince1970, type: event.type, payload: try EventCoding.payload(event))
    }

    func reason(_ event: UploadedEvent) -> String? {
        if case let .deadLetter(reason) = Ingest.check(event, now: now) { return reason }
        return nil
    }

    func test_anEventOfToday_isApplied_andWhatCannotBeIsDeadLetteredWithItsReason() throws {
        let today = BusinessDay("2026-11-18")
        let passage = DomainEvent.passage(direction: .entry, door: "main", businessDay: today, at: now, ticket: nil)
        XCTAssertNil(reason(try upload(passage)))

        var garbage = try upload(passage)
        garbage.payload = "{\"not\":\"an event\"}"
        XCTAssertEqual(reason(garbage).map { $0.hasPrefix("not an event this hub knows") }, true)

        var mislabelled = try upload(passage)
        mislabelled.type = "ticket.issued"
        XCTAssertEqual(reason(mislabelled), "type \"ticket.issued\" but the payload is a occupancy.passage")

        let future = DomainEvent.passage(direction: .entry, door: "main", businessDay: BusinessDay("2099-01-01"), at: now, ticket: nil)
        XCTAssertEqual(reason(try upload(future)).map { $0.hasPrefix("business day 2099-01-01 is outside") }, true)

        let notADate = DomainEvent.passage(direction: .entry, door: "main", businessDay: BusinessDay("2026-13-45"), at: now, ticket: nil)
        XCTAssertEqual(reason(try upload(notADate)), "business day \"2026-13-45\" is not a date")

        let absurd = DomainEvent.occupancyCorrected(door: "main", businessDay: today, delta: Int.max, by: "x", reason: "y", at: now)
        XCTAssertEqual(reason(try upload(absurd)), "a correction of \(Int.max) people")

        var timeless = try upload(passage)
        timeless.wallTime = 1e300
        XCTAssertEqual(reason(timeless), "wall time 1e+300 is not a time the hub can store")
        timeless.wallTime = -1
        XCTAssertEqual(reason(timeless), "wall time -1.0 is not a time the hub can store")

        var huge = try upload(passage)
        huge.payload = String(repeating: " ", count: HubWire.maximumPayloadBytes + 1)
        XCTAssertEqual(reason(huge), "payload of \(HubWire.maximumPayloadBytes + 1) bytes; at most \(HubWire.maximumPayloadBytes)")
    }

    func test_theDaysAcceptedFollowTheDaysTheChainKeeps() throws {
        let fortyDaysAgo = DomainEvent.passage(direction: .entry, door: "main", businessDay: BusinessDay("2026-10-09"), at: now, ticket: nil)
        XCTAssertEqual(Ingest.check(try upload(fortyDaysAgo), now: now, keptDays: 400).isApplied, true)
        XCTAssertEqual(Ingest.check(try upload(fortyDaysAgo), now: now, keptDays: 41).isApplied, true)
        XCTAssertEqual(Ingest.check(try upload(fortyDaysAgo), now: now, keptDays: 40).isApplied, false)
        // However long the chain keeps events, a totem more than 400 days behind is refused.
        let yearsAgo = DomainEvent.passage(direction: .entry, door: "main", businessDay: BusinessDay("2024-11-18"), at: now, ticket: nil)
        XCTAssertEqual(Ingest.check(try upload(yearsAgo), now: now, keptDays: 3660).isApplied, false)
        XCTAssertEqual(Retention.firstKeptDay(keeping: 30, now: now), "2026-10-19")
    }

    func test_theMembersOfAReplicatedDatabaseAreHostsAndPorts() throws {
        XCTAssertEqual(HubDatabase.hostAndPort("10.0.0.7:5432").map { "\($0.0) \($0.1)" }, "10.0.0.7 5432")
        XCTAssertEqual(HubDatabase.hostAndPort("[fd00::7]:6432").map { "\($0.0) \($0.1)" }, "fd00::7 6432")
        XCTAssertEqual(HubDatabase.hostAndPort("db-2.chain.example:5433").map { "\($0.0) \($0.1)" }, "db-2.chain.example 5433")
        for bad in ["10.0.0.7", "10.0.0.7:", ":5432", "10.0.0.7:0", "10.0.0.7:70000", "10.0.0.7:54x", "a b:5432", "/run/pg:5432"] {
            XCTAssertNil(HubDatabase.hostAndPort(bad), bad)
        }
        var settings = DatabaseSettings()
        settings.members = ["10.0.0.7:5432", "no port"]
        XCTAssertThrowsError(try HubDatabase(settings: settings, logger: Logger(label: "test"))) { error in
            XCTAssertEqual((error as? HubError)?.coded.message, "[database] members: \"no port\" is not host:port")
        }
    }

    func test_aSignatureCoversTheMethodPathTimeNonceAndBody() throws {
        let key = Curve25519.Signing.PrivateKey()
        let body = Data("{\"events\":[]}".utf8)
        let signed = try RequestSignature.sign(method: "POST", path: "/v1/events", deviceID: "store-7-totem-A-1",
                                               timeMillis: 1_795_000_000_000, body: body, key: key)
        XCTAssertTrue(signed.verifies(method: "POST", path: "/v1/events", body: body, key: key.publicKey))
        XCTAssertFalse(signed.verifies(method: "POST", path: "/v1/events", body: Data("{\"events\":[1]}".utf8), key: key.publicKey))
        XCTAssertFalse(signed.verifies(method: "POST", path: "/v1/enrol", body: body, key: key.publicKey))
        XCTAssertFalse(signed.verifies(method: "POST", path: "/v1/events", body: body, key: Curve25519.Signing.PrivateKey().publicKey))
        var later = signed
        later.timeMillis += 1
        XCTAssertFalse(later.verifies(method: "POST", path: "/v1/events", body: body, key: key.publicKey))
        var otherNonce = signed
        otherNonce.nonce = String(repeating: "0", count: 32)
        XCTAssertFalse(otherNonce.verifies(method: "POST", path: "/v1/events", body: body, key: key.publicKey))
        var otherDevice = signed
        otherDevice.deviceID = "store-7-totem-B-1"
        XCTAssertFalse(otherDevice.verifies(method: "POST", path: "/v1/events", body: body, key: key.publicKey))
    }

    func test_daysAreCheckedDates() {
        XCTAssertEqual(CivilDay.next("2026-12-31"), "2027-01-01")
        XCTAssertEqual(CivilDay.next("2028-02-28"), "2028-02-29")
        XCTAssertNil(CivilDay.next("2026-02-30"))
        XCTAssertNil(CivilDay.next("2026-11-18'; DROP TABLE event; --"))
        XCTAssertNil(CivilDay.next("2026-13-01"))
        XCTAssertNil(CivilDay.next("2027-02-29"))
        XCTAssertNil(CivilDay.next("2026-1-011"))
        XCTAssertNil(CivilDay.next("٢٠٢٦-١١-١٨"))
        XCTAssertEqual(CivilDay.number("1970-01-01"), 0)
        XCTAssertEqual(CivilDay.number("2000-03-01"), 11_017)
        // Every day of four centuries round-trips, against Foundation's calendar.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for number in stride(from: -5_000, to: 146_097, by: 7) {
            let text = CivilDay.text(number)
            XCTAssertEqual(CivilDay.number(text), number, text)
            let date = Date(timeIntervalSince1970: Double(number) * 86_400)
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            XCTAssertEqual(text, String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!))
        }
    }

    func test_theMigrationsAreNumberedInOrderOnce() {
        XCTAssertEqual(HubMigrations.all.map(\.version), Array(1...HubMigrations.all.count))
    }
}

extension Ingest.Checked {
    var isApplied: Bool { if case .apply = self { true } else { false } }
}
