import CLupCore

/// A presence sensor driven by `clupctl sim approach` / `sim leave`.
public final class SimulatedPresenceSensor: PresenceSensor {
    public var onChange: ((Bool) -> Void)?
    public private(set) var isPresent = false

    public init() {}

    public var health: DeviceHealth {
        DeviceHealth(role: "presence", backend: "simulated", state: .ok,
                     detail: isPresent ? "someone present" : "nobody")
    }

    /// Someone arrives (`true`) or leaves (`false`); whether that is a change to report
    /// (a real sensor reports edges, not levels).
    public func set(present: Bool) -> Bool {
        guard present != isPresent else { return false }
        isPresent = present
        return true
    }
}
