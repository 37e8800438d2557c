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
}
