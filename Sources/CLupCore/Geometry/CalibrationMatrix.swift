/// The 6 numbers of libinput's `LIBINPUT_CALIBRATION_MATRIX`, applied to normalised
/// coordinates: x' = a·x + b·y + c, y' = d·x + e·y + f. Rotation and mirroring are matrices too.
///
/// The numbers are stored and written in libinput's order, [a, b, c, d, e, f]: the first two
/// rows of the 3×3 matrix, row by row.
public struct CalibrationMatrix: Hashable, Sendable {
    public let a, b, c, d, e, f: Double

    /// The matrix of `values`, in libinput's order; the identity unless there are exactly 6.
    public init(_ values: [Double]) {
        let v = values.count == 6 ? values : [1, 0, 0, 0, 1, 0]
        (a, b, c, d, e, f) = (v[0], v[1], v[2], v[3], v[4], v[5])
    }

    /// The 6 numbers in libinput's order, as `init(_:)` takes them and the configuration writes them.
    public var values: [Double] { [a, b, c, d, e, f] }

    public static let identity = CalibrationMatrix([1, 0, 0, 0, 1, 0])
    /// x' = y, y' = 1 − x: as a libinput matrix this is libinput's "270° clockwise" rotation
    /// (its "90° clockwise" is [0, −1, 1, 1, 0, 0]). It is the correction for a panel whose
    /// axes are turned 90° counter-clockwise from the picture's (its corner (0, 0) at the
    /// picture's bottom left), which is how a panel looks when the picture is turned 90°
    /// clockwise on it (xrandr's `--rotate right`). A touch panel itself mounted turned 90°
    /// clockwise on a picture left as it was needs libinput's 90° matrix instead.
    public static let rotated90 = CalibrationMatrix([0, 1, 0, -1, 0, 1])

    /// Where the normalised touch (`x`, `y`) lands, clamped to the panel (0...1 on each axis).
    public func apply(x: Double, y: Double) -> (Double, Double) {
        (min(1, max(0, a * x + b * y + c)), min(1, max(0, d * x + e * y + f)))
    }
}
