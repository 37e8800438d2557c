import HTTPTypes
@testable import CLupHub
import CLupCore
import CLupProtocol
import Foundation
import XCTest

/// Batches that meet each other, and a database that does not answer.
final class IngestConcurrencyTests: XCTestCase {
    let day = BusinessDay.today

    func passage(door: String) -> DomainEvent {
        .passage(direction: .entry, door: door, businessDay: day, at: Date(), ticket: nil, steady: nil)
    }

    /// Sessions of the test's database waiting for a lock.
    func waiting(_ hub: HubFixture) throws -> Int {
        Int(try hub.sql("SELECT count(*) FROM pg_stat_activity WHERE datname = '\(hub.name)' AND wait_event_type = 'Lock'")) ?? 0
    }

    func test_twoDoorsOfAStoreUploadingAtOnceAreBothAnswered() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let b = try await hub.enrol("B", door: "south")
            let ingest = Ingest(database: hub.database)
            // The two batches meet behind a session holding the store's row (a settings change,
            // a booking), so that each has gone as far as it can when the other goes on.
            let holder = try LockHolder(hub.postgres, database: hub.name,
                                        lockingStatement: "SELECT 1 FROM store WHERE store_id = '7' FOR UPDATE")
            let batches = (a.batch(a.upload([passage(door: "north")]), held: 1), b.batch(b.upload([passage(door: "south")]), held: 1))
            async let first = ingest.apply(batches.0, from: a.device)
            async let second = ingest.apply(batches.1, from: b.device)
            try waitUntil("both batches wait") { try waiting(hub) >= 2 }
            holder.release()
            let (one, two) = try await (first, second)
            XCTAssertEqual(one.acknowledged, 1)
            XCTAssertEqual(two.acknowledged, 1)
            XCTAssertEqual(try hub.sql("SELECT door, entries FROM occupancy ORDER BY door"), "north|1\nsouth|1")
        }
    }

    func test_aBatchThatPostgresHoldsUpIsAnswered503BeforeItLetsGo() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let ingest = Ingest(database: hub.database)
            let holder = try LockHolder(hub.postgres, database: hub.name,
                                        lockingStatement: "SELECT 1 FROM device_cursor FOR UPDATE")
            // Let go after a minute whatever happens, so that a hub that waits fails the test rather than hangs it.
            let failsafe = Task { try await Task.sleep(for: .seconds(60)); holder.release() }
            var answer: (any Error)?
            do {
                _ = try await ingest.apply(a.batch(a.upload([passage(door: "north")])), from: a.device)
            } catch {
                answer = error
            }
            let answeredWhileHeld = holderHolds(hub)
            failsafe.cancel()
            holder.release()
            XCTAssertTrue(answeredWhileHeld, "the hub answered only once PostgreSQL let the batch go")
            let hubError = try XCTUnwrap(answer as? HubError, "\(String(describing: answer))")
            XCTAssertEqual(hubError.status.code, 503)
            XCTAssertEqual(hubError.coded.code, ErrorCode.hubDatabaseUnavailable.rawValue)
        }
    }

    func holderHolds(_ hub: HubFixture) -> Bool {
        (try? hub.sql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'lock-holder' AND state = 'idle in transaction'")) == "1"
    }
}
