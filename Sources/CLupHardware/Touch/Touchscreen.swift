import CLupCore

/// The touch panel in front of the display.
///
/// Implementations call `onGesture` on the daemon's event loop, in panel coordinates
/// normalised to 0...1 and already calibrated to the display.
public protocol Touchscreen: AnyObject {
    var health: DeviceHealth { get }
    var onGesture: ((TouchGesture) -> Void)? { get set }
    /// Called when the panel goes away or comes back (`health` changed), so nobody needs to
    /// look every so often.
    var onHealthChange: (() -> Void)? { get set }
    /// libinput's matrix from the panel's raw coordinates to the display's; set to the
    /// identity while `clupctl calibrate` reads raw touches, then to what it found.
    var calibration: CalibrationMatrix { get set }
}
