import CLupCore

/// Turns finished contacts into gestures, stage by stage: normalise with the axis ranges,
/// calibrate, drop ghosts, classify (tap, long press, drag).
public struct TouchPipeline: Sendable {
    public let xRange: AxisRange
    public let yRange: AxisRange
    public var calibration: CalibrationMatrix
    /// Contacts shorter than this are ghosts (cheap panels' electrical noise), in ms.
    public var ghostMilliseconds: Double
    /// Held at least this long without moving is a long press, in ms.
    public var longPressMilliseconds: Double
    /// Moving more than this (in panel fractions) is a drag.
    public var dragDistance: Double

    /// Held at least this long (ms) is a long press, unless `longPressMilliseconds` says otherwise.
    public static let defaultLongPressMilliseconds: Double = 600

    public init(xRange: AxisRange, yRange: AxisRange, calibration: CalibrationMatrix = .identity,
                ghostMilliseconds: Double = 10, longPressMilliseconds: Double = defaultLongPressMilliseconds,
                dragDistance: Double = 0.03) {
        self.xRange = xRange
        self.yRange = yRange
        self.calibration = calibration
        self.ghostMilliseconds = ghostMilliseconds
        self.longPressMilliseconds = longPressMilliseconds
        self.dragDistance = dragDistance
    }

    /// The pipeline for a device with `axes`: multitouch positions if it has them.
    public init?(axes: [UInt16: AxisRange], calibration: CalibrationMatrix = .identity) {
        let mt = axes[EventCode.positionX] != nil
        guard let x = axes[mt ? EventCode.positionX : EventCode.x], let y = axes[mt ? EventCode.positionY : EventCode.y]
        else { return nil }
        self.init(xRange: x, yRange: y, calibration: calibration)
    }

    /// The gesture a finished contact made, or nil for a ghost or a cancelled contact.
    public func gesture(for contact: Contact) -> TouchGesture? {
        guard !contact.cancelled else { return nil }
        let milliseconds = (contact.endTime - contact.startTime) * 1000
        guard milliseconds >= ghostMilliseconds else { return nil }
        let (x0, y0) = calibration.apply(x: xRange.normalise(contact.startX), y: yRange.normalise(contact.startY))
        let (x1, y1) = calibration.apply(x: xRange.normalise(contact.endX), y: yRange.normalise(contact.endY))
        // How far the finger went, not where it ended: a drag up and back down is a drag.
        let width = xRange.normalise(contact.maxX) - xRange.normalise(contact.minX)
        let height = yRange.normalise(contact.maxY) - yRange.normalise(contact.minY)
        let moved = (width * width + height * height).squareRoot()
        let kind: TouchGesture.Kind = moved > dragDistance ? .drag
            : milliseconds >= longPressMilliseconds ? .longPress : .tap
        // A panel's clock is whatever it sends: a garbled timestamp must not overflow Int.
        let duration = Int(min(milliseconds, Double(Int32.max)).rounded())
        return TouchGesture(kind: kind, x0: x0, y0: y0, x1: x1, y1: y1, milliseconds: duration)
    }
}
