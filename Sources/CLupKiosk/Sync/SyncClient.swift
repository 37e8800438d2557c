import CLupCore
import CLupProtocol
import CLupStore
import Crypto
import Foundation
import Logging
import Synchronization

/// Uploads the outbox (the events the hub does not hold yet) in a task of its own, in
/// batches, oldest first, forever: at-least-once, and the hub stores each `(device_id, seq)`
/// once, so every event arrives exactly once.
///
/// The hub's answer says how far it holds the log without a gap; the next batch starts
/// there. That position is not stored at the totem: after a restart the first batch asks
/// the hub again, so nothing the totem believes can skip an event. Failures back off with
/// full jitter (a random wait up to a doubling ceiling), so a store's totems coming back
/// from an outage do not hit the hub in step. The kiosk never waits on any of it.
public final class SyncClient: Sendable {
    /// Retry ceilings: from 0.5 s, doubling, to at most a minute; a refused totem every 5 minutes.
    static let firstBackoff = 0.5
    static let maximumBackoff = 60.0
    static let refusedRetry = 300.0
    /// Online with events waiting and no progress for this long: the watchdog says stuck.
    static let stuckAfter = 60.0
    /// The hub's clock is asked again this often.
    static let timeCheckInterval = 600.0
    /// With nothing to send, an empty batch still tells the hub the totem is there this often
    /// (events committed meanwhile end the wait: `report(_: DoorReport)`).
    static let heartbeat = 30.0

    let enrolment: TotemEnrolment
    let client: HubClient
    private let outbox: OutboxReader
    /// The device key (raw): the key type itself is not Sendable.
    let deviceKey: Data
    private let logger: Logger
    private let status = Mutex(Status())
    /// The door's figures as of the log's last seq, sent with every batch (`CapacityEscrow`).
    private let door = Mutex<DoorReport?>(nil)
    /// The devices and the printer as last seen, sent with every batch for the fleet view.
    private let health = Mutex<TotemHealth?>(nil)
    /// Ends a pause between rounds: `sync now`, events committed, stop.
    private let wakeUp: WakeUp

    private struct Status {
        var state = SyncReport.State.offline
        var acknowledged: Int64?
        var lastSuccess: Date?
        var lastAttempt: Date?
        var lastError: CodedError?
        var clockOffset: Double?
        var timeCheckedAt: Double?
        var deadLettered = 0
        /// What the hub last said of other totems at this door holding places silently.
        var silentHolders: [SilentHolder]?
        var failures = 0
        var nextAttemptAt: Double?
        /// When the acknowledged seq last moved (or the outbox was last empty).
        var progressAt = ProcessInfo.processInfo.systemUptime
        /// When the hub last answered (monotonic seconds).
        var answeredAt: Double?
        /// `sync now` was asked for since the last attempt began.
        var asked = false
        /// How many times `sync now` was asked for: an attempt serves the asks made before it began.
        var asks = 0
        /// Who waits for the attempt that serves their ask: the ask's number and the answer.
        var waiting: [(ask: Int, answer: @Sendable () -> Void)] = []
        /// Events were committed since the last attempt began.
        var committed = false
        var stopping = false
    }

    /// nil when the state directory holds no enrolment.
    public static func make(stateDirectory: String, databasePath: String, logger: Logger) throws(CodedError) -> SyncClient? {
        guard let enrolment = try TotemEnrolment.load(from: stateDirectory) else { return nil }
        guard let caData = FileManager.default.contents(atPath: TotemEnrolment.caPath(in: stateDirectory)),
              let caPEM = String(data: caData, encoding: .utf8)
        else { throw CodedError(.hubCertificateUnusable, "cannot read \(TotemEnrolment.caPath(in: stateDirectory))") }
        let key: Curve25519.Signing.PrivateKey
        do {
            key = try TotemKey.load(SealedKey.deviceKey, in: stateDirectory, create: false)
        } catch {
            throw error.coded
        }
        let outbox: OutboxReader
        do {
            outbox = try OutboxReader(path: databasePath, deviceID: enrolment.deviceID)
        } catch {
            throw CodedError(.databaseUnopenable, "cannot read the outbox in \(databasePath): \(error)")
        }
        return SyncClient(enrolment: enrolment, client: try HubClient(hub: enrolment.hub, caPEM: caPEM), outbox: outbox,
                          key: key, logger: logger)
    }

    init(enrolment: TotemEnrolment, client: HubClient, outbox: OutboxReader, key: Curve25519.Signing.PrivateKey, logger: Logger) {
        self.enrolment = enrolment
        self.client = client
        self.outbox = outbox
        deviceKey = key.rawRepresentation
        self.logger = logger
        wakeUp = client.wakeUp()
    }

    /// Full jitter: a random wait up to a ceiling that doubles with each failure in a row.
    static func backoff(afterFailures failures: Int) -> Double {
        Double.random(in: 0...min(maximumBackoff, firstBackoff * pow(2, Double(min(failures, 20)))))
    }

    public func start() {
        Task.detached { [self] in await run() }
    }

