import Foundation
import Synchronization

/// A fixed set of long-lived worker threads for the loop's slow work (laying out a ticket,
/// a request to cupsd, drawing a frame). Jobs run in the order they were given; none of them
/// waits on another: anything that takes a while (a print job to finish) is a timer on the
/// loop and a short job per look, never a worker held.
final class WorkerPool: Sendable {
    private let queue = Mutex<(jobs: [@Sendable () -> Void], stopping: Bool)>(([], false))
    private let available = DispatchSemaphore(value: 0)
    let size: Int

    /// `size` threads named `name-N`. A `niceness` above 0 lowers their priority by that
    /// much below the daemon's (Linux's nice value is each thread's own): when the cores are
    /// busy, the other threads' work goes first. clupd runs unprivileged, so a pool's
    /// priority is lowered once, at its start, and never raised back. Refused (a daemon
    /// already at nice 19, a system-call filter without `setpriority`), the pool runs at
    /// the daemon's priority: the same work, only no longer behind the rest.
    init(size: Int, name: String = "clupd-worker", niceness: Int32 = 0) {
        self.size = size
        for index in 0..<size {
            let thread = Thread { [self] in
                if niceness > 0 { Self.lowerPriority(by: niceness) }
                work()
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Runs `job` on one of the workers.
    func run(_ job: @escaping @Sendable () -> Void) {
        queue.withLock { $0.jobs.append(job) }
        available.signal()
    }

    /// Lets the workers finish the jobs given so far, then end.
    func stop() {
        queue.withLock { $0.stopping = true }
        for _ in 0..<size { available.signal() }
    }

    /// Lowers the calling thread's priority by `steps` (who 0 is the calling thread under
    /// Linux's threads, not the whole process); getpriority returns -1 for nice -1 too,
    /// so errno tells a failure.
    private static func lowerPriority(by steps: Int32) {
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        errno = 0
        let own = getpriority(which, 0)
        guard errno == 0 else { return }
        _ = setpriority(which, 0, min(19, own + steps))
    }

    private func work() {
        while true {
            available.wait()
            let next: (@Sendable () -> Void)? = queue.withLock { state in
                state.jobs.isEmpty ? nil : state.jobs.removeFirst()
            }
            if let next {
                next()
            } else if queue.withLock({ $0.stopping }) {
                return
            }
        }
    }
}
