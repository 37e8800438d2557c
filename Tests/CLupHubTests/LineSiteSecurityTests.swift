@testable import CLupHub
import CLupCore
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import XCTest

/// The website as an attacker tries it (issue 40): a cookie set to someone else's
/// reference, a bot joining from one address with made-up cookies, a form posted from
/// another site or another port of the same host.
final class LineSiteSecurityTests: XCTestCase {
    /// A page of this hub posts with this origin (HummingbirdTesting's requests carry `localhost` as their Host).
    static let ownOrigin = "https://localhost"

    func app(_ hub: HubFixture) -> some ApplicationProtocol {
        Application(router: HubServer(database: hub.database, settings: HubSettings(), logger: HubFixture.logger).router())
    }

    func heardDoor(_ hub: HubFixture) async throws -> TestTotem {
        let totem = try await hub.enrol("A", door: "north")
        _ = try await Ingest(database: hub.database).apply(totem.batch([]), from: totem.device)
        return totem
    }

    /// The `clup_line` token a response sets, if any.
    static func token(_ response: TestResponse) -> String? {
        guard let cookie = response.headers[.setCookie], cookie.hasPrefix("clup_line=") else { return nil }
        return String(cookie.dropFirst("clup_line=".count).prefix { $0 != ";" })
    }

    static func join(_ client: some TestClientProtocol, headers: HTTPFields = [.origin: ownOrigin]) async throws -> TestResponse {
        try await client.execute(uri: "/line/7/join?lang=en", method: .post, headers: headers)
    }

    func test_aPlaceIsShownOnlyToTheBrowserThatTookItNeverToWhoeverPresentsItsReference() async throws {
        try await withHub { hub in
            _ = try await heardDoor(hub)
            // An app customer's place, and a website visitor's.
            _ = try await RemoteLine(database: hub.database).join(store: "7", .init(customerRef: "phone-0001"))
            try await app(hub).test(.router) { client in
                let joined = try await Self.join(client)
                XCTAssertEqual(joined.status, .seeOther)
                XCTAssertEqual(joined.headers[.location], "/line/7/AR-002?lang=en")
                let token = try XCTUnwrap(Self.token(joined))
                let cookie = try XCTUnwrap(joined.headers[.setCookie])
                XCTAssertTrue(cookie.contains("Path=/line/7; Secure; HttpOnly; SameSite=Strict"), cookie)
                // 256 bits from the CSPRNG, kept at the hub only as its digest.
                XCTAssertEqual(token.count, 43)
                let stored = try hub.sql("SELECT customer_ref FROM remote_ticket WHERE number = 'AR-002'")
                XCTAssertEqual(stored, "web:" + SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined())
                XCTAssertEqual(try hub.sql("SELECT count(*) FROM remote_ticket WHERE customer_ref LIKE '%\(token)%'"), "0")

                // Its holder sees it, code and all.
                let own = try await client.execute(uri: "/line/7/AR-002", method: .get, headers: [.cookie: "clup_line=\(token)"])
                XCTAssertEqual(own.status, .ok)
                XCTAssertTrue(String(buffer: own.body).contains("<svg"))

                // Whatever else a cookie holds gets the answer of a place that does not exist.
                let unknown = try await client.execute(uri: "/line/7/AR-009", method: .get, headers: [.cookie: "clup_line=\(token)"])
                XCTAssertEqual(unknown.status, .notFound)
                for cookie in ["phone-0001", stored, String(stored.dropFirst(4)), "web-made-up-reference", String(repeating: "A", count: 43)] {
                    for number in ["AR-001", "AR-002"] {
                        let tried = try await client.execute(uri: "/line/7/\(number)", method: .get, headers: [.cookie: "clup_line=\(cookie)"])
                        XCTAssertEqual(tried.status, .notFound, "\(number) with the cookie \(cookie)")
                        XCTAssertEqual(String(buffer: tried.body), String(buffer: unknown.body), "\(number) with the cookie \(cookie)")
                        let status = try await client.execute(uri: "/line/7/\(number)/status", method: .get,
                                                              headers: [.cookie: "clup_line=\(cookie)"])
                        XCTAssertEqual(status.status, .notFound)
                        let leave = try await client.execute(uri: "/line/7/\(number)/leave", method: .post,
                                                             headers: [.cookie: "clup_line=\(cookie)", .origin: Self.ownOrigin])
                        XCTAssertEqual(leave.status, .notFound)
                    }
                }
                XCTAssertEqual(try hub.sql("SELECT count(*) FROM remote_ticket WHERE left_at IS NOT NULL"), "0")
                // The app cannot reach a website's place with its digest either: that is no app reference.
                let asApp = await Self.refusal { try await RemoteLine(database: hub.database).place(store: "7", number: "AR-002", reference: stored) }
                XCTAssertEqual(asApp?.status, .badRequest)
            }
        }
    }

    func test_aBrowserWithALivePlaceIsSentBackToItAndAMadeUpCookieIsNeverAdopted() async throws {
        try await withHub { hub in
            _ = try await heardDoor(hub)
            try await app(hub).test(.router) { client in
                // A cookie the browser made up: the join ignores it and gives a token of its own.
                let madeUp = String(repeating: "x", count: 43)
                let joined = try await Self.join(client, headers: [.origin: Self.ownOrigin, .cookie: "clup_line=\(madeUp)"])
                let token = try XCTUnwrap(Self.token(joined))
                XCTAssertNotEqual(token, madeUp)
                // Joining again with the token: back to the same place, no second one.
                let again = try await Self.join(client, headers: [.origin: Self.ownOrigin, .cookie: "clup_line=\(token)"])
                XCTAssertEqual(again.status, .seeOther)
                XCTAssertEqual(again.headers[.location], joined.headers[.location])
                XCTAssertNil(again.headers[.setCookie])
                XCTAssertEqual(try hub.sql("SELECT count(*) FROM remote_ticket"), "1")
            }
        }
    }

