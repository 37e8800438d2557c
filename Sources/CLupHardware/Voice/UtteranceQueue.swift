import Foundation
import Synchronization

/// What both voices share: utterances are synthesised and played one at a time on a
/// worker queue, so the event loop never waits for espeak-ng or a sound card, and each new
/// `say` or `silence()` makes the utterance playing stop (it checks `isCurrent` as it goes).
final class UtteranceQueue: Sendable {
    private let queue: DispatchQueue
    /// Bumped by every new utterance and every silence; only the latest may be heard.
    private let generation = Mutex(0)

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Queues `play`, which is given its turn's number to check with `isCurrent`.
    func enqueue(_ play: @escaping @Sendable (_ turn: Int) -> Void) {
        let turn = generation.withLock { generation in
            generation += 1
            return generation
        }
        queue.async { play(turn) }
    }

    /// Stops the utterance playing, and those queued.
    func silence() {
        generation.withLock { $0 += 1 }
    }

    /// Whether `turn` is still the latest: no newer utterance or silence came since.
    func isCurrent(_ turn: Int) -> Bool {
        generation.withLock { $0 == turn }
    }

    /// Runs `work` on the worker queue, after what is queued.
    func async(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    /// Returns when everything queued so far has been played or dropped.
    func waitUntilIdle() {
        queue.sync {}
    }
}
