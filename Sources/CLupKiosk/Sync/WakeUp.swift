import NIOCore
import Synchronization

/// What a task of the hub link waits on between rounds: up to a time, or until `signal()`
/// (from any thread) ends the wait. A signal that comes while nothing waits ends the next
/// wait at once, so none is lost. The hub client's event loop keeps the time: no thread is
/// held while a task waits.
final class WakeUp: Sendable {
    private let loop: any NIOCore.EventLoop
    private let state = Mutex<State>(.idle)

    private enum State {
        case idle
        /// Signalled while nothing waited: the next wait ends at once.
        case signalled
        /// A task waits for `promise`, which `timer` completes when the time is up.
        case waiting(EventLoopPromise<Void>, Scheduled<Void>)
    }

    /// The longest wait asked for is a day; a longer one is cut to that (and one that is no number, to none).
    static let longestWait = 86_400.0

    init(on loop: any NIOCore.EventLoop) {
        self.loop = loop
    }

    /// Whether a task waits now.
    var hasWaiter: Bool {
        state.withLock { if case .waiting = $0 { true } else { false } }
    }

    /// Ends the current wait, or the next one if none is waiting.
    func signal() {
        let ended: (EventLoopPromise<Void>, Scheduled<Void>)? = state.withLock { state in
            guard case let .waiting(promise, timer) = state else {
                state = .signalled
                return nil
            }
            state = .idle
            return (promise, timer)
        }
        guard let (promise, timer) = ended else { return }
        timer.cancel()
        promise.succeed()
    }

    /// Returns after `seconds`, or sooner when signalled. One task waits at a time.
    func wait(upTo seconds: Double) async {
        let promise = loop.makePromise(of: Void.self)
        let bounded = seconds.isNaN ? 0 : min(max(seconds, 0), Self.longestWait)
        let nanoseconds = Int64((bounded * 1e9).rounded())
        let alreadySignalled = state.withLock { state -> Bool in
            if case .signalled = state {
                state = .idle
                return true
            }
            let timer = loop.scheduleTask(in: .nanoseconds(nanoseconds)) { [self] in timeUp(promise) }
            state = .waiting(promise, timer)
            return false
        }
        if alreadySignalled { promise.succeed() }
        try? await promise.futureResult.get()
    }

    /// The time of the wait for `promise` is up, unless a signal ended it first.
    private func timeUp(_ promise: EventLoopPromise<Void>) {
        let ours = state.withLock { state -> Bool in
            guard case let .waiting(current, _) = state, current.futureResult === promise.futureResult else { return false }
            state = .idle
            return true
        }
        if ours { promise.succeed() }
    }
}
