/// Turns the edges of one turnstile line (a relay contact on a GPIO line or an evdev key)
/// into passages: a pulse counts when the line was active for at least `minimumPulse`
/// seconds, and pulses within `lockout` seconds after a counted one are the relay
/// bouncing, not another person. Uses the kernel's timestamps of the edges.
public struct PulseDebouncer: Sendable {
    public let minimumPulse: Double
    public let lockout: Double
    private var activeSince: Double?
    private var lastPassage: Double?

    public init(minimumPulse: Double = 0.03, lockout: Double = 0.3) {
        self.minimumPulse = minimumPulse
        self.lockout = lockout
    }

    /// The line changed to `active` at `time`; true when that completed a passage.
    public mutating func edge(active: Bool, at time: Double) -> Bool {
        if active {
            if activeSince == nil { activeSince = time }
            return false
        }
        guard let since = activeSince else { return false }
        activeSince = nil
        guard time - since >= minimumPulse else { return false }
        if let lastPassage, since - lastPassage < lockout { return false }
        lastPassage = time
        return true
    }
}
