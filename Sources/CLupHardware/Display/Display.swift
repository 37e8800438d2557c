import CLupCore
import CLupDrawing

/// The screen the customer looks at.
public protocol Display: AnyObject {
    var health: DeviceHealth { get }
    var width: Int { get }
    var height: Int { get }
    /// Whether the panel is lit.
    var isAwake: Bool { get }
    /// Shows a frame drawn on a canvas of `width` × `height` pixels and lights the panel.
    func show(_ frame: Canvas) throws
    /// Darkens the panel to save power and the backlight.
    func sleep() throws
    var physicalSizeMM: (width: Double, height: Double)? { get }
    func noticeSizeChange() -> Bool
    /// Returns once what was shown is on the panel (a display that writes its frames on a
    /// queue of its own has written them): what clupd shows as it stops stays shown.
    func finishShowing()
    /// Called when the display comes or goes by itself (a connector plugged or unplugged),
    /// where the backend is told; the kiosk looks at every display's health anyway.
    var onHealthChange: (() -> Void)? { get set }
}

extension Display {
    /// The picture's size in millimetres, where the device tells it.
    public var physicalSizeMM: (width: Double, height: Double)? { nil }

    /// Looks whether the device changed its size (a new mode, another panel); true when it
    /// did, and `width` and `height` are the new size (screens are then laid out again).
    public func noticeSizeChange() -> Bool { false }

    public func finishShowing() {}

    public var onHealthChange: (() -> Void)? {
        get { nil }
        set {}
    }
}