    public func stop() {
        status.withLock { $0.stopping = true }
        wakeUp.signal()
    }

    /// Tries the hub now instead of at the end of the current wait, and calls `answer` (on
    /// another thread) once an attempt begun after this ask has ended, or after `wait`
    /// seconds if it has not (a hub that holds the request up): `report()` then says how it went.
    public func syncNow(wait: Double = askedWait, _ answer: @escaping @Sendable () -> Void) {
        let ask = status.withLock { status -> Int in
            status.asked = true
            status.asks += 1
            status.waiting.append((status.asks, answer))
            return status.asks
        }
        wakeUp.signal()
        Task.detached { [self] in
            try? await Task.sleep(for: .seconds(wait))
            answerAsks { $0 == ask }
        }
    }

    /// How long `sync now` waits for its attempt: longer than a refused or answered one takes.
    public static let askedWait = 10.0

    /// Calls (once) the waiting answers whose ask `served` says is served.
    private func answerAsks(_ served: (Int) -> Bool) {
        let answers = status.withLock { status -> [@Sendable () -> Void] in
            let due = status.waiting.filter { served($0.ask) }
            status.waiting.removeAll { served($0.ask) }
            return due.map(\.answer)
        }
        for answer in answers { answer() }
    }

    /// The totem's clock minus the hub's, as last measured (0 before).
    var clockOffset: Double { measuredClockOffset ?? 0 }
    /// The same, nil until measured.
    var measuredClockOffset: Double? { status.withLock { $0.clockOffset } }

    /// The door's figures changed (from the loop, after a commit): the next batch carries them,
    /// with the events committed, at once if the upload was idle.
    func report(_ figures: DoorReport) {
        door.withLock { $0 = figures }
        status.withLock { $0.committed = true }
        wakeUp.signal()
    }

    /// The devices' and the printer's state (from the loop, every few seconds).
    func report(_ devices: TotemHealth) {
        health.withLock { $0 = devices }
    }

    /// Sends `frame` to the hub, signed as this totem; `done` is told how it went, on the
    /// hub client's thread.
    func sendScreen(_ frame: ScreenFrame, _ done: @escaping @Sendable (CodedError?) -> Void) {
        do {
            let signer = HubClient.Signer(deviceID: enrolment.deviceID, key: try Curve25519.Signing.PrivateKey(rawRepresentation: deviceKey),
                                          clockOffset: clockOffset)
            client.sendScreen(frame, signer: signer) { result in
                switch result {
                case .success: done(nil)
                case let .failure(error): done(error)
                }
            }
        } catch {
            done(CodedError(describing: error))
        }
    }

    /// Booking through the hub for "Book a later time", signed as this totem, with a short
    /// deadline (a customer is waiting); answered on the hub client's thread.
    var bookingDesk: HubBookingDesk {
        let (client, deviceID, raw) = (client, enrolment.deviceID, deviceKey)
        let signer: @Sendable () throws -> HubClient.Signer = { [self] in
            HubClient.Signer(deviceID: deviceID, key: try Curve25519.Signing.PrivateKey(rawRepresentation: raw), clockOffset: clockOffset)
        }
        return HubBookingDesk(
            slots: { answer in
                do { client.slotOffers(signer: try signer(), answer) } catch { answer(.failure(CodedError(describing: error))) }
            },
            book: { start, answer in
                do { client.book(slotStart: start, signer: try signer(), answer) } catch { answer(.failure(CodedError(describing: error))) }
            })
    }

    /// How far the hub holds the log without a gap, as it last said (nil until it answers).
    public var acknowledgedSeq: Int64? { status.withLock { $0.acknowledged } }

    public func report() -> SyncReport {
        let lastSeq = Int64((try? outbox.lastSeq()) ?? 0)
        let now = ProcessInfo.processInfo.systemUptime
        return status.withLock { status in
            let depth = status.acknowledged.map { max(0, lastSeq - $0) }
            var state = status.state
            if state == .online, let depth, depth > 0, now - status.progressAt > Self.stuckAfter { state = .stuck }
            return SyncReport(state: state, hub: enrolment.hub, deviceID: enrolment.deviceID, lastSeq: lastSeq,
                              acknowledgedSeq: status.acknowledged, outboxDepth: depth, lastSuccess: status.lastSuccess,
                              lastAttempt: status.lastAttempt, lastError: status.lastError, clockSkew: status.clockOffset,
                              deadLettered: status.deadLettered, consecutiveFailures: status.failures,
                              nextAttemptIn: status.nextAttemptAt.map { max(0, $0 - now) }, silentHolders: status.silentHolders)
        }
    }

