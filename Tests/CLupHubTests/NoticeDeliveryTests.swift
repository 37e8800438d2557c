import NIOFoundationCompat
import Prometheus
import AsyncHTTPClient
@testable import CLupHub
import CLupConfig
import CLupCore
import CLupProtocol
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import XCTest

/// Notices leave the hub for the chain's gateway as signed webhooks, each taken once by its
/// idempotency key, tried again after a failure, or kept as a dead letter with why. The
/// gateway here is a real HTTP server on loopback, scripted to answer as a gateway might.
final class NoticeDeliveryTests: XCTestCase {
    static let key = Array("a key of the chain's, 32 bytes or more".utf8)

    /// A notification gateway: it answers as `script` says (then 200), keeps what it was
    /// sent, and takes each idempotency key once.
    actor Gateway {
        enum Answer: Sendable {
            case status(Int)
            /// No answer for two seconds.
            case hang
            /// No answer until the test says `release()`, then 200.
            case held
        }

        struct Delivery: Sendable {
            let key: String
            let signature: String
            let body: Data
        }

        private var script: [Answer]
        private(set) var received: [Delivery] = []
        private(set) var taken: [String] = []
        private var released = false

        init(_ script: [Answer] = []) { self.script = script }

        func release() { released = true }
        var isReleased: Bool { released }

        func take(_ key: String) { if !taken.contains(key) { taken.append(key) } }

        func receive(_ delivery: Delivery) -> Answer {
            received.append(delivery)
            let answer = script.isEmpty ? .status(200) : script.removeFirst()
            if case let .status(code) = answer, (200..<300).contains(code), !taken.contains(delivery.key) { taken.append(delivery.key) }
            return answer
        }

        func app() -> some ApplicationProtocol {
            let router = Router()
            router.post("/hook") { request, _ -> Response in
                var request = request
                let body = try await request.collectBody(upTo: 65536)
                let answer = await self.receive(Delivery(key: request.headers[HTTPField.Name("Idempotency-Key")!] ?? "",
                                                         signature: request.headers[HTTPField.Name("CLup-Signature")!] ?? "",
                                                         body: Data(buffer: body)))
                switch answer {
                case let .status(code):
                    return Response(status: HTTPResponse.Status(code: code), headers: [.location: "http://127.0.0.1:1/elsewhere"])
                case .hang:
                    try? await Task.sleep(for: .seconds(2))
                    return Response(status: .ok)
                case .held:
                    while await !self.isReleased { try? await Task.sleep(for: .milliseconds(20)) }
                    await self.take(request.headers[HTTPField.Name("Idempotency-Key")!] ?? "")
                    return Response(status: .ok)
                }
            }
            return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        }
    }

