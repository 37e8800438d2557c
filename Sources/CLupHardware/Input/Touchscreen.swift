/// The touch panel in front of the display.
///
/// Implementations call `onGesture` on the daemon's event loop, in panel coordinates
/// normalised to 0...1 and already calibrated to the display.
public protocol Touchscreen: AnyObject {
    var health: DeviceHealth { get }
    var onGesture: ((TouchGesture) -> Void)? { get set }
}
