/// Turns a PIR sensor's output line into presence. Someone counts as there once the line
/// has been active for `settle` seconds (a spike from interference is not a person), and
/// as gone once it has been inactive for `hold` seconds (a PIR drops its output between
/// movements of someone who is still standing there). Works on the kernel's timestamps of
/// the edges; `evaluate(now:)` is asked again at `deadline`, since a level that merely
/// persists brings no further edge.
public struct PIRDebouncer: Sendable {
    public let settle: Double
    public let hold: Double
    public private(set) var present = false
    private var active = false
    private var since = -Double.infinity

    public init(settle: Double = 0.1, hold: Double = 3) {
        self.settle = settle
        self.hold = hold
    }

    /// The line is `active` since `time`.
    public mutating func level(_ active: Bool, since time: Double) {
        guard active != self.active else { return }
        self.active = active
        since = time
    }

    /// Whether presence changed by `now` (same clock as the edges): the new value, or nil.
    public mutating func evaluate(now: Double) -> Bool? {
        if active != present, let deadline, now >= deadline {
            present = active
            return present
        }
        return nil
    }

    /// Takes a batch of edges read late (the loop was busy): each is judged at its own
    /// time, so a spike whose two edges arrive together is still a spike; then everything
    /// at `now`. Returns the changes of presence, in order.
    public mutating func edges(_ edges: [GPIOEdge], now: Double) -> [Bool] {
        var changes: [Bool] = []
        for edge in edges {
            if let change = evaluate(now: edge.time) { changes.append(change) }
            level(edge.active, since: edge.time)
        }
        if let change = evaluate(now: now) { changes.append(change) }
        return changes
    }

    /// When `evaluate` may next report a change, if one is pending.
    public var deadline: Double? {
        guard active != present else { return nil }
        return since + (active ? settle : hold)
    }
}