    /// What the gateway checks: the signature is the key's over the time and this body.
    static func verifies(_ signature: String, _ body: Data, key: [UInt8] = key) -> Bool {
        let fields = Dictionary(signature.split(separator: ",").compactMap { field -> (String, String)? in
            let parts = field.split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }, uniquingKeysWith: { first, _ in first })
        guard let time = fields["t"], let mac = fields["v1"], let seconds = Double(time), abs(seconds - Date().timeIntervalSince1970) < 300
        else { return false }
        var signed = Data("\(time).".utf8)
        signed.append(body)
        return HubWire.hex(HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))) == mac
    }

    /// Runs `body` with a hub, the gateway serving, and a delivery to it.
    func withGateway(_ gateway: Gateway, timeout: TimeAmount = .seconds(5),
                     _ body: @escaping @Sendable (HubFixture, NoticeDelivery) async throws -> Void) async throws {
        try await withHub { hub in
            try await gateway.app().test(.live) { client in
                // The live test server listens on "localhost", which may be ::1 first (as on a fresh Debian).
                let url = "http://localhost:\(try XCTUnwrap(client.port))/hook"
                let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: NoticeDelivery.clientConfiguration)
                do {
                    try await body(hub, NoticeDelivery(database: hub.database, gateway: .init(url: url, key: Self.key), client: http,
                                                       timeout: timeout))
                } catch {
                    try await http.shutdown()
                    throw error
                }
                try await http.shutdown()
            }
        }
    }

    static func queue(_ hub: HubFixture, _ count: Int) throws {
        try hub.sql("""
            INSERT INTO notice (store_id, customer_ref, kind, booking_number, slot_start)
            SELECT '7', 'customer-' || i, 'delayed', 'ZB-' || lpad(i::text, 3, '0'), '2026-11-25 10:00Z' FROM generate_series(1, \(count)) i
            """)
    }

    /// Moves every pending notice's next attempt to now, as if its pause had passed.
    static func pauseOver(_ hub: HubFixture) throws {
        try hub.sql("UPDATE notice SET next_attempt_at = now() WHERE sent_at IS NULL AND dead_at IS NULL")
    }

    func test_aNoticeIsPostedSignedAndMarkedSent() async throws {
        let gateway = Gateway()
        try await withGateway(gateway) { hub, delivery in
            try Self.queue(hub, 1)
            let round = try await delivery.round()
            XCTAssertEqual(round.sent, 1)
            XCTAssertEqual(round.failed, 0)
            let received = await gateway.received
            XCTAssertEqual(received.count, 1)
            let sent = try XCTUnwrap(received.first)
            XCTAssertTrue(sent.key.hasPrefix("clup-notice-"))
            XCTAssertTrue(Self.verifies(sent.signature, sent.body), sent.signature)
            let body = try JSONSerialization.jsonObject(with: sent.body) as? [String: Any]
            XCTAssertEqual(body?["kind"] as? String, "delayed")
            XCTAssertEqual(body?["store"] as? String, "7")
            XCTAssertEqual(body?["customerRef"] as? String, "customer-1")
            XCTAssertEqual(body?["bookingNumber"] as? String, "ZB-001")
            XCTAssertEqual(body?["slotStart"] as? String, "2026-11-25T10:00:00Z")
            XCTAssertEqual(body?["attempt"] as? Int, 1)
            // What a forger would send: another body under that signature, or that body under another key.
            var forged = sent.body
            forged.replaceSubrange(forged.startIndex..<forged.index(after: forged.startIndex), with: Data(" ".utf8))
            XCTAssertFalse(Self.verifies(sent.signature, forged))
            XCTAssertFalse(Self.verifies(sent.signature, sent.body, key: Array("another key, 32 bytes or more......".utf8)))
            XCTAssertEqual(try hub.sql("SELECT attempts, sent_at IS NOT NULL, dead_at IS NULL FROM notice"), "1|t|t")
            // Sent is sent: the next round has nothing to send.
            let next = try await delivery.round()
            XCTAssertEqual(next.sent + next.failed, 0)
            let count = await gateway.received.count
            XCTAssertEqual(count, 1)
        }
    }

    func test_aGatewayAnswering500IsTriedAgainAfterAGrowingPauseAndTakesTheNoticeOnce() async throws {
        let gateway = Gateway([.status(500), .status(503)])
        try await withGateway(gateway) { hub, delivery in
            try Self.queue(hub, 1)
            var round = try await delivery.round()
            XCTAssertEqual(round.failed, 1)
            XCTAssertEqual(try hub.sql("SELECT attempts, last_error FROM notice"), "1|the gateway answered 500")
            // Not before its pause (5 s after the first failure, 10 s after the second).
            XCTAssertEqual(try hub.sql("SELECT round(extract(epoch FROM next_attempt_at - now())) FROM notice"), "5")
            round = try await delivery.round()
            XCTAssertEqual(round.sent + round.failed, 0)
            try Self.pauseOver(hub)
            round = try await delivery.round()
            XCTAssertEqual(round.failed, 1)
            XCTAssertEqual(try hub.sql("SELECT round(extract(epoch FROM next_attempt_at - now())) FROM notice"), "10")
            try Self.pauseOver(hub)
            round = try await delivery.round()
            XCTAssertEqual(round.sent, 1)
            let received = await gateway.received
            XCTAssertEqual(received.count, 3)
            XCTAssertEqual(Set(received.map(\.key)).count, 1, "the same idempotency key on every attempt")
            let taken = await gateway.taken
            XCTAssertEqual(taken.count, 1)
            XCTAssertEqual(try hub.sql("SELECT attempts, sent_at IS NOT NULL, last_error IS NULL FROM notice"), "3|t|t")
        }
    }

    func test_aSlowGatewayIsAFailureAndARefusalIsADeadLetterAtOnce() async throws {
        // A redirect is a refusal too: the signed notice goes to the gateway configured, nowhere else.
        let gateway = Gateway([.hang, .status(307)])
        try await withGateway(gateway, timeout: .milliseconds(500)) { hub, delivery in
            try Self.queue(hub, 1)
            var round = try await delivery.round()
            XCTAssertEqual(round.failed, 1)
            XCTAssertEqual(try hub.sql("SELECT attempts, last_error, dead_at IS NULL FROM notice"), "1|no answer within 0.5 s|t")
            try Self.pauseOver(hub)
            round = try await delivery.round()
            XCTAssertEqual(round.failed, 1)
            let dead = try await NoticeDelivery.deadLetters(store: "7", hub.database)
            XCTAssertEqual(dead.map(\.reason), ["the gateway refused it: 307"])
            XCTAssertEqual(dead.map(\.attempts), [2])
            let otherStore = try await NoticeDelivery.deadLetters(store: "8", hub.database)
            XCTAssertEqual(otherStore, [])
            try Self.pauseOver(hub)
            round = try await delivery.round()
            XCTAssertEqual(round.sent + round.failed, 0, "a dead letter is not sent again")
        }
    }

    func test_aGatewayThatIsDownLeavesADeadLetterAfterTheLastAttempt() async throws {
        try await withHub { hub in
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: NoticeDelivery.clientConfiguration)
            // Port 1 on loopback: nothing listens, the connection is refused.
            let delivery = NoticeDelivery(database: hub.database, gateway: .init(url: "http://127.0.0.1:1/hook", key: Self.key), client: http,
                                          timeout: .seconds(1))
            do {
                try Self.queue(hub, 2)
                var round = try await delivery.round()
                XCTAssertEqual(round.failed, 2)
                XCTAssertEqual(try hub.sql("SELECT DISTINCT attempts, dead_at IS NULL FROM notice"), "1|t")
                try hub.sql("UPDATE notice SET attempts = \(NoticeDelivery.maximumAttempts - 1)")
                try Self.pauseOver(hub)
                round = try await delivery.round()
                XCTAssertEqual(round.failed, 2)
                let dead = try await NoticeDelivery.deadLetters(store: nil, hub.database)
                XCTAssertEqual(dead.count, 2)
                XCTAssertTrue(dead.allSatisfy { $0.reason.hasPrefix("not delivered: ") && $0.attempts == NoticeDelivery.maximumAttempts },
                              "\(dead)")
            } catch {
                try await http.shutdown()
                throw error
            }
            try await http.shutdown()
        }
    }

    func test_twoHubProcessesDeliveringAtOnceSendEachNoticeOnce() async throws {
        let gateway = Gateway()
        try await withGateway(gateway) { hub, delivery in
            try Self.queue(hub, 45)
            let other = NoticeDelivery(database: hub.database, gateway: delivery.gateway, client: delivery.client)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for sender in [delivery, other] {
                    group.addTask { for _ in 0..<4 { try await sender.round() } }
                }
                try await group.waitForAll()
            }
            let received = await gateway.received
            XCTAssertEqual(received.count, 45)
            XCTAssertEqual(Set(received.map(\.key)).count, 45)
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM notice WHERE sent_at IS NOT NULL AND attempts = 1"), "45")
        }
    }

    /// A gateway that does not answer one notice holds up that notice only: another one
    /// queued meanwhile is taken while the first still waits (issue 40: notices went out in
    /// rounds, and a round waited for its slowest POST).
    func test_aNoticeTheGatewayHoldsUpDelaysNoOtherNotice() async throws {
        let gateway = Gateway([.held])
        try await withGateway(gateway, timeout: .seconds(30)) { hub, delivery in
            let running = Task { await delivery.run(pause: .milliseconds(100)) }
            defer { running.cancel() }
            try Self.queue(hub, 1)
            try await Self.waitFor("the first notice to reach the gateway") { await gateway.received.count == 1 }
            try hub.sql("""
                INSERT INTO notice (store_id, customer_ref, kind, booking_number, slot_start) VALUES ('7', 'customer-2', 'delayed', 'ZB-002', now())
                """)
            try await Self.waitFor("the second notice to be taken") { await gateway.taken.count == 1 }
            let first = await gateway.received.first?.key, taken = await gateway.taken
            XCTAssertNotEqual(taken, [first ?? ""], "the second, not the first, was taken while the first was held")
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM notice WHERE sent_at IS NULL"), "1", "the first one, still held")
            await gateway.release()
            try await Self.waitFor("the first notice to be taken too") { try hub.sql("SELECT count(*) FROM notice WHERE sent_at IS NULL") == "0" }
        }
    }

    /// A called notice whose place was admitted, or left, before the notice could leave is
    /// not sent: it would tell someone inside to come to the door (issue 40).
    func test_aCalledNoticeWhosePlaceIsOverIsDroppedNotSent() async throws {
        let gateway = Gateway()
        try await withGateway(gateway) { hub, delivery in
            let line = RemoteLine(database: hub.database)
            let a = try await hub.enrol("A", door: "north")
            _ = try await Ingest(database: hub.database).apply(a.batch([]), from: a.device)
            let day = BusinessDay.today
            var taken: [TicketNumber] = []
            for reference in ["phone-0001", "phone-0002", "phone-0003"] {
                let place = try await line.join(store: "7", .init(customerRef: reference))
                let number = try XCTUnwrap(TicketNumber(place.number))
                taken.append(number)
                let ticket = Ticket(number: number, businessDay: day, issuedAt: place.joinedAt, state: .waiting, code: place.code)
                _ = try await Ingest(database: hub.database).apply(a.batch(a.upload([
                    .ticketIssued(ticket), .ticketCalled(number, businessDay: day, at: Date(), reason: "arrival order", steady: nil),
                ])), from: a.device)
            }
            // The first walks in, the second's place is voided at the door before the gateway hears of either.
            _ = try await Ingest(database: hub.database).apply(a.batch(a.upload([
                .ticketAdmitted(taken[0], businessDay: day, at: Date(), steady: nil),
                .ticketVoided(taken[1], businessDay: day, at: Date(), by: "tess", reason: "asked to"),
            ])), from: a.device)
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM notice WHERE kind = 'called'"), "3")
            let round = try await delivery.round()
            XCTAssertEqual(round.sent, 1)
            let sent = await gateway.received.compactMap { try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any] }
            XCTAssertEqual(sent.map { $0["number"] as? String }, ["AR-003"])
            XCTAssertEqual(try hub.sql("SELECT booking_number || ' ' || last_error FROM notice WHERE dropped_at IS NOT NULL ORDER BY notice_id"), """
                AR-001 its place was admitted before it could leave
                AR-002 its place was voided before it could leave
                """)
            let next = try await delivery.round()
            XCTAssertEqual(next.sent + next.failed, 0, "a dropped notice is not sent later")
            XCTAssertTrue(HubMetrics.registry.emitToString().contains(#"clup_hub_notices_total{kind="called",channel="gateway",outcome="dropped"}"#))
        }
    }

    static func waitFor(_ what: String, seconds: Double = 30, _ condition: () async throws -> Bool) async throws {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTFail("waited \(Int(seconds)) s for \(what)")
        throw CancellationError()
    }

    func test_theWebhookIsConfiguredWithAnHTTPSURLAndAKeyOfItsOwn() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notices-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("good").path, short = folder.appendingPathComponent("short").path
        try "\(String(repeating: "k", count: 40))\nignored\n".write(toFile: good, atomically: true, encoding: .utf8)
        try "too short\n".write(toFile: short, atomically: true, encoding: .utf8)
        func target(_ url: String?, _ secret: String?) throws(ConfigurationError) -> NoticeGateway? {
            var settings = NoticeSettings()
            settings.webhookURL = url
            settings.webhookSecretFile = secret
            return try NoticeGateway(settings, file: "hub.toml")
        }
        XCTAssertNil(try target(nil, nil))
        XCTAssertEqual(try target("https://gateway.example/notices", good)?.key, Array(String(repeating: "k", count: 40).utf8))
        XCTAssertNotNil(try target("http://127.0.0.1:9000/hook", good))
        for (url, secret, key) in [("http://gateway.example/notices", good, "notices.webhook_url"), ("gateway.example", good, "notices.webhook_url"),
                                   ("https://gateway.example/", nil, "notices.webhook_secret_file"),
                                   ("https://gateway.example/", short, "notices.webhook_secret_file"),
                                   ("https://gateway.example/", folder.appendingPathComponent("none").path, "notices.webhook_secret_file")] {
            XCTAssertThrowsError(try target(url, secret), url) { error in
                XCTAssertEqual((error as? ConfigurationError)?.key, key, "\(url) \(secret ?? "-")")
            }
        }
    }

    func test_thePauseDoublesFromFiveSecondsToAnHour() {
        XCTAssertEqual((1...12).map { NoticeDelivery.pause(afterFailed: $0) },
                       [5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600, 3600])
    }
}
