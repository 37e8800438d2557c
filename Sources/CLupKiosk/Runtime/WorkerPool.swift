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

    init(size: Int) {
        self.size = size
        for index in 0..<size {
            let thread = Thread { [self] in work() }
            thread.name = "clupd-worker-\(index)"
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
