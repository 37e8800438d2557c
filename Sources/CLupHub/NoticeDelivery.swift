import AsyncHTTPClient
import CLupConfig
import CLupCore
import CLupProtocol
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import PostgresNIO

/// Sends the notices the hub queues for customers (a booking cancelled, a store running
/// late) to the chain's notification gateway, which reaches their phones. Each notice is one
/// POST of JSON:
///
/// - `Idempotency-Key: clup-notice-<id>`, the same on every attempt: the gateway keeps the
///   keys it has taken and takes each notice once, however often it is sent;
/// - `CLup-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(key, "<t>.<body>")>` with the
///   chain's key (`[notices] webhook_secret_file`): the gateway recomputes it, and refuses a
///   body signed otherwise or a `t` more than five minutes from its clock.
///
/// A 2xx answer marks the notice sent. Anything else (no answer in `timeout`, a refused
/// connection, a 5xx, 408, 429) is tried again after a pause that doubles from 5 s up to an
/// hour; after `maximumAttempts`, or at once on another 4xx (the gateway refuses that body,
/// and would refuse it again), the notice becomes a dead letter, kept with its reason for
/// the panel and `clup-hub notices`. Several hub processes deliver side by side: a notice is
/// leased (its next attempt moved past the round) by the one that sends it.
public struct NoticeDelivery: Sendable {
    /// Where and how the notices go.
    public struct Target: Sendable {
        public let url: String
        /// The HMAC key's bytes (`SymmetricKey` is not `Sendable`).
        let key: [UInt8]

        /// The target `settings` name, or nil when no webhook is configured; throws when the
        /// URL or the key file cannot be used.
        public init?(_ settings: NoticeSettings, file: String) throws(ConfigurationError) {
            guard let url = settings.webhookURL, !url.isEmpty else { return nil }
            guard let parts = URL(string: url), let scheme = parts.scheme?.lowercased(), let host = parts.host, !host.isEmpty,
                  scheme == "https" || (scheme == "http" && ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased()))
            else {
                throw ConfigurationError(file: file, line: nil, key: "notices.webhook_url",
                                         problem: "\(url.prefix(200)) is not an https URL (http is taken on loopback only)")
            }
            guard let secretFile = settings.webhookSecretFile else {
                throw ConfigurationError(file: file, line: nil, key: "notices.webhook_secret_file",
                                         problem: "a webhook needs the file of the key its notices are signed with")
            }
            guard let text = try? String(contentsOfFile: secretFile, encoding: .utf8),
                  let secret = text.split(separator: "\n", omittingEmptySubsequences: false).first, secret.utf8.count >= 32
            else {
                throw ConfigurationError(file: file, line: nil, key: "notices.webhook_secret_file",
                                         problem: "\(secretFile) cannot be read, or its first line is shorter than 32 characters")
            }
            self.init(url: url, key: Array(secret.utf8))
        }

