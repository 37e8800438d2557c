/// A presence sensor driven by `clupctl sim approach` / `sim leave`.
public final class SimulatedPresenceSensor: PresenceSensor {
    public var onChange: ((Bool) -> Void)?
    public private(set) var isPresent = false

    public init() {}

    public var health: DeviceHealth {
        DeviceHealth(role: "presence", backend: "simulated", state: .ok,
                     detail: isPresent ? "someone present" : "nobody")
    }

    /// Someone arrives (`true`) or leaves (`false`); repeated states are not reported twice,
    /// as a real sensor reports edges, not levels.
    public func simulate(present: Bool) {
        guard present != isPresent else { return }
        isPresent = present
        onChange?(present)
    }
}
