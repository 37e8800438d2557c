import AsyncHTTPClient
import CLupCore
import Foundation
import NIOCore
import NIOHTTP1
import PostgresNIO

/// Sends the notices the hub queues for customers: to the chain's notification gateway for
/// the app's customers (`NoticeGateway`), by Web Push to the website's visitors who asked
/// for it (`PushService`).
///
/// Notices go out side by side, at most `concurrency` (64) at once, each with its own deadline:
/// a slot freed by one is taken by the next notice due at once, so one slow gateway or
/// push service holds up one slot, never the others (issue 40: a round that waited for its
/// slowest POST made a called notice 8 s late). A 2xx answer marks a notice sent. Anything
/// else (no answer in `timeout`, a refused connection, a 5xx, 408, 429) is tried again after
/// a pause that doubles from 5 s up to an hour; after `maximumAttempts`, or at once on
/// another 4xx (a refusal that would not change), the notice becomes a dead letter, kept with
/// its reason for the panel and `clup-hub notices`. A `called` notice whose place is over
/// (admitted, gone, left) before it could leave is dropped, and counted: it no longer helps.
/// Several hub processes deliver side by side: a notice is leased (its next attempt moved
/// past its deadline) by the one that sends it.
public struct NoticeDelivery: Sendable {
    let database: HubDatabase
    let gateway: NoticeGateway?
    let push: PushService?
    let client: HTTPClient
    /// How long one attempt may take, answer included.
    let timeout: TimeAmount
    /// The most notices sent at once.
    let concurrency: Int

    static let maximumAttempts = 12
    /// The most notices `round()` leases.
    static let roundSize = 20

    public init(database: HubDatabase, gateway: NoticeGateway?, push: PushService? = nil, client: HTTPClient,
                timeout: TimeAmount = .seconds(10), concurrency: Int = NoticeDelivery.concurrency) {
        self.database = database
        self.gateway = gateway
        self.push = push
        self.client = client
        self.timeout = timeout
        self.concurrency = max(1, concurrency)
    }

    /// The most notices one hub process sends at once: as many as a chain's calls in the
    /// seconds one slow answer may last (500 stores calling every half minute make some 17 a
    /// second; a POST hanging for its 10 s holds one slot).
    public static let concurrency = 64

