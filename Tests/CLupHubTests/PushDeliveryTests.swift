import NIOFoundationCompat
import AsyncHTTPClient
@testable import CLupHub
import CLupCore
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import CLupProtocol
import XCTest

/// A website's visitor asks to be told when their turn comes: their browser's subscription
/// is kept for their place only, and the called notice goes to their push service by Web
/// Push, once (what the message says is checked by an independent implementation in
/// `Tests/integration/tools/push-service.py`).
final class PushDeliveryTests: XCTestCase {
    /// A push service on loopback: keeps what it was sent, answers as `script` says (then 201).
    actor PushServiceStandIn {
        struct Message: Sendable {
            let headers: HTTPFields
            let body: Data
        }

        private var script: [Int]
        private(set) var received: [Message] = []

        init(_ script: [Int] = []) { self.script = script }

        func receive(_ message: Message) -> Int {
            received.append(message)
            return script.isEmpty ? 201 : script.removeFirst()
        }

        func app() -> some ApplicationProtocol {
            let router = Router()
            router.post("/push/:id") { request, _ -> Response in
                var request = request
                let body = try await request.collectBody(upTo: 65536)
                return Response(status: HTTPResponse.Status(code: await self.receive(Message(headers: request.headers, body: Data(buffer: body)))))
            }
            return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        }
    }

    nonisolated(unsafe) static let browser = P256.KeyAgreement.PrivateKey()
    static let auth = WebPush.randomBytes(16)
    nonisolated(unsafe) static let vapid = P256.Signing.PrivateKey()

    static func subscription(_ endpoint: String) -> String {
        #"{"endpoint": "\#(endpoint)", "expirationTime": null, "keys": {"p256dh": "\#(WebPush.base64URL(Self.browser.publicKey.x963Representation))", "auth": "\#(WebPush.base64URL(Self.auth))"}}"#
    }

    /// A visitor of the website with a place: their token and the place's number.
    static func join(_ client: some TestClientProtocol) async throws -> (token: String, number: String) {
        let joined = try await client.execute(uri: "/line/7/join?lang=fr", method: .post, headers: [.origin: "https://localhost"])
        let cookie = try XCTUnwrap(joined.headers[.setCookie])
        let token = String(cookie.dropFirst("clup_line=".count).prefix { $0 != ";" })
        let number = String(try XCTUnwrap(joined.headers[.location]).split(separator: "/").last!.prefix { $0 != "?" })
        return (token, number)
    }

