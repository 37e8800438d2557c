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
                                                 headers: [.contentType: "application/x-www-form-urlencoded", .origin: "https://localhost"],
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
                AND action = 'log in'
            """)) ?? -1
    }

    func test_fortyWrongPasswordsAtOnceAreCheckedFiveTimesAndLockTheName() async throws {
        try await withHub { hub in
            try await addManager(hub, "alice")
            let statuses = try await burst(hub, name: "alice", passwords: (1...40).map { "wrong password \($0)" })
            XCTAssertEqual(statuses.filter { $0 == 401 }.count, 4, "\(statuses)")
            XCTAssertEqual(statuses.filter { $0 == 429 }.count, 36, "\(statuses)")
            XCTAssertEqual(try checked(hub, "alice"), 5)
            // Each says how it ended (in any order: the five are checked at once).
            XCTAssertEqual(try hub.sql("""
                SELECT string_agg(result, ' | ' ORDER BY result) FROM audit WHERE who = 'alice' AND action = 'log in'
                """), "refused: locked after 5 wrong passwords | "
                    + Array(repeating: "refused: wrong password", count: 4).joined(separator: " | "))
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

    /// A name locked after five wrong passwords is told for how long, in whole minutes, in the
    /// language the browser asks for: a UTC clock time would be the hub's, not the manager's.
    func test_aLockedNameIsToldForHowManyMinutesInTheBrowsersLanguage() async throws {
        try await withHub { hub in
            try await addManager(hub, "alice")
            let statuses = try await burst(hub, name: "alice", passwords: (1...5).map { "wrong password \($0)" })
            XCTAssertEqual(statuses.sorted(), [401, 401, 401, 401, 429])
            let app = Application(router: HubServer(database: hub.database, settings: HubSettings(), logger: HubFixture.logger).router())
            try await app.test(.router) { client in
                for (accepted, lock) in [("en-GB", "locked for 15 minutes."), ("it-IT,it;q=0.9", "bloccato per 15 minuti."),
                                         ("de-DE", "für 15 Minuten gesperrt."), ("fr-FR,fr;q=0.9,en;q=0.8", "bloqué pendant 15 minutes."),
                                         ("es-ES", "bloqueado durante 15 minutos.")] {
                    let response = try await client.execute(uri: "/panel/login", method: .post,
                                                            headers: [.contentType: "application/x-www-form-urlencoded", .origin: "https://localhost", .acceptLanguage: accepted],
                                                            body: ByteBuffer(string: "name=alice&password=\(Self.password.replacingOccurrences(of: " ", with: "+"))"))
                    XCTAssertEqual(response.status, .tooManyRequests, accepted)
                    let body = String(buffer: response.body)
                    XCTAssertTrue(body.contains(lock), "\(accepted): \(body)")
                    XCTAssertFalse(body.contains("UTC"), body)
                }
            }
        }
    }

    func test_aFrenchBrowserGetsTheLoginPageInFrench() async throws {
        try await withHub { hub in
            let app = Application(router: HubServer(database: hub.database, settings: HubSettings(), logger: HubFixture.logger).router())
            try await app.test(.router) { client in
                let response = try await client.execute(uri: "/panel/login", method: .get, headers: [.acceptLanguage: "fr-FR,fr;q=0.9,en;q=0.8"])
                let body = String(buffer: response.body)
                XCTAssertTrue(body.contains("<html lang=\"fr\">"), body)
                XCTAssertTrue(body.contains(">Se connecter</button>"), body)
                XCTAssertTrue(body.contains(">Deutsch</a>") && body.contains(">Español</a>") && body.contains(">Italiano</a>"), body)
            }
        }
    }

    func test_aNulByteInTheNameIsRefusedWithAPageAndNoDatabaseText() async throws {
        try await withHub { hub in
            let app = Application(router: HubServer(database: hub.database, settings: HubSettings(), logger: HubFixture.logger).router())
            try await app.test(.router) { client in
                for name in ["a%00b", "%0Aalice", String(repeating: "a", count: 300)] {
                    let response = try await client.execute(uri: "/panel/login", method: .post,
                                                            headers: [.contentType: "application/x-www-form-urlencoded", .origin: "https://localhost"],
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