    /// The HTTP client's settings: a redirect is not followed (a notice goes where it was
    /// meant to, nowhere else: a 3xx is a refusal), a connection is given 5 s, and as many
    /// connections to one gateway as notices go out at once (the client's default of 8 would
    /// queue the rest behind a slow one).
    public static var clientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout.connect = .seconds(5)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = concurrency
        return configuration
    }

    /// The pause before attempt `attempts + 1`, after `attempts` failed ones: 5 s doubling
    /// up to an hour.
    static func pause(afterFailed attempts: Int) -> Int {
        min(3600, 5 << min(max(attempts - 1, 0), 10))
    }

    /// A notice leased for sending.
    struct Leased: Sendable {
        let id: Int64
        let kind: String
        let store: StoreID
        let customerRef: String
        /// The place's or the booking's number.
        let number: String
        let slotStart: Date
        let queuedAt: Date
        /// Attempts made before this one.
        let attempts: Int

        var attempt: Int { attempts + 1 }
        /// The same on every attempt: the gateway takes it once; the push service replaces a
        /// message it still holds with the same (`Topic`).
        var idempotencyKey: String { "clup-notice-\(id)" }
        /// For a visitor of the website (by Web Push), not a customer of the app.
        var isWebsite: Bool { customerRef.hasPrefix("web:") }
    }

    enum Outcome: Sendable {
        case taken
        /// Why it failed; `final`: sending it again would not help.
        case failed(String, final: Bool)
        /// Why it is not sent at all (its place is over, nobody asked to be told).
        case dropped(String)
    }

    /// Sends the notices due, at most `concurrency` at once, until cancelled; with none due,
    /// it looks again every `pause`.
    public func run(pause: Duration = .seconds(1)) async {
        var failing = false
        await withTaskGroup(of: Bool.self) { group in
            // true: a notice's attempt ended; false: the pause did.
            var sending = 0, pausing = false
            while !Task.isCancelled {
                if sending < concurrency {
                    do {
                        for notice in try await lease(upTo: concurrency - sending) {
                            sending += 1
                            group.addTask { await deliver(notice); return true }
                        }
                        failing = false
                    } catch {
                        if !failing {
                            database.logger.warning("delivering notices failed; trying again",
                                                    metadata: ["error": "\(HubDatabase.hubError(error).coded.message)"])
                        }
                        failing = true
                    }
                }
                if !pausing {
                    pausing = true
                    group.addTask { try? await Task.sleep(for: pause); return false }
                }
                guard let ended = await group.next() else { break }
                if ended { sending -= 1 } else { pausing = false }
            }
            group.cancelAll()
        }
    }

    /// Sends the notices due now, all at once, and waits for them; returns how many were
    /// taken and how many failed (what the tests drive; `run` is the hub's).
    @discardableResult
    public func round() async throws -> (sent: Int, failed: Int) {
        let due = try await lease(upTo: Self.roundSize)
        let outcomes = await withTaskGroup(of: Outcome.self) { group in
            for notice in due { group.addTask { await deliver(notice) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let sent = outcomes.count { if case .taken = $0 { true } else { false } }
        return (sent, outcomes.count { if case .failed = $0 { true } else { false } })
    }

    /// Leases up to `limit` notices due (their next attempt moved past the lease, so that no
    /// other hub process sends them meanwhile), after dropping the `called` ones whose place is over.
    func lease(upTo limit: Int) async throws -> [Leased] {
        let logger = database.logger
        let lease = Double(timeout.nanoseconds) / 1e9 * 3 + 30
        let (dropped, due) = try await database.withDeadline { [database, gateway] in
            try await database.withConnection { connection in
                let dropped = try await connection.all("""
                    UPDATE notice n SET dropped_at = now(), last_error = 'its place was ' || p.over || ' before it could leave'
                    FROM (SELECT n.notice_id, CASE WHEN r.left_at IS NOT NULL THEN 'left'
                                                   ELSE (SELECT k.state FROM ticket k WHERE k.store_id = r.store_id AND k.device_id = r.device_id
                                                         AND k.number = r.number AND k.business_day >= r.business_day - 1
                                                         ORDER BY k.business_day DESC LIMIT 1) END AS over
                          FROM notice n JOIN remote_ticket r ON r.store_id = n.store_id AND r.number = n.booking_number
                              AND r.joined_at = n.slot_start
                          WHERE n.kind = 'called' AND n.sent_at IS NULL AND n.dead_at IS NULL AND n.dropped_at IS NULL) p
                    WHERE n.notice_id = p.notice_id AND p.over IN ('left', 'admitted', 'entered', 'no-show', 'voided')
                    RETURNING n.customer_ref LIKE 'web:%'
                    """, as: Bool.self, logger)
                let due = try await connection.rows("""
                    UPDATE notice SET next_attempt_at = now() + make_interval(secs => \(lease))
                    WHERE notice_id IN (
                        SELECT notice_id FROM notice WHERE sent_at IS NULL AND dead_at IS NULL AND dropped_at IS NULL
                            AND next_attempt_at <= now() AND (\(gateway != nil) OR customer_ref LIKE 'web:%')
                        ORDER BY next_attempt_at, notice_id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                    RETURNING notice_id, kind, store_id, customer_ref, booking_number, slot_start, created_at, attempts
                    """, as: (Int64, String, String, String, String, Date, Date, Int).self, logger)
                return (dropped, due)
            }
        }
        for website in dropped { HubMetrics.notice(kind: "called", channel: website ? "push" : "gateway", outcome: "dropped") }
        return due.map { Leased(id: $0.0, kind: $0.1, store: StoreID($0.2), customerRef: $0.3, number: $0.4, slotStart: $0.5, queuedAt: $0.6,
                                attempts: $0.7) }
    }

    /// One attempt at `notice`, by the gateway or Web Push, and what came of it, recorded.
    @discardableResult
    func deliver(_ notice: Leased) async -> Outcome {
        let outcome: Outcome
        if notice.isWebsite {
            outcome = await push?.send(notice, database: database, client: client, timeout: timeout)
                ?? .dropped("the website's visitors are told nothing: no Web Push on this hub")
        } else if let gateway {
            outcome = await gateway.send(notice, client: client, timeout: timeout)
        } else {
            outcome = .failed("no gateway is configured", final: false)
        }
        do {
            try await record(outcome, of: notice)
        } catch {
            database.logger.warning("what came of a notice could not be recorded; it will be sent again",
                                    metadata: ["notice": "\(notice.id)", "error": "\(HubDatabase.hubError(error).coded.message)"])
        }
        return outcome
    }

    /// What came of an attempt, recorded by statements that move the counts themselves, and
    /// only while the notice is still pending: a late writer (a lease that ran out) neither
    /// counts an attempt twice nor undoes what another process recorded.
    private func record(_ outcome: Outcome, of notice: Leased) async throws {
        let (logger, id, attempts) = (database.logger, notice.id, notice.attempts)
        let dead = try await database.withDeadline { [database] in
            try await database.withConnection { connection in
                switch outcome {
                case .taken:
                    try await connection.query("""
                        UPDATE notice SET sent_at = now(), attempts = attempts + 1, last_error = NULL
                        WHERE notice_id = \(id) AND sent_at IS NULL AND dead_at IS NULL AND dropped_at IS NULL
                        """, logger: logger)
                    return false
                case let .dropped(reason):
                    try await connection.query("""
                        UPDATE notice SET dropped_at = now(), last_error = \(reason)
                        WHERE notice_id = \(id) AND sent_at IS NULL AND dead_at IS NULL AND dropped_at IS NULL
                        """, logger: logger)
                    return false
                case let .failed(reason, final):
                    return try await connection.all("""
                        UPDATE notice SET attempts = attempts + 1, last_error = \(reason),
                            next_attempt_at = now() + make_interval(secs => \(Double(Self.pause(afterFailed: attempts + 1)))),
                            dead_at = CASE WHEN \(final) OR attempts + 1 >= \(Self.maximumAttempts) THEN now() END
                        WHERE notice_id = \(id) AND sent_at IS NULL AND dead_at IS NULL AND dropped_at IS NULL
                        RETURNING dead_at IS NOT NULL
                        """, as: Bool.self, logger).first ?? false
                }
            }
        }
        let channel = notice.isWebsite ? "push" : "gateway"
        switch outcome {
        case .taken: HubMetrics.notice(kind: notice.kind, channel: channel, outcome: "sent")
        case .dropped: HubMetrics.notice(kind: notice.kind, channel: channel, outcome: "dropped")
        case let .failed(reason, _):
            HubMetrics.notice(kind: notice.kind, channel: channel, outcome: dead ? "dead" : "failed")
            if dead {
                logger.warning("a notice could not be delivered and is kept as a dead letter", metadata: ["notice": "\(id)", "reason": "\(reason)"])
            }
        }
    }

    /// One POST of `request` to `what` (the gateway, a push service) within `timeout`, and
    /// what its answer means.
    static func attempt(_ request: HTTPClientRequest, client: HTTPClient, timeout: TimeAmount, to what: String) async -> Outcome {
        do {
            let response = try await client.execute(request, timeout: timeout)
            // Read (at most a little of) the answer, so that the connection can be used again.
            _ = try? await response.body.collect(upTo: 4096)
            switch response.status.code {
            case 200..<300: return .taken
            case 408, 429, 500..<600: return .failed("\(what) answered \(response.status.code)", final: false)
            default: return .failed("\(what) refused it: \(response.status.code)", final: true)
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
        public let store: StoreID
        public let kind: String
        public let bookingNumber: String
        public let attempts: Int
        public let reason: String
        public let deadAt: Date
    }

    /// The newest 200 dead letters, of `store` or of every store.
    public static func deadLetters(store: StoreID?, _ database: HubDatabase) async throws -> [DeadLetter] {
        try await database.transaction { [logger = database.logger] connection in
            try await connection.rows("""
                SELECT notice_id, store_id, kind, booking_number, attempts, coalesce(last_error, ''), dead_at FROM notice
                WHERE dead_at IS NOT NULL AND (\(store?.rawValue)::text IS NULL OR store_id = \(store?.rawValue))
                ORDER BY dead_at DESC, notice_id DESC LIMIT 200
                """, as: (Int64, String, String, String, Int, String, Date).self, logger)
                .map { DeadLetter(id: $0.0, store: StoreID($0.1), kind: $0.2, bookingNumber: $0.3, attempts: $0.4, reason: $0.5, deadAt: $0.6) }
        }
    }
}