    private func run() async {
        while true {
            let (serving, asked) = status.withLock { status -> (Int, Bool) in
                defer {
                    status.asked = false
                    status.committed = false
                }
                return (status.asks, status.asked)
            }
            let (wait, idle) = await attempt(asked: asked)
            let until = ProcessInfo.processInfo.systemUptime + wait
            status.withLock { $0.nextAttemptAt = until }
            answerAsks { $0 <= serving }
            // Until the wait is over, or `sync now` (asked during the attempt too), or stop;
            // with nothing left to send, until events are committed (a backoff waits them out).
            while ProcessInfo.processInfo.systemUptime < until, !status.withLock({ $0.asked || $0.stopping || idle && $0.committed }) {
                await wakeUp.wait(upTo: until - ProcessInfo.processInfo.systemUptime)
            }
            if status.withLock({ $0.stopping }) {
                answerAsks { _ in true }
                return
            }
        }
    }

    /// One round: learn the hub's time if due, send the next batch; returns how long to wait,
    /// and whether nothing is left to send (the wait is then the heartbeat's). `asked`: a
    /// person asked for it (`sync now`), so the hub is asked even with nothing new to say.
    private func attempt(asked: Bool) async -> (wait: Double, idle: Bool) {
        let now = ProcessInfo.processInfo.systemUptime
        let (acknowledged, offset, timeCheckedAt, answeredAt) = status.withLock {
            ($0.acknowledged, $0.clockOffset, $0.timeCheckedAt, $0.answeredAt)
        }
        do {
            // Nothing new and the hub heard from us lately: nothing to say.
            if !asked, let acknowledged, let answeredAt, now - answeredAt < Self.heartbeat,
               Int64(try outbox.lastSeq()) <= acknowledged {
                return (answeredAt + Self.heartbeat - now, true)
            }
            var clockOffset = offset ?? 0
            if offset == nil || now - (timeCheckedAt ?? 0) > Self.timeCheckInterval {
                let asked = Date()
                let hub = try await client.time()
                let answered = Date()
                // The hub read its clock about halfway through the round trip.
                clockOffset = asked.addingTimeInterval(answered.timeIntervalSince(asked) / 2).timeIntervalSince1970 - hub.hubTime
                status.withLock {
                    $0.clockOffset = clockOffset
                    $0.timeCheckedAt = now
                }
                if abs(clockOffset) > 5 {
                    logger.warning("the totem's clock is off the hub's", metadata: ["seconds": "\(Int(clockOffset))"])
                }
            }
            // Unknown position (just started): an empty batch asks the hub where it stands.
            let stored = try acknowledged.map { try outbox.events(after: Int($0), limit: HubWire.maximumBatchEvents) } ?? []
            let lastSeq = Int64(try outbox.lastSeq())
            let events = stored.map {
                UploadedEvent(seq: Int64($0.seq), wallTime: $0.wallTime.timeIntervalSince1970, type: $0.type, payload: $0.payload)
            }
            let depth = max(0, lastSeq - (events.last?.seq ?? acknowledged ?? 0))
            status.withLock { $0.lastAttempt = Date() }
            let key = try Curve25519.Signing.PrivateKey(rawRepresentation: deviceKey)
            let batch = EventBatch(events: events, outboxDepth: depth, clockOffset: clockOffset, door: door.withLock { $0 },
                                   health: health.withLock { $0 })
            let reply = try await client.upload(batch,
                                          signer: .init(deviceID: enrolment.deviceID, key: key, clockOffset: clockOffset))
            KioskMetrics.batchSent(ok: true)
            let more = status.withLock { status -> Bool in
                if reply.acknowledged != status.acknowledged || reply.acknowledged >= lastSeq {
                    status.progressAt = ProcessInfo.processInfo.systemUptime
                }
                status.acknowledged = reply.acknowledged
                status.answeredAt = ProcessInfo.processInfo.systemUptime
                status.deadLettered += reply.deadLettered
                status.silentHolders = SilentHolder.bounded(reply.silentHolders)
                status.state = .online
                status.lastSuccess = Date()
                status.lastError = nil
                status.failures = 0
                return reply.acknowledged < lastSeq && (events.isEmpty || reply.acknowledged >= events.last!.seq)
            }
            if reply.deadLettered > 0 {
                logger.error("the hub kept events as dead letters", metadata: ["count": "\(reply.deadLettered)"])
            }
            // More waiting: straight on. A batch the hub took only in part: after a pause (a gap
            // it cannot close by itself is shown as stuck, never skipped).
            if more { return (0, false) }
            if reply.acknowledged < lastSeq && !events.isEmpty { return (Self.firstBackoff, false) }
            return (Self.heartbeat, true)
        } catch {
            KioskMetrics.batchSent(ok: false)
            let coded = CodedError(describing: error)
            let refused = [ErrorCode.unknownDevice, .revokedDevice, .badSignature].contains(coded.errorCode)
            if coded.errorCode == .staleRequest { status.withLock { $0.timeCheckedAt = nil; $0.clockOffset = nil } }
            let failures = status.withLock { status -> Int in
                status.failures += 1
                status.lastError = coded
                status.state = refused ? .refused : .offline
                return status.failures
            }
            if failures == 1 || failures % 20 == 0 {
                logger.warning("sync with the hub failed; retrying", metadata: ["error": "\(coded)", "failures": "\(failures)"])
            }
            return (refused ? Self.refusedRetry : Self.backoff(afterFailures: failures), false)
        }
    }
}
