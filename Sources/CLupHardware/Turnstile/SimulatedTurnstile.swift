import CLupCore

/// A turnstile driven by `clupctl sim pass in|out`.
public final class SimulatedTurnstile: Turnstile {
    public var onPassage: ((PassageDirection) -> Void)?
    /// How many times the kiosk unlocked it.
    public private(set) var releases = 0

    public init() {}

    public var health: DeviceHealth {
        DeviceHealth(role: "turnstile", backend: "simulated", state: .ok, detail: "\(releases) releases")
    }

    public func release() throws {
        releases += 1
    }

}
