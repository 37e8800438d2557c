import Foundation
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Wakes a hub process's long polls when a store's settings get a new version: the
/// transaction that makes a version sends `NOTIFY clup_settings, '<store>'`, which
/// PostgreSQL delivers when it commits to every hub process listening, each on one
/// connection of its pool. A long poll still looks every second by itself, so a listener
/// that is reconnecting delays an answer by a second at most.
public final class SettingsSignals: Sendable {
    static let channel = "clup_settings"
    private let waiters = Mutex<(next: UInt64, byStore: [StoreID: [UInt64: AsyncStream<Void>.Continuation]])>((0, [:]))

    public init() {}

    /// A waiter for `store`, registered now: a signal from here on wakes it.
    func waiter(for store: StoreID) -> Waiter {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = waiters.withLock { state -> UInt64 in
            state.next += 1
            state.byStore[store, default: [:]][state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            self?.waiters.withLock { state in
                state.byStore[store]?[id] = nil
                if state.byStore[store]?.isEmpty == true { state.byStore[store] = nil }
            }
        }
        return Waiter(stream: stream, continuation: continuation)
    }

    struct Waiter: Sendable {
        let stream: AsyncStream<Void>
        let continuation: AsyncStream<Void>.Continuation

        /// Returns when signalled, or after `timeout`.
        func wait(upTo timeout: Duration) async {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { [stream] in for await _ in stream { return } }
                group.addTask { try? await Task.sleep(for: timeout) }
                await group.next()
                group.cancelAll()
            }
        }

        func done() { continuation.finish() }
    }

    func signal(store: StoreID) {
        for continuation in waiters.withLock({ Array(($0.byStore[store] ?? [:]).values) }) { continuation.yield() }
    }

    func signalAll() {
        for continuation in waiters.withLock({ $0.byStore.values.flatMap(\.values) }) { continuation.yield() }
    }

    /// Listens until cancelled, on a connection of its own (outside the pool), coming back
    /// after a second when the connection is lost (PostgreSQL restarted, the network cut).
    ///
    /// Each attempt runs apart and is watched: postgres-nio's LISTEN never returns when the
    /// connection under it has just closed (postgres-nio issue 601), so an attempt whose
    /// connection is seen closed is left behind rather than waited for; it holds no pooled
    /// connection, so nothing the requests need is lost with it.
    func listen(on database: HubDatabase, logger: Logger) async {
        var quiet = false  // a warning once per outage, a notice when listening again
        while !Task.isCancelled {
            let attempt = ListenAttempt()
            let wasQuiet = quiet
            let task = Task {
                do {
                    let connection = try await PostgresConnection.connect(configuration: database.directConfiguration, id: 0,
                                                                          logger: logger)
                    attempt.started(on: connection)
                    try await connection.listen(on: Self.channel) { notifications in
                        if wasQuiet { logger.notice("listening for settings changes again") }
                        attempt.listening()
                        // What was missed while not listening: every waiter looks again.
                        self.signalAll()
                        for try await notification in notifications { self.signal(store: StoreID(notification.payload)) }
                    }
                    attempt.ended(nil)
                } catch {
                    attempt.ended(error)
                }
            }
            while !Task.isCancelled, !attempt.isOver {
                try? await Task.sleep(for: .milliseconds(500))
            }
            task.cancel()
            attempt.close()
            if Task.isCancelled { return }
            if attempt.didListen { quiet = false }
            if !quiet {
                logger.warning("not listening for settings changes; long polls look every second until it listens again",
                               metadata: ["error": "\(attempt.error)"])
                quiet = true
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Tells every hub process that `store`'s settings changed, when the caller's transaction commits.
    static func notify(store: StoreID, _ connection: PostgresConnection, _ logger: Logger) async throws {
        _ = try await connection.all("SELECT pg_notify(\(channel), \(store))::text", as: String.self, logger)
    }

    /// A totem's long poll on `store`: `answer()` once `ready()` says there is news, else
    /// once `wait` seconds passed (or the hub is stopping: the totem asks again, of whichever
    /// hub serves next). Woken by the store's signals, and looking every second by itself;
    /// the hub holds no state between polls.
    func longPoll<T: Sendable>(store: StoreID, wait: Double, ready: () async throws -> Bool, answer: () async throws -> T)
        async throws -> T {
        let until = ContinuousClock.now + .milliseconds(Int(wait * 1000))
        while true {
            // Registered before looking, so that a change committed meanwhile wakes it.
            let waiter = waiter(for: store)
            defer { waiter.done() }
            if try await ready() || ContinuousClock.now >= until || Task.isShuttingDownGracefully { return try await answer() }
            await waiter.wait(upTo: min(.seconds(1), until - ContinuousClock.now))
            try Task.checkCancellation()
        }
    }
}

/// One attempt at listening, as its watcher sees it: over once it ended, or once its
/// connection closed under it.
private final class ListenAttempt: Sendable {
    private let state = Mutex<(connection: PostgresConnection?, listened: Bool, ended: Bool, error: String)>(
        (nil, false, false, "connection closed"))

    func started(on connection: PostgresConnection) { state.withLock { $0.connection = connection } }
    func listening() { state.withLock { $0.listened = true } }
    var didListen: Bool { state.withLock { $0.listened } }

    func ended(_ error: (any Error)?) {
        state.withLock {
            $0.ended = true
            if let error { $0.error = String(String(reflecting: error).prefix(500)) }
        }
    }

    var isOver: Bool { state.withLock { $0.ended || $0.connection?.isClosed == true } }

    /// Closes the attempt's connection if it is still open (not waiting for PostgreSQL's goodbye).
    func close() {
        guard let connection = state.withLock({ $0.connection }), !connection.isClosed else { return }
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }  // a connection must be closed before it goes
    }
    var error: String { state.withLock { $0.error } }
}

/// The hub's service that listens for settings changes (`SettingsSignals.listen`) from once
/// the database's pool runs until the hub's graceful shutdown.
struct SettingsListener: Service {
    let signals: SettingsSignals
    let database: HubDatabase
    let logger: Logger

    func run() async {
        await database.running()
        await cancelWhenGracefulShutdown { [signals, database, logger] in await signals.listen(on: database, logger: logger) }
    }
}
