import Foundation

/// Estimates how long a new ticket will wait, from how fast people leave.
///
/// Little's law: with places full, one waiting person gets in per exit, so the wait of the
/// k-th person in line is about k mean exit intervals. The interval is smoothed
/// exponentially, so a burst of exits (a family leaving) does not swing the estimate.
public struct WaitEstimator: Hashable, Codable, Sendable {
    /// Weight of the newest interval in the smoothed mean.
    public static let smoothing = 0.3

    /// The smoothed time between two exits, once two exits have been seen.
    public private(set) var meanExitInterval: TimeInterval?
    public private(set) var lastExit: Date?
    public private(set) var lastExitSteady: SteadyTime?

    public init(meanExitInterval: TimeInterval? = nil, lastExit: Date? = nil, lastExitSteady: SteadyTime? = nil) {
        self.meanExitInterval = meanExitInterval
        self.lastExit = lastExit
        self.lastExitSteady = lastExitSteady
    }

    public mutating func recordExit(at instant: Moment) {
        if let lastExit {
            // Two pulses within a second are one crowd, not an infinite exit rate.
            let interval = max(1, instant.seconds(since: lastExit, lastExitSteady))
            meanExitInterval = meanExitInterval.map { Self.smoothing * interval + (1 - Self.smoothing) * $0 } ?? interval
        }
        lastExit = instant.wall
        lastExitSteady = instant.steady
    }

    /// The wait of someone with `ahead` people before them when `free` places are open now.
    public func estimate(ahead: Int, free: Int, occupied: Int, capacity: Int, defaultMinutes: Int) -> WaitEstimate {
        let needed = ahead.addingSaturating(1).subtractingSaturating(max(0, free))
        guard needed > 0 else { return WaitEstimate(low: 0, high: 0) }
        guard let meanExitInterval else { return WaitEstimate(low: defaultMinutes, high: defaultMinutes) }
        let minutes = Double(needed) * meanExitInterval / 60
        // Near capacity one slow exit delays everyone: say so with a range.
        if capacity > 0, Double(occupied) >= 0.9 * Double(capacity) {
            return WaitEstimate(low: Int(saturating: (minutes * 0.75).rounded(.down)), high: Int(saturating: (minutes * 1.5).rounded(.up)))
        }
        let rounded = max(1, Int(saturating: minutes.rounded()))
        return WaitEstimate(low: rounded, high: rounded)
    }
}

/// A wait in whole minutes, as one figure or a range.
public struct WaitEstimate: Hashable, Codable, Sendable, CustomStringConvertible {
    public let low: Int
    public let high: Int

    public init(low: Int, high: Int) {
        self.low = low
        self.high = max(low, high)
    }

    /// "now", "about 12 min" or "10–18 min".
    public var description: String {
        if high == 0 { return "now" }
        if low == high { return "about \(low) min" }
        return "\(low)–\(high) min"
    }
}
