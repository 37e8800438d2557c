import CLupConfig

/// `[screen]`: the touch screen's size and how long screens stay.
public struct ScreenSettings: ConfigTable {
    public static let table = "screen"
    public static let doc = "The touch screen."

    public var width = 720
    public var height = 1280
    /// The panel's visible size in millimetres (a 10.1-inch panel, 9:16, by default): touch
    /// targets are checked against it.
    public var widthMM = 125.8
    public var heightMM = 223.6
    /// How far the customer's eyes are from the panel: large text is sized for it (a
    /// capital H of at least 0.7°, EN 301 549 5.1.4).
    public var viewingDistanceMM = 500.0
    public var idleTimeoutSeconds = 30.0
    /// "Are you still there?" shows this long before the totem gives up on a customer or an
    /// employee's session (EN 301 549 11.2.2.1 asks at least 20 s to answer).
    public var timeoutWarningSeconds = 20.0
    /// How long the "take your ticket" or error screen stays before the welcome screen.
    public var resultSeconds = 8.0
    /// A called ticket is said aloud again this often until it reaches the door.
    public var callRepeatSeconds = 30.0
    /// An employee's session at the PIN pad ends after this long untouched.
    public var staffSessionSeconds = 30.0
    /// After `PadLock.maximumFailures` wrong PINs in a row the pad stays locked this long.
    public var pinLockSeconds = 300.0

    public init() {}

    public static let keys: [ConfigKey<ScreenSettings>] = [
        .integer("width", \.width, in: 240...7680, doc: "display pixels"),
        .integer("height", \.height, in: 240...7680, doc: "display pixels"),
        .number("width_mm", \.widthMM, what: "millimetres", accepts: { (20...2000).contains($0) },
                refusal: { "\($0) mm is out of range 20...2000" }, doc: "the panel's visible width, millimetres"),
        .number("height_mm", \.heightMM, what: "millimetres", accepts: { (20...2000).contains($0) },
                refusal: { "\($0) mm is out of range 20...2000" }, doc: "the panel's visible height, millimetres"),
        .number("viewing_distance_mm", \.viewingDistanceMM, what: "millimetres", accepts: { (250...1500).contains($0) },
                refusal: { "\($0) mm is out of range 250...1500" },
                doc: "from the customer's eyes to the panel: large text's capital H is at least 0.7° from there"),
        .seconds("idle_timeout_seconds", \.idleTimeoutSeconds, doc: "nobody present and no touch: the screen sleeps"),
        .number("timeout_warning_seconds", \.timeoutWarningSeconds, what: "a number of seconds", accepts: { (1...600).contains($0) },
                refusal: { "\($0) s is out of range 1...600" },
                doc: "\"are you still there?\" is shown and said this long before a timeout (EN 301 549 asks at least 20)"),
        .seconds("result_seconds", \.resultSeconds, doc: "\"take your ticket\" or error screen, then back to welcome"),
        .seconds("call_repeat_seconds", \.callRepeatSeconds, doc: "a called ticket is said aloud again this often until it reaches the door"),
        .number("staff_session_seconds", \.staffSessionSeconds, what: "a number of seconds", accepts: { (5...300).contains($0) },
                refusal: { "\($0) s is out of range 5...300" }, doc: "an employee's session at the PIN pad ends after this long untouched"),
        .number("pin_lock_seconds", \.pinLockSeconds, what: "a number of seconds", accepts: { (10...86_400).contains($0) },
                refusal: { "\($0) s is out of range 10...86400" }, doc: "5 wrong PINs in a row lock the PIN pad this long"),
    ]
}
