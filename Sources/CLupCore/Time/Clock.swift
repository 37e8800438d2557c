import Foundation

/// Where time comes from. Pure rules take instants as arguments; the shell reads them here.
public protocol Clock: Sendable {
    /// Wall-clock time, for people and statistics.
    func now() -> Date
    /// Monotonic seconds since an arbitrary origin, for durations and expiry.
    func monotonic() -> Double
    /// Which run of the monotonic clock `monotonic()` reads: it starts again at every boot.
    var boot: String { get }
}

extension Clock {
    /// Both clocks, read together.
    public func moment() -> Moment {
        Moment(wall: now(), steady: SteadyTime(boot: boot, seconds: monotonic()))
    }
}

/// The system's clocks.
public struct SystemClock: Clock {
    public init() {}

    public func now() -> Date { Date() }

    public func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    public var boot: String { Self.bootID }

    /// The kernel's id of this boot; where it cannot be read, one made up for this process,
    /// so readings are compared on the monotonic clock only within the process.
    static let bootID: String = {
        let text = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? ""
        let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return id.isEmpty ? "process-\(UUID().uuidString)" : id
    }()
}