    func test_aFormFromAnotherSiteOrAnotherPortOfThisHostChangesNothing() async throws {
        try await withHub { hub in
            _ = try await heardDoor(hub)
            try await app(hub).test(.router) { client in
                let refusals: [(String, HTTPFields)] = [
                    ("another port of the same host", [.origin: "https://localhost:9443"]),
                    ("another site", [.origin: "https://evil.example"]),
                    ("an opaque origin", [.origin: "null"]),
                    ("no origin at all", [:]),
                    ("same site, not same origin", [.origin: Self.ownOrigin, HTTPField.Name("Sec-Fetch-Site")!: "same-site"]),
                    ("from another site, whatever Origin says", [.origin: Self.ownOrigin, HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]),
                ]
                for (what, headers) in refusals {
                    let response = try await Self.join(client, headers: headers)
                    XCTAssertEqual(response.status, .forbidden, what)
                    XCTAssertTrue(String(buffer: response.body).contains("This form was sent from another site"), what)
                    XCTAssertNil(response.headers[.setCookie], what)
                }
                XCTAssertEqual(try hub.sql("SELECT count(*) FROM remote_ticket"), "0")
                // The panel's login too, refused before any password is looked at.
                let login = try await client.execute(uri: "/panel/login", method: .post,
                                                     headers: [.origin: "https://localhost:9443", .contentType: "application/x-www-form-urlencoded"],
                                                     body: ByteBuffer(string: "name=alice&password=whatever"))
                XCTAssertEqual(login.status, .forbidden)
                XCTAssertEqual(try hub.sql("SELECT count(*) FROM login_throttle"), "0")
                // Its own pages' forms go through.
                let joined = try await Self.join(client, headers: [.origin: Self.ownOrigin, HTTPField.Name("Sec-Fetch-Site")!: "same-origin"])
                XCTAssertEqual(joined.status, .seeOther)
            }
        }
    }

    /// 25 joins at once from one address, each with a cookie of its own making, then a
    /// customer from another network: the one address takes what one network may take in a
    /// minute, and the other still gets a place (issue 40: 25 such posts took all 20).
    func test_twentyFiveParallelJoinsFromOneAddressTakeAtMostItsBoundAndAnotherAddressStillGetsAPlace() async throws {
        try await withHub { hub in
            _ = try await heardDoor(hub)
            let line = RemoteLine(database: hub.database)
            let bot = try XCTUnwrap(ClientAddress("198.51.100.7"))
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<25 {
                    group.addTask {
                        do {
                            return try await line.join(store: "7", door: nil, for: .website(token: CustomerReference.newWebsiteToken()), from: bot).number
                        } catch let error as HubError {
                            return error.coded.code
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let taken = outcomes.filter { $0.hasPrefix("AR-") }
            XCTAssertEqual(taken.count, RemoteLine.joinsPerNetworkPerMinute, "\(outcomes)")
            XCTAssertEqual(outcomes.filter { $0 == ErrorCode.joinLimit.rawValue }.count, 25 - taken.count)
            // Another network, an IPv6 phone's.
            let other = try XCTUnwrap(ClientAddress("2001:db8:aa:bb::1"))
            let place = try await line.join(store: "7", door: nil, for: .website(token: CustomerReference.newWebsiteToken()), from: other)
            XCTAssertEqual(place.state, "waiting")
            XCTAssertEqual(try hub.sql("SELECT count(DISTINCT client_net) FROM remote_ticket"), "2")
            print("report: 25 parallel joins from one address took \(taken.count) places; another address then got \(place.number)")
        }
    }

    /// Over several minutes one network holds a quarter of the store's places from phones at
    /// most; an IPv6 /64 is one network, whatever its last 64 bits.
    func test_oneNetworkNeverHoldsMoreThanAQuarterOfTheStoresPlacesFromPhones() async throws {
        try await withHub { hub in
            _ = try await heardDoor(hub)
            let line = RemoteLine(database: hub.database)
            let most = max(RemoteLine.minimumRemoteWaiting, 60)
            let share = RemoteLine.networkShare(of: most)
            XCTAssertEqual(share, 15)
            var taken = 0
            var refusal: HubError?
            let start = Date().addingTimeInterval(-5 * 61)
            // Five a minute, minute after minute, each from another address of the /64.
            for minute in 0..<5 {
                for index in 0..<RemoteLine.joinsPerNetworkPerMinute {
                    let address = try XCTUnwrap(ClientAddress("2001:db8:1:2:\(String(minute * 16 + index, radix: 16))::9"))
                    do {
                        _ = try await line.join(store: "7", door: nil, for: .website(token: CustomerReference.newWebsiteToken()), from: address,
                                                now: start.addingTimeInterval(Double(minute) * 61))
                        taken += 1
                    } catch let error as HubError {
                        refusal = error
                    }
                }
            }
            XCTAssertEqual(taken, share)
            XCTAssertEqual(refusal?.status, .tooManyRequests)
            XCTAssertTrue(refusal?.coded.message.contains("2001:db8:1:2::/64 holds 15 of store 7's 60 places from phones") == true,
                          "\(String(describing: refusal))")
        }
    }

    static func refusal(_ body: () async throws -> some Any) async -> HubError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error as? HubError
        }
    }
}
