@testable import CLupHub
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import XCTest

/// The panel's login as an attacker tries it: many guesses at once, names that do not
/// exist, bytes PostgreSQL cannot store.
final class PanelLoginTests: XCTestCase {
    static let password = "right horse battery staple"

    /// Sends `passwords` for `name` to POST /panel/login all at once; returns the statuses.
    func burst(_ hub: HubFixture, name: String, passwords: [String]) async throws -> [Int] {
        let app = Application(router: HubServer(database: hub.database, settings: HubSettings(), logger: HubFixture.logger).router())
        return try await app.test(.router) { client in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for password in passwords {
                    group.addTask {
                        try await client.execute(uri: "/panel/login", method: .post,
                                                 headers: [.contentType: "application/x-www-form-urlencoded"],
                                                 body: ByteBuffer(string: "name=\(name)&password=\(password.replacingOccurrences(of: " ", with: "+"))"))
                            .status.code
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
    }

    func addManager(_ hub: HubFixture, _ name: String) async throws {
        try await PanelAccounts(database: hub.database).add(name: name, password: Self.password, role: .chainAdmin, store: nil)
    }

    /// The guesses the hub checked for `name`: each leaves one line in the audit.
    func checked(_ hub: HubFixture, _ name: String) throws -> Int {
        Int(try hub.sql("""
            SELECT count(*) FROM audit WHERE who = '\(name)'
                AND (action LIKE 'login refused%' OR action LIKE 'locked after%' OR action = 'logged in')
            """)) ?? -1
    }

    func test_fortyWrongPasswordsAtOnceAreCheckedFiveTimesAndLockTheName() async throws {
        try await withHub { hub in
            try await addManager(hub, "alice")
            let statuses = try await burst(hub, name: "alice", passwords: (1...40).map { "wrong password \($0)" })
            XCTAssertEqual(statuses.filter { $0 == 401 }.count, 4, "\(statuses)")
            XCTAssertEqual(statuses.filter { $0 == 429 }.count, 36, "\(statuses)")
            XCTAssertEqual(try checked(hub, "alice"), 5)
            XCTAssertEqual(try hub.sql("SELECT locked_until > now() FROM login_throttle WHERE name = 'alice'"), "t")
            // Locked: even the right password is not checked now.
            let after = try await burst(hub, name: "alice", passwords: [Self.password])
            XCTAssertEqual(after, [429])
            XCTAssertEqual(try checked(hub, "alice"), 5)
        }
    }

    func test_theRightPasswordInABurstOfWrongOnesIsOneOfAtMostFiveGuesses() async throws {
        try await withHub { hub in
            try await addManager(hub, "alice")
            let passwords = (1...39).map { "wrong password \($0)" } + [Self.password]
            let statuses = try await burst(hub, name: "alice", passwords: passwords.shuffled())
            XCTAssertLessThanOrEqual(try checked(hub, "alice"), 5)
            XCTAssertGreaterThanOrEqual(statuses.filter { $0 == 429 }.count, 35, "\(statuses)")
            if !statuses.contains(303) {
                XCTAssertEqual(try hub.sql("SELECT locked_until > now() FROM login_throttle WHERE name = 'alice'"), "t")
            }
        }
    }

    func test_anUnknownNameIsAnsweredAsAKnownOne() async throws {
        try await withHub { hub in
            try await addManager(hub, "alice")
            let known = try await burst(hub, name: "alice", passwords: (1...12).map { "wrong password \($0)" })
            let unknown = try await burst(hub, name: "nobody-here", passwords: (1...12).map { "wrong password \($0)" })
            XCTAssertEqual(known.sorted(), unknown.sorted())
            XCTAssertEqual(unknown.filter { $0 == 429 }.count, 8)
        }
    }

    func test_aNulByteInTheNameIsRefusedWithAPageAndNoDatabaseText() async throws {
        try await withHub { hub in
            let app = Application(router: HubServer(database: hub.database, settings: HubSettings(), logger: HubFixture.logger).router())
            try await app.test(.router) { client in
                for name in ["a%00b", "%0Aalice", String(repeating: "a", count: 300)] {
                    let response = try await client.execute(uri: "/panel/login", method: .post,
                                                            headers: [.contentType: "application/x-www-form-urlencoded"],
                                                            body: ByteBuffer(string: "name=\(name)&password=whatever+it+is"))
                    XCTAssertEqual(response.status, .badRequest, name)
                    XCTAssertEqual(response.headers[.contentType], "text/html; charset=utf-8", name)
                    let body = String(buffer: response.body)
                    XCTAssertTrue(body.contains("name is 2 to 32 small letters"), body)
                    XCTAssertFalse(body.contains("22021") || body.contains("UTF8") || body.contains("PostgreSQL"), body)
                }
            }
        }
    }
}
