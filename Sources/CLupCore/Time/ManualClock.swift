import Foundation
import Synchronization

/// A clock that moves only when told to: for tests and for replaying a day, so that timers
/// and windows can be checked without time passing. Both readings move together unless
/// `stepWall` changes the wall clock alone, as NTP or an operator does.
public final class ManualClock: Clock {
    private let readings: Mutex<(wall: Date, monotonic: Double)>
    public let boot: String

    public init(wall: Date = Date(timeIntervalSince1970: 1_790_000_000), monotonic: Double = 1000, boot: String = "manual") {
        readings = Mutex((wall, monotonic))
        self.boot = boot
    }

    public func now() -> Date { readings.withLock { $0.wall } }

    public func monotonic() -> Double { readings.withLock { $0.monotonic } }

    /// Lets `seconds` pass on both clocks.
    public func advance(_ seconds: Double) {
        readings.withLock { readings in
            readings.wall = readings.wall.addingTimeInterval(seconds)
            readings.monotonic += seconds
        }
    }

    /// Sets the wall clock by `seconds` (either way) without time passing.
    public func stepWall(_ seconds: Double) {
        readings.withLock { $0.wall = $0.wall.addingTimeInterval(seconds) }
    }
}
