/// Near/far with hysteresis for a proximity sensor's raw readings: someone is present from
/// a reading at or above `near` until one at or below `far`, so a value hovering at one
/// threshold does not wake and sleep the screen over and over.
public struct ProximityHysteresis: Sendable, Equatable {
    public let near: Int
    public let far: Int
    public private(set) var present = false

    public init(near: Int, far: Int) {
        self.near = near
        self.far = min(far, near)
    }

    /// Takes one reading; returns the new state when it changed.
    public mutating func reading(_ value: Int) -> Bool? {
        if !present && value >= near {
            present = true
            return true
        }
        if present && value <= far {
            present = false
            return false
        }
        return nil
    }
}
