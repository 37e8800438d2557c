/// One `struct input_event` from the kernel: a timestamp, a type, a code and a value.
public struct InputEvent: Hashable, Sendable {
    /// Seconds, from the event's `timeval`.
    public let time: Double
    public let type: UInt16
    public let code: UInt16
    public let value: Int32

    public init(time: Double, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }
}

/// The event types and codes the decoders use (`linux/input-event-codes.h`).
public enum EventCode {
    public static let synchronization: UInt16 = 0x00   // EV_SYN
    public static let key: UInt16 = 0x01               // EV_KEY
    public static let absolute: UInt16 = 0x03          // EV_ABS
    public static let switchEvent: UInt16 = 0x05       // EV_SW

    public static let report: UInt16 = 0               // SYN_REPORT
    public static let multitouchReport: UInt16 = 2     // SYN_MT_REPORT (protocol A)
    public static let dropped: UInt16 = 3              // SYN_DROPPED

    public static let x: UInt16 = 0x00                 // ABS_X
    public static let y: UInt16 = 0x01                 // ABS_Y
    public static let slot: UInt16 = 0x2F              // ABS_MT_SLOT
    public static let positionX: UInt16 = 0x35         // ABS_MT_POSITION_X
    public static let positionY: UInt16 = 0x36         // ABS_MT_POSITION_Y
    public static let trackingID: UInt16 = 0x39        // ABS_MT_TRACKING_ID

    public static let touch: UInt16 = 0x14A            // BTN_TOUCH
    /// A single-touch panel in mouse emulation (and qemu's usb-tablet) presses the left
    /// button for a contact.
    public static let leftButton: UInt16 = 0x110       // BTN_LEFT
    public static let frontProximity: UInt16 = 0x0B    // SW_FRONT_PROXIMITY
    public static let headphoneInsert: UInt16 = 0x02   // SW_HEADPHONE_INSERT
}

/// The range of one absolute axis, as `EVIOCGABS` or an evemu `A:` line gives it.
public struct AxisRange: Hashable, Sendable {
    public let minimum: Int32
    public let maximum: Int32

    public init(minimum: Int32, maximum: Int32) {
        self.minimum = minimum
        self.maximum = maximum
    }

    /// `value` mapped to 0...1 (clamped: panels report a little outside their range).
    public func normalise(_ value: Int32) -> Double {
        guard maximum > minimum else { return 0 }
        return min(1, max(0, Double(value - minimum) / Double(maximum - minimum)))
    }
}
