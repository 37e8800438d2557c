@testable import CLupHub
import Foundation
import XCTest

/// The hub's ear for settings changes, through a PostgreSQL that restarts under it.
final class SettingsSignalsTests: XCTestCase {
    /// The backends of the test's database listening for settings changes.
    func listeners(_ hub: HubFixture) throws -> [String] {
        try hub.sql("SELECT pid FROM pg_stat_activity WHERE datname = '\(hub.name)' AND query LIKE 'LISTEN%'")
            .split(separator: "\n").map(String.init)
    }

    func test_aHubListensAgainOncePostgresCameBackFromACrash() async throws {
        try await withHub { hub in
            let signals = SettingsSignals()
            let listening = Task { await signals.listen(on: hub.database, logger: HubFixture.logger) }
            defer { listening.cancel() }
            try waitUntil("the hub listens") { try !listeners(hub).isEmpty }
            let before = try listeners(hub)
            try hub.postgres.restartImmediately()
            try waitUntil("the hub listens again", seconds: 60) {
                let now = (try? listeners(hub)) ?? []
                return !now.isEmpty && Set(now).isDisjoint(with: before)
            }
            // And what it hears wakes a long poll.
            let waiter = signals.waiter(for: "7")
            defer { waiter.done() }
            try hub.sql("SELECT pg_notify('clup_settings', '7')")
            let woken = await withTaskGroup(of: Bool.self) { group in
                group.addTask { for await _ in waiter.stream { return true }; return false }
                group.addTask { try? await Task.sleep(for: .seconds(60)); return false }  // a safety net, not a measure
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            XCTAssertTrue(woken, "a NOTIFY after the restart did not reach the long poll")
        }
    }
}