    func test_aVisitorWhoAskedIsToldByWebPushOnceAndOneWhoDidNotIsNot() async throws {
        let service = PushServiceStandIn()
        try await withHub { hub in
            let totem = try await hub.enrol("A", door: "north")
            _ = try await Ingest(database: hub.database).apply(totem.batch([]), from: totem.device)
            try await service.app().test(.live) { pushClient in
                // The live test server listens on "localhost", which may be ::1 first (as on a fresh Debian).
                let endpoint = "http://localhost:\(try XCTUnwrap(pushClient.port))/push/visitor-1"
                let push = PushService(key: Self.vapid, subject: "mailto:ops@chain.example", services: ["localhost"])
                let app = Application(router: HubServer(database: hub.database, settings: HubSettings(), push: push, logger: HubFixture.logger).router())
                let (asked, notAsked) = try await app.test(.router) { client in
                    let asked = try await Self.join(client)
                    let notAsked = try await Self.join(client)
                    // The page offers it, with the hub's key.
                    let page = String(buffer: try await client.execute(uri: "/line/7/\(asked.number)?lang=fr", method: .get,
                                                                       headers: [.cookie: "clup_line=\(asked.token)"]).body)
                    XCTAssertTrue(page.contains("data-key=\"\(push.publicKey)\""), page)
                    XCTAssertTrue(page.contains("Me prévenir sur ce téléphone quand c'est mon tour"))
                    // Another's place, a push service the chain does not list, keys that are no keys: refused.
                    let subscribe = { (token: String, number: String, body: String) in
                        try await client.execute(uri: "/line/7/\(number)/push?lang=fr", method: .post,
                                                 headers: [.cookie: "clup_line=\(token)", .origin: "https://localhost", .contentType: "application/json"],
                                                 body: ByteBuffer(string: body)).status
                    }
                    let elsewhere = try await subscribe(asked.token, asked.number, Self.subscription("https://10.0.0.1/push/x"))
                    XCTAssertEqual(elsewhere, .unprocessableContent)
                    let notTheirs = try await subscribe(notAsked.token, asked.number, Self.subscription(endpoint))
                    XCTAssertEqual(notTheirs, .notFound)
                    let noKeys = try await subscribe(asked.token, asked.number, #"{"endpoint": "\#(endpoint)", "keys": {"p256dh": "AAAA", "auth": "AAAA"}}"#)
                    XCTAssertEqual(noKeys, .badRequest)
                    XCTAssertEqual(try hub.sql("SELECT count(*) FROM push_subscription"), "0")
                    let ok = try await subscribe(asked.token, asked.number, Self.subscription(endpoint))
                    XCTAssertEqual(ok, .noContent)
                    return (asked.number, notAsked.number)
                }
                // The door calls both places.
                let day = BusinessDay.today
                let settings = try await hub.database.transaction { connection in
                    try await StoreSettingsReader.current(store: "7", device: totem.device.deviceID, connection, HubFixture.logger)
                }
                let joins = try XCTUnwrap(settings?.remoteTickets)
                var events: [DomainEvent] = joins.map { .ticketIssued(Ticket(number: $0.number, businessDay: day, issuedAt: $0.joined, state: .waiting, code: $0.code)) }
                events += joins.map { .ticketCalled($0.number, businessDay: day, at: Date(), reason: "arrival order", steady: nil) }
                _ = try await Ingest(database: hub.database).apply(totem.batch(totem.upload(events)), from: totem.device)
                let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: NoticeDelivery.clientConfiguration)
                let delivery = NoticeDelivery(database: hub.database, gateway: nil, push: push, client: http)
                let round = try await delivery.round()
                let again = try await delivery.round()
                try await http.shutdown()
                XCTAssertEqual(round.sent, 1)
                XCTAssertEqual(again.sent + again.failed, 0)
                let received = await service.received
                XCTAssertEqual(received.count, 1)
                let message = try XCTUnwrap(received.first)
                XCTAssertEqual(message.headers[.contentEncoding], "aes128gcm")
                XCTAssertEqual(message.headers[HTTPField.Name("TTL")!], "3600")
                XCTAssertEqual(message.headers[HTTPField.Name("Urgency")!], "high")
                XCTAssertTrue(message.headers[HTTPField.Name("Topic")!]?.hasPrefix("clup-notice-") == true)
                XCTAssertTrue(message.headers[.authorization]?.hasPrefix("vapid t=") == true)
                XCTAssertTrue(message.headers[.authorization]?.hasSuffix("k=\(push.publicKey)") == true)
                // One record: 16 bytes of salt, the record size, the hub's fresh key, then the sealed message.
                XCTAssertEqual(message.body.prefix(21).suffix(5), Data([0, 0, 0x10, 0, 65]))
                XCTAssertNotEqual(message.body.dropFirst(21).prefix(65), Data(Self.vapid.publicKey.x963Representation), "a fresh key, not the signing key")
                XCTAssertEqual(try hub.sql("SELECT booking_number || ' ' || (sent_at IS NOT NULL) || ' ' || (dropped_at IS NOT NULL) || ' ' || coalesce(last_error, '') FROM notice ORDER BY booking_number"),
                               "\(asked) true false \n\(notAsked) false true the visitor did not ask to be told")
            }
        }
    }

    /// The browser unsubscribed (the push service answers 410): the subscription is forgotten
    /// and the notice kept as a dead letter with why.
    func test_aSubscriptionThePushServiceForgotIsForgottenToo() async throws {
        let service = PushServiceStandIn([410])
        try await withHub { hub in
            try await service.app().test(.live) { pushClient in
                let endpoint = "http://localhost:\(try XCTUnwrap(pushClient.port))/push/gone"
                let push = PushService(key: Self.vapid, subject: "mailto:ops@chain.example", services: ["localhost"])
                try hub.sql("""
                    INSERT INTO push_subscription (customer_ref, store_id, endpoint, p256dh, auth, language)
                    VALUES ('web:0001', '7', '\(endpoint)', '\\x\(HubWire.hex(Self.browser.publicKey.x963Representation))', '\\x\(HubWire.hex(Self.auth))', 'en');
                    INSERT INTO notice (store_id, customer_ref, kind, booking_number, slot_start) VALUES ('7', 'web:0001', 'cancelled', 'AR-001', now());
                    """)
                let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: NoticeDelivery.clientConfiguration)
                let round = try await NoticeDelivery(database: hub.database, gateway: nil, push: push, client: http).round()
                try await http.shutdown()
                XCTAssertEqual(round.failed, 1)
                XCTAssertEqual(try hub.sql("SELECT count(*) FROM push_subscription"), "0")
                let dead = try await NoticeDelivery.deadLetters(store: "7", hub.database)
                XCTAssertEqual(dead.map(\.reason), ["the browser's subscription is gone (410)"])
            }
        }
    }
}

