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
    public var idleTimeoutSeconds = 30.0
    /// How long the "take your ticket" or error screen stays before the welcome screen.
    public var resultSeconds = 8.0
    /// A called ticket is said aloud again this often until it reaches the door.
    public var callRepeatSeconds = 30.0

    public init() {}

    public static let keys: [ConfigKey<ScreenSettings>] = [
        .integer("width", \.width, in: 240...7680, doc: "display pixels"),
        .integer("height", \.height, in: 240...7680, doc: "display pixels"),
        .number("width_mm", \.widthMM, what: "millimetres", accepts: { (20...2000).contains($0) },
                refusal: { "\($0) mm is out of range 20...2000" }, doc: "the panel's visible width, millimetres"),
        .number("height_mm", \.heightMM, what: "millimetres", accepts: { (20...2000).contains($0) },
                refusal: { "\($0) mm is out of range 20...2000" }, doc: "the panel's visible height, millimetres"),
        .seconds("idle_timeout_seconds", \.idleTimeoutSeconds, doc: "nobody present and no touch: the screen sleeps"),
        .seconds("result_seconds", \.resultSeconds, doc: "\"take your ticket\" or error screen, then back to welcome"),
        .seconds("call_repeat_seconds", \.callRepeatSeconds, doc: "a called ticket is said aloud again this often until it reaches the door"),
    ]
}