        init(url: String, key: [UInt8]) {
            self.url = url
            self.key = key
        }
    }

    /// A notice as the gateway receives it. `kind` is `called` (a place in the line taken
    /// from a phone is called: come to the door now), `delayed` (the store is full near a
    /// booking's slot), `cancelled` (a booking cancelled, by its customer or by a major delay)
    /// or `reminder` (a booking's slot is near).
    struct Body: Codable, Equatable {
        let id: String
        let kind: String
        let store: String
        let customerRef: String
        /// The place's or the booking's number.
        let number: String
        /// A booking's notices only: its number and its slot's start.
        let bookingNumber: String?
        let slotStart: Date?
        let queuedAt: Date
        let attempt: Int

        init(id: String, kind: String, store: String, customerRef: String, number: String, slotStart: Date, queuedAt: Date, attempt: Int) {
            self.id = id
            self.kind = kind
            self.store = store
            self.customerRef = customerRef
            self.number = number
            let booking = kind != "called"
            bookingNumber = booking ? number : nil
            self.slotStart = booking ? slotStart : nil
            self.queuedAt = queuedAt
            self.attempt = attempt
        }
    }

    let database: HubDatabase
    let target: Target
    let client: HTTPClient
    /// How long one attempt may take, answer included.
    let timeout: TimeAmount

    static let maximumAttempts = 12
    /// The most notices one round sends (side by side).
    static let roundSize = 20

    public init(database: HubDatabase, target: Target, client: HTTPClient, timeout: TimeAmount = .seconds(10)) {
        self.database = database
        self.target = target
        self.client = client
        self.timeout = timeout
    }

    /// The HTTP client's settings: a redirect is not followed (the signed notice goes to the
    /// gateway configured, nowhere else: a 3xx is a refusal), and a connection is given 5 s.
    public static var clientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout.connect = .seconds(5)
        return configuration
    }

    /// The pause before attempt `attempts + 1`, after `attempts` failed ones: 5 s doubling
    /// up to an hour.
    static func pause(afterFailed attempts: Int) -> Int {
        min(3600, 5 << min(max(attempts - 1, 0), 10))
    }

    /// Sends the notices due now; returns how many the gateway took and how many failed.
    @discardableResult
    public func round() async throws -> (sent: Int, failed: Int) {
        let logger = database.logger
        // Leased for longer than an attempt lasts, so that no other hub process sends them meanwhile.
        let lease = Double(timeout.nanoseconds) / 1e9 * 3 + 30
        let due = try await database.withDeadline { [database] in
            try await database.client.withConnection { connection in
                try await connection.rows("""
                    UPDATE notice SET next_attempt_at = now() + make_interval(secs => \(lease))
                    WHERE notice_id IN (
                        SELECT notice_id FROM notice WHERE sent_at IS NULL AND dead_at IS NULL AND next_attempt_at <= now()
                        ORDER BY next_attempt_at, notice_id LIMIT \(Self.roundSize) FOR UPDATE SKIP LOCKED)
                    RETURNING notice_id, kind, store_id, customer_ref, booking_number, slot_start, created_at, attempts
                    """, as: (Int64, String, String, String, String, Date, Date, Int).self, logger)
            }
        }
        let outcomes = await withTaskGroup(of: (Int64, Int, Outcome).self) { group in
            for (id, kind, store, reference, number, slot, queued, attempts) in due {
                let body = Body(id: "clup-notice-\(id)", kind: kind, store: store, customerRef: reference, number: number,
                                slotStart: slot, queuedAt: queued, attempt: attempts + 1)
                group.addTask { (id, attempts, await send(body)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        // The counts are moved on by the statements themselves, and only while the notice is
        // still pending: a late writer (a lease that ran out) neither counts an attempt twice
        // nor undoes what another process recorded.
        var sent = 0
        for (id, attempts, outcome) in outcomes {
            let dead = try await database.withDeadline { [database] in
                try await database.client.withConnection { connection in
                    switch outcome {
                    case .taken:
                        try await connection.query("""
                            UPDATE notice SET sent_at = now(), attempts = attempts + 1, last_error = NULL
                            WHERE notice_id = \(id) AND sent_at IS NULL AND dead_at IS NULL
                            """, logger: logger)
                        return false
                    case let .failed(reason, final):
                        return try await connection.all("""
                            UPDATE notice SET attempts = attempts + 1, last_error = \(reason),
                                next_attempt_at = now() + make_interval(secs => \(Double(Self.pause(afterFailed: attempts + 1)))),
                                dead_at = CASE WHEN \(final) OR attempts + 1 >= \(Self.maximumAttempts) THEN now() END
                            WHERE notice_id = \(id) AND sent_at IS NULL AND dead_at IS NULL
                            RETURNING dead_at IS NOT NULL
                            """, as: Bool.self, logger).first ?? false
                    }
                }
            }
            if dead, case let .failed(reason, _) = outcome {
                logger.warning("a notice could not be delivered and is kept as a dead letter",
                               metadata: ["notice": "\(id)", "reason": "\(reason)"])
            }
            if case .taken = outcome { sent += 1 }
        }
        return (sent, outcomes.count - sent)
    }

    enum Outcome: Sendable {
        case taken
        /// Why it failed; `final`: sending it again would not help.
        case failed(String, final: Bool)
    }

    /// One attempt at `body`.
    func send(_ body: Body) async -> Outcome {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        guard let json = try? encoder.encode(body) else { return .failed("the notice could not be written as JSON", final: true) }
        var request = HTTPClientRequest(url: target.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Idempotency-Key", value: body.id)
        request.headers.add(name: "CLup-Signature", value: Self.signature(json, key: target.key, at: Date()))
        request.body = .bytes(ByteBuffer(bytes: json))
        do {
            let response = try await client.execute(request, timeout: timeout)
            // Read (at most a little of) the answer, so that the connection can be used again.
            _ = try? await response.body.collect(upTo: 4096)
            switch response.status.code {
            case 200..<300: return .taken
            case 408, 429, 500..<600: return .failed("the gateway answered \(response.status.code)", final: false)
            default: return .failed("the gateway refused it: \(response.status.code)", final: true)
            }
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            return .failed("no answer within \(Double(timeout.nanoseconds) / 1e9) s", final: false)
        } catch {
            return .failed("not delivered: \(String(describing: error).prefix(200))", final: false)
        }
    }

    /// A notice the hub gave up on, with why.
    public struct DeadLetter: Sendable, Equatable {
        public let id: Int64
        public let store: String
        public let kind: String
        public let bookingNumber: String
        public let attempts: Int
        public let reason: String
        public let deadAt: Date
    }

    /// The newest 200 dead letters, of `store` or of every store.
    public static func deadLetters(store: String?, _ database: HubDatabase) async throws -> [DeadLetter] {
        try await database.transaction { [logger = database.logger] connection in
            try await connection.rows("""
                SELECT notice_id, store_id, kind, booking_number, attempts, coalesce(last_error, ''), dead_at FROM notice
                WHERE dead_at IS NOT NULL AND (\(store)::text IS NULL OR store_id = \(store))
                ORDER BY dead_at DESC, notice_id DESC LIMIT 200
                """, as: (Int64, String, String, String, Int, String, Date).self, logger)
                .map { DeadLetter(id: $0.0, store: $0.1, kind: $0.2, bookingNumber: $0.3, attempts: $0.4, reason: $0.5, deadAt: $0.6) }
        }
    }

    /// The `CLup-Signature` of `body` sent at `time`.
    static func signature(_ body: Data, key: [UInt8], at time: Date) -> String {
        let seconds = Int64(time.timeIntervalSince1970.rounded(.down))
        var signed = Data("\(seconds).".utf8)
        signed.append(body)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))
        return "t=\(seconds),v1=\(HubWire.hex(mac))"
    }
}
