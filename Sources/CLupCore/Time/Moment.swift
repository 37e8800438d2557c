import Foundation

/// A reading of the monotonic clock, and the boot it belongs to. Two readings of one boot
/// measure a duration that no step of the wall clock changes (a totem without a battery
/// clock boots offline at some wrong time, then NTP or an operator sets it right).
public struct SteadyTime: Hashable, Codable, Sendable {
    /// The kernel's boot id: the monotonic clock starts again at every boot.
    public let boot: String
    /// Seconds on the monotonic clock.
    public let seconds: Double

    public init(boot: String, seconds: Double) {
        self.boot = boot
        self.seconds = seconds
    }
}

/// A moment as both clocks read it: the wall clock for people, the business day and what
/// the hub is told; the monotonic clock for how long something has lasted.
public struct Moment: Hashable, Sendable {
    public let wall: Date
    /// nil when no monotonic reading goes with it (events stored by an earlier version).
    public let steady: SteadyTime?
    /// The wall clock minus the hub's, as the totem's sync last measured it; nil before it
    /// has (a totem never enrolled, or not yet heard back from its hub).
    public let hubOffset: Double?

    public init(wall: Date, steady: SteadyTime? = nil, hubOffset: Double? = nil) {
        self.wall = wall
        self.steady = steady
        self.hubOffset = hubOffset
    }

    /// The same moment with the offset to the hub's clock that the sync measured.
    public func with(hubOffset offset: Double?) -> Moment {
        Moment(wall: wall, steady: steady, hubOffset: offset.flatMap { $0.isFinite ? $0 : nil })
    }

    /// The moment as the hub's clock reads it (the wall clock's, while the offset is unknown):
    /// when a place in the line was taken (`LineOrder`).
    public var onHubClock: Date { wall.addingTimeInterval(-(hubOffset ?? 0)) }

    /// Seconds since the moment `(wall, steady)`: on the monotonic clock when both were read
    /// in the same boot, else (after a reboot) on the wall clock, the only one left.
    public func seconds(since wall: Date, _ steady: SteadyTime?) -> Double {
        if let now = self.steady, let then = steady, now.boot == then.boot {
            return now.seconds - then.seconds
        }
        return self.wall.timeIntervalSince(wall)
    }
}
