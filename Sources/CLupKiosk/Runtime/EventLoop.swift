import CLupCore
import CLupHardware
import Foundation
import Synchronization

/// The daemon's single thread of control: waits with poll(2) on file descriptors, timers and
/// results from worker threads, and runs their handlers one at a time.
///
/// Everything that touches the kiosk's state runs on this loop, so that state needs no
/// locks. Slow, blocking work (layout, cupsd) runs on a small fixed pool of workers through
/// `background`; the screens are drawn on a worker of their own at a lower priority
/// (`draw`), so that with the cores busy a ticket's layout and its send go first.
public final class EventLoop {
    /// A scheduled timer, for cancelling it.
    public struct TimerID: Hashable, Sendable {
        let value: Int
    }

    private struct Timer {
        let deadline: Deadline
        let handler: () -> Void
    }

    /// When a timer is due: so many seconds on, or when the wall clock shows a time.
    private enum Deadline {
        case monotonic(Double)
        case wall(Date)

        /// Seconds left when the clocks read `monotonic` and `wall` (0 or less: due).
        func secondsLeft(monotonic now: Double, wall: Date) -> Double {
            switch self {
            case let .monotonic(seconds): seconds - now
            case let .wall(date): date.timeIntervalSince(wall)
            }
        }
    }

    /// The longest poll(2) waits, whatever the timers say: a wall clock set forward (by NTP,
    /// or by hand) is noticed this late at worst, and the timers it passed run then.
    static let longestWait = 60.0

    private let clock: any Clock
    private var watches: [Int32: () -> Void] = [:]
    private var writeWatches: [Int32: () -> Void] = [:]
    private var timers: [TimerID: Timer] = [:]
    private var continuations: [Int: (any Sendable) -> Void] = [:]
    private var mailboxes: [Int: (any Sendable) -> Void] = [:]
    private var nextID = 0
    private var running = false
    private let wake = WakePipe()
    private let inbox = Inbox()
    private let workers: WorkerPool
    private let drawing: WorkerPool

    /// How much lower the drawing worker's priority is (nice 5: about a third of a
    /// worker's share of a core when both want it).
    static let drawingNiceness: Int32 = 5

    /// A loop reading `clock`, with `workers` threads for `background` work and one for `draw`.
    public init(clock: any Clock = SystemClock(), workers: Int = 2) {
        self.clock = clock
        self.workers = WorkerPool(size: workers)
        self.drawing = WorkerPool(size: 1, name: "clupd-drawing", niceness: Self.drawingNiceness)
        watch(wake.read) { [unowned self] in self.drainInbox() }
    }

    deinit {
        // Workers finish what they were given; the wake pipe stays open until they have.
        workers.stop()
        drawing.stop()
    }

    /// Calls `handler` on the loop whenever `fd` is readable (or hung up).
    public func watch(_ fd: Int32, handler: @escaping () -> Void) {
        watches[fd] = handler
    }

    /// Stops watching `fd` (for reading and writing); the caller closes it.
    public func unwatch(_ fd: Int32) {
        watches[fd] = nil
        writeWatches[fd] = nil
    }

    /// Calls `handler` on the loop whenever `fd` can take more bytes (or hung up), until
    /// `unwatchWritable`.
    public func watchWritable(_ fd: Int32, handler: @escaping () -> Void) {
        writeWatches[fd] = handler
    }

    public func unwatchWritable(_ fd: Int32) {
        writeWatches[fd] = nil
    }

    /// Calls `handler` on the loop once, `seconds` from now.
    @discardableResult
    public func schedule(after seconds: Double, handler: @escaping () -> Void) -> TimerID {
        let id = TimerID(value: takeID())
        timers[id] = Timer(deadline: .monotonic(clock.monotonic() + seconds), handler: handler)
        return id
    }

    /// Calls `handler` on the loop once, when the wall clock shows `date` or later: for what
    /// happens at a time of day (the store opening, a new business day), which a clock set
    /// meanwhile moves, as it does not move `schedule(after:)`.
    @discardableResult
    public func schedule(at date: Date, handler: @escaping () -> Void) -> TimerID {
        let id = TimerID(value: takeID())
        timers[id] = Timer(deadline: .wall(date), handler: handler)
        return id
    }

    public func cancel(_ timer: TimerID?) {
        if let timer { timers[timer] = nil }
    }

    /// Runs `work` on a worker, then `completion` with its result on the loop.
    public func background<Result: Sendable>(_ work: @escaping @Sendable () -> Result,
                                             then completion: @escaping (Result) -> Void) {
        run(work, on: workers, then: completion)
    }

    /// Draws a frame (`work`) on the drawing worker, then `completion` with it on the loop.
    /// A screen waits behind a ticket on its way to the printer, never the other way.
    public func draw<Result: Sendable>(_ work: @escaping @Sendable () -> Result,
                                       then completion: @escaping (Result) -> Void) {
        run(work, on: drawing, then: completion)
    }

