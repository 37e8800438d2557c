import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Wakes a hub process's long polls when a store's settings get a new version: the
/// transaction that makes a version sends `NOTIFY clup_settings, '<store>'`, which
/// PostgreSQL delivers when it commits to every hub process listening, each on one
/// connection of its pool. A long poll still looks every second by itself, so a listener
/// that is reconnecting delays an answer by a second at most.
public final class SettingsSignals: Sendable {
    static let channel = "clup_settings"
    private let waiters = Mutex<(next: UInt64, byStore: [String: [UInt64: AsyncStream<Void>.Continuation]])>((0, [:]))

    public init() {}

    /// A waiter for `store`, registered now: a signal from here on wakes it.
    func waiter(for store: String) -> Waiter {
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

    func signal(store: String) {
        for continuation in waiters.withLock({ Array(($0.byStore[store] ?? [:]).values) }) { continuation.yield() }
    }

    func signalAll() {
        for continuation in waiters.withLock({ $0.byStore.values.flatMap(\.values) }) { continuation.yield() }
    }

    /// Listens until cancelled, on one connection of `client`'s pool, coming back after a
    /// second when the connection is lost.
    func listen(on client: PostgresClient, logger: Logger) async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        // What was missed while not listening: every waiter looks again.
                        self.signalAll()
                        for try await notification in notifications { self.signal(store: notification.payload) }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("not listening for settings changes; long polls look every second", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Tells every hub process that `store`'s settings changed, when the caller's transaction commits.
    static func notify(store: String, _ connection: PostgresConnection, _ logger: Logger) async throws {
        _ = try await connection.all("SELECT pg_notify(\(channel), \(store))::text", as: String.self, logger)
    }
}
