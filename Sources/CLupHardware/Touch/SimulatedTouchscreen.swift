import CLupCore
/// A touchscreen driven by `clupctl sim tap X Y`, with X and Y in display pixels: `tap`
/// makes the gesture a real panel's decoder would, and the caller hands it to the kiosk.
public final class SimulatedTouchscreen: Touchscreen {
    public var onGesture: ((TouchGesture) -> Void)?
    /// Never called: a simulated panel does not go away.
    public var onHealthChange: (() -> Void)?
    /// Kept, not applied: a simulated tap is already where it is on the picture.
    public var calibration = CalibrationMatrix.identity
    let width: Int
    let height: Int

    /// A panel covering a display of `width` × `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var health: DeviceHealth {
        DeviceHealth(role: "touchscreen", backend: "simulated", state: .ok, detail: "\(width)x\(height)")
    }

    /// Why a simulated touch was refused.
    public enum TouchError: Error, CodedErrorConvertible, Equatable {
        case offPanel(x: Int, y: Int, width: Int, height: Int)

        public var coded: CodedError {
            switch self {
            case let .offPanel(x, y, width, height):
                CodedError(.offThePanel, "(\(x), \(y)) is off the \(width)x\(height) panel")
            }
        }
    }

    /// The gesture of a short touch at pixel (`x`, `y`).
    public func tap(x: Int, y: Int) throws(TouchError) -> TouchGesture {
        try touch(x: x, y: y, milliseconds: 80)
    }

    /// The gesture of a touch held `milliseconds` at pixel (`x`, `y`): a tap, or a long
    /// press from the panel decoder's threshold (`TouchPipeline.defaultLongPressMilliseconds`) on.
    public func touch(x: Int, y: Int, milliseconds: Int) throws(TouchError) -> TouchGesture {
        guard (0..<width).contains(x), (0..<height).contains(y) else {
            throw .offPanel(x: x, y: y, width: width, height: height)
        }
        // The centre of the pixel, so normalising and scaling back lands on the same pixel.
        let nx = (Double(x) + 0.5) / Double(width)
        let ny = (Double(y) + 0.5) / Double(height)
        let kind: TouchGesture.Kind = Double(milliseconds) >= TouchPipeline.defaultLongPressMilliseconds ? .longPress : .tap
        return TouchGesture(kind: kind, x0: nx, y0: ny, x1: nx, y1: ny, milliseconds: milliseconds)
    }
}
