import Foundation

/// Where time comes from. Pure rules take instants as arguments; the shell reads them here.
public protocol Clock: Sendable {
    /// Wall-clock time, for people and statistics.
    func now() -> Date
    /// Monotonic seconds since an arbitrary origin, for durations and expiry.
    func monotonic() -> Double
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
}
