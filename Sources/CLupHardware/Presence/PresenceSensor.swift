import CLupCore

/// Tells whether someone stands in front of the totem.
///
/// Implementations call `onChange` on the daemon's event loop.
public protocol PresenceSensor: AnyObject {
    var health: DeviceHealth { get }
    /// Called with `true` when someone arrives and `false` when they leave.
    var onChange: ((Bool) -> Void)? { get set }
}