    private func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result, on pool: WorkerPool,
                                       then completion: @escaping (Result) -> Void) {
        let id = takeID()
        continuations[id] = { value in completion(value as! Result) }
        let (wake, inbox) = (self.wake, self.inbox)
        pool.run {
            let result = work()
            inbox.results.withLock { $0.append((id, result)) }
            wake.wake()
        }
    }

    /// A value another thread hands the loop once (an answer from the network): `completion`
    /// runs on the loop with it. Nothing of the loop's, no worker either, waits meanwhile;
    /// until it comes the loop counts it as pending work (`hasPendingWork`).
    public func expect<Value: Sendable>(then completion: @escaping (Value) -> Void) -> Mailbox<Value> {
        let id = takeID()
        continuations[id] = { value in completion(value as! Value) }
        return Mailbox(id: id, pipe: wake, inbox: inbox)
    }

    /// A way for another thread to hand values to the loop: `handler` runs on the loop with
    /// each value sent, in the order sent.
    public func mailbox<Value: Sendable>(_ handler: @escaping (Value) -> Void) -> Mailbox<Value> {
        let id = takeID()
        mailboxes[id] = { value in handler(value as! Value) }
        return Mailbox(id: id, pipe: wake, inbox: inbox)
    }

    public struct Mailbox<Value: Sendable>: Sendable {
        fileprivate let id: Int
        fileprivate let pipe: WakePipe
        fileprivate let inbox: Inbox

        public func send(_ value: Value) {
            inbox.results.withLock { $0.append((id, value)) }
            pipe.wake()
        }
    }

    /// Whether background work has not come back yet (tests turn the loop until it has).
    public var hasPendingWork: Bool { !continuations.isEmpty }

    /// Wakes the loop from another thread, so it reads its clock again (a test that moves
    /// a `ManualClock` uses it: poll(2) waits in real time).
    public struct Waker: Sendable {
        let pipe: WakePipe

        public func wake() {
            pipe.wake()
        }
    }

    public var waker: Waker { Waker(pipe: wake) }

    /// Runs until `stop()`.
    public func run() {
        running = true
        while running { turn(waiting: true) }
    }

    /// Handles what is ready now (readable descriptors, due timers) without waiting, and
    /// returns: a test that moves a `ManualClock` steps the loop with it.
    public func turn() {
        turn(waiting: false)
    }

    private func turn(waiting: Bool) {
        var fds = Set(watches.keys).union(writeWatches.keys).sorted().map { fd in
            pollfd(fd: fd, events: Int16(watches[fd] == nil ? 0 : POLLIN) | Int16(writeWatches[fd] == nil ? 0 : POLLOUT),
                   revents: 0)
        }
        let timeout = waiting ? Int32(max(0, (min(Self.longestWait, secondsToNextTimer ?? Self.longestWait) * 1000).rounded(.up))) : 0
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        if ready < 0 && errno != EINTR {
            preconditionFailure("poll: \(systemError())")
        }
        let hangUp = Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)
        for entry in fds where entry.revents != 0 {
            // A handler run earlier in this pass may have stopped watching (or closed) it.
            if entry.revents & (Int16(POLLIN) | hangUp) != 0 { watches[entry.fd]?() }
            if entry.revents & (Int16(POLLOUT) | hangUp) != 0 { writeWatches[entry.fd]?() }
        }
        fireDueTimers()
    }

    /// Seconds until the next timer falls due (nil: none): how long the loop sleeps when
    /// nothing else happens.
    var secondsToNextTimer: Double? {
        let (monotonic, wall) = (clock.monotonic(), clock.now())
        return timers.values.map { $0.deadline.secondsLeft(monotonic: monotonic, wall: wall) }.min()
    }

    /// Makes `run()` return after the current handler.
    public func stop() {
        running = false
    }

    private func fireDueTimers() {
        let (monotonic, wall) = (clock.monotonic(), clock.now())
        let due = timers.map { (id: $0.key, timer: $0.value, left: $0.value.deadline.secondsLeft(monotonic: monotonic, wall: wall)) }
            .filter { $0.left <= 0 }.sorted { $0.left < $1.left }
        for (id, timer, _) in due {
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
            if let continuation = continuations.removeValue(forKey: id) {
                continuation(value)
            } else {
                mailboxes[id]?(value)
            }
        }
    }

    private func takeID() -> Int {
        nextID += 1
        return nextID
    }
}

/// The pipe that wakes the loop from other threads. The loop and each piece of work it gave
/// out hold it, and it is closed when the last of them is done: a worker finishing after
/// the loop is gone writes to a pipe still open, never to a closed (or reused) descriptor.
final class WakePipe: Sendable {
    let read: Int32
    let write: Int32

    init() {
        (read, write) = makeWakePipe()
    }

    deinit {
        close(read)
        close(write)
    }

    func wake() {
        var one: UInt8 = 1
        _ = Glibc.write(write, &one, 1)
    }
}

/// Results of worker threads waiting for the loop to pick them up.
fileprivate final class Inbox: Sendable {
    let results = Mutex<[(Int, any Sendable)]>([])
}

extension EventLoop: DeviceRunLoop {
    public func after(_ seconds: Double, run handler: @escaping () -> Void) {
        schedule(after: seconds, handler: handler)
    }
}
