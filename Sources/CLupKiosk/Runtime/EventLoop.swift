import CLupCore
import CLupHardware
import Foundation
import Synchronization

/// The daemon's single thread of control: waits with poll(2) on file descriptors, timers and
/// results from worker threads, and runs their handlers one at a time.
///
/// Everything that touches the kiosk's state runs on this loop, so that state needs no
/// locks. Slow, blocking work (printing) runs on a worker thread through `background`.
public final class EventLoop {
    /// A scheduled timer, for cancelling it.
    public struct TimerID: Hashable, Sendable {
        let value: Int
    }

    private struct Timer {
        let deadline: Double
        let handler: () -> Void
    }

    private let clock: any Clock
    private var watches: [Int32: () -> Void] = [:]
    private var timers: [TimerID: Timer] = [:]
    private var continuations: [Int: (any Sendable) -> Void] = [:]
    private var nextID = 0
    private var running = false
    private let wake: (read: Int32, write: Int32)
    private let inbox = Inbox()

    public init(clock: any Clock = SystemClock()) {
        self.clock = clock
        wake = makeWakePipe()
        watch(wake.read) { [unowned self] in self.drainInbox() }
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    /// Calls `handler` on the loop whenever `fd` is readable (or hung up).
    public func watch(_ fd: Int32, handler: @escaping () -> Void) {
        watches[fd] = handler
    }

    /// Stops watching `fd`; the caller closes it.
    public func unwatch(_ fd: Int32) {
        watches[fd] = nil
    }

    /// Calls `handler` on the loop once, `seconds` from now.
    @discardableResult
    public func schedule(after seconds: Double, handler: @escaping () -> Void) -> TimerID {
        let id = TimerID(value: takeID())
        timers[id] = Timer(deadline: clock.monotonic() + seconds, handler: handler)
        return id
    }

    public func cancel(_ timer: TimerID?) {
        if let timer { timers[timer] = nil }
    }

    /// Runs `work` on a worker thread, then `completion` with its result on the loop.
    public func background<Result: Sendable>(_ work: @escaping @Sendable () -> Result,
                                             then completion: @escaping (Result) -> Void) {
        let id = takeID()
        continuations[id] = { value in completion(value as! Result) }
        let wake = self.wake.write
        let inbox = self.inbox
        let thread = Thread {
            let result = work()
            inbox.results.withLock { $0.append((id, result)) }
            var one: UInt8 = 1
            _ = write(wake, &one, 1)
        }
        thread.start()
    }

    /// Runs until `stop()`.
    public func run() {
        running = true
        while running {
            var fds = watches.keys.sorted().map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let timeout = timers.values.map(\.deadline).min().map { deadline in
                Int32(max(0, min(60_000, ((deadline - clock.monotonic()) * 1000).rounded(.up))))
            } ?? 60_000
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 && errno != EINTR {
                preconditionFailure("poll: \(systemError())")
            }
            for entry in fds where entry.revents != 0 {
                watches[entry.fd]?()
            }
            fireDueTimers()
        }
    }

    /// Makes `run()` return after the current handler.
    public func stop() {
        running = false
    }

    private func fireDueTimers() {
        let now = clock.monotonic()
        let due = timers.filter { $0.value.deadline <= now }.sorted { $0.value.deadline < $1.value.deadline }
        for (id, timer) in due {
            // An earlier handler of this pass may have cancelled it.
            guard timers.removeValue(forKey: id) != nil else { continue }
            timer.handler()
        }
    }

    private func drainInbox() {
        var drained = [UInt8](repeating: 0, count: 256)
        while read(wake.read, &drained, drained.count) > 0 {}
        let results = inbox.results.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        for (id, value) in results {
            continuations.removeValue(forKey: id)?(value)
        }
    }

    private func takeID() -> Int {
        nextID += 1
        return nextID
    }
}

/// Results of worker threads waiting for the loop to pick them up.
private final class Inbox: Sendable {
    let results = Mutex<[(Int, any Sendable)]>([])
}

extension EventLoop: DeviceRunLoop {
    public func after(_ seconds: Double, run handler: @escaping () -> Void) {
        schedule(after: seconds, handler: handler)
    }
}
