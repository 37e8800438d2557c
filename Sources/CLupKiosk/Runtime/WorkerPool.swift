import Foundation
import Synchronization

/// A fixed set of long-lived worker threads for the loop's slow work (laying out a ticket,
/// a request to cupsd, encoding a PNG). Jobs run in the order they were given; none of them
/// waits on another: anything that takes a while (a print job to finish) is a timer on the
/// loop and a short job per look, never a worker held.
final class WorkerPool: Sendable {
    private let queue = Mutex<(jobs: [@Sendable () -> Void], stopping: Bool)>(([], false))
    private let available = DispatchSemaphore(value: 0)
    let size: Int

    /// `size` threads named `name-N`. A `niceness` above 0 lowers their priority (Linux's
    /// nice value is each thread's own): when the cores are busy, the other threads' work
    /// goes first. clupd runs unprivileged, so a pool's priority is lowered once, at its
    /// start, and never raised back.
    init(size: Int, name: String = "clupd-worker", niceness: Int32 = 0) {
        self.size = size
        for index in 0..<size {
            let thread = Thread { [self] in
                // Who 0 is the calling thread under Linux's threads, not the whole process.
                if niceness > 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
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
