/// How far the picture is turned, clockwise, on its way to the panel: a landscape panel
/// mounted upright (portrait) shows its screens turned by 90 or 270 degrees. The screens are
/// laid out at the turned size; the pixels are turned as they are copied to the panel.
public enum DisplayRotation: Int, Sendable, CaseIterable {
    case none = 0
    case quarter = 90
    case half = 180
    case threeQuarters = 270

    /// The size the screens are drawn at for a panel of `width` × `height` pixels.
    public func drawnSize(width: Int, height: Int) -> (width: Int, height: Int) {
        self == .quarter || self == .threeQuarters ? (height, width) : (width, height)
    }

    /// A panel's size in millimetres as the turned picture sees it.
    public func turned(_ size: (width: Double, height: Double)?) -> (width: Double, height: Double)? {
        self == .quarter || self == .threeQuarters ? size.map { ($0.height, $0.width) } : size
    }

    /// The pixel of a drawn picture of `width` × `height` (the turned size) that lands at the
    /// panel's (`x`, `y`).
    @inline(__always)
    func source(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        switch self {
        case .none: (x, y)
        case .quarter: (y, height - 1 - x)
        case .half: (width - 1 - x, height - 1 - y)
        case .threeQuarters: (width - 1 - y, x)
        }
    }
}
