import CLupConfig
import CLupHardware

/// `[hardware]`: which device is which. Each device named here uses its Linux backend; the
/// others are simulated, unless `mode = "linux"` looks for them where the udev rules put
/// them. The keys are flat, as an installer writes them; `devices` is what they choose.
public struct HardwareSettings: ConfigTable {
    public static let table = "hardware"
    public static let doc = """
        The devices (hardware/WIRING.md). Each device named here uses its Linux backend; the others are
        simulated, unless mode = "linux", which looks for each device not named at its udev name
        (/dev/clup/…), the screen on the first DRM card (/dev/dri/card0, its first connected
        connector; else /dev/fb0) and the voice at ALSA "default".
        """

    /// How the devices not named are driven.
    public enum Mode: String, Sendable {
        case simulated
        case linux
    }

    public var mode = Mode.simulated
    public var display: String?
    public var displayFormat: FramebufferFormat?
    public var displayRotationDegrees = 0
    public var displayRotation: DisplayRotation { DisplayRotation(rawValue: displayRotationDegrees) ?? .none }
    public var callingDisplay: String?
    public var speaker: String?
    public var headset: String?
    public var headsetSpeaker: String?
    public var touchscreen: String?
    public var touchscreenAxes: String?
    public var calibration = [1.0, 0, 0, 0, 1, 0]
    /// `clupctl calibrate` saves a calibration only if no target is missed by more than this.
    public var calibrationMaxErrorMM = 3.0
    public var reader: String?
    public var readerLayout = "us"
    public var serialReader: String?
    public var presence: String?
    public var proximity: String?
    public var proximityNear = 200
    public var proximityFar = 150
    public var pir: GPIOLineSpec?
    public var pirActiveLow = false
    public var pirHold = 3.0
    public var turnstile: String?
    public var turnstileEntryKey = 183
    public var turnstileExitKey = 184
    public var turnstileEntryLine: GPIOLineSpec?
    public var turnstileExitLine: GPIOLineSpec?
    public var turnstileLinesActiveLow = false
    public var turnstileRelease: ReleaseLine.Target?
    public var turnstileReleaseActiveLow = false
    public var usbProfiles: String?
    public var printerPort: String?

    public init() {}

    public static let keys: [ConfigKey<HardwareSettings>] = [
        .parsed("mode", \.mode, doc: "\"simulated\" or \"linux\" (see above)", expected: "\"simulated\" or \"linux\"",
                parse: Mode.init(rawValue:), format: \.rawValue),
        .text("display", \.display,
              doc: "the screen: a DRM card, example: \"/dev/dri/card0\" (its first connected connector) or "
                  + "\"/dev/dri/card0:HDMI-A-1\" (one connector, as /sys/class/drm names it); or a framebuffer, \"/dev/fb0\""),
        .integer("display_rotation", \.displayRotationDegrees, in: 0...270,
                 doc: "degrees the picture is turned clockwise on the panel: 0, 90, 180 or 270 "
                     + "(a landscape panel mounted upright; turn the touch panel with calibration too)"),
        .optional("display_format", \.displayFormat,
                  doc: "only for a file standing in for a framebuffer: \"800x480 xrgb8888\" or \"480x320 rgb565\"",
                  expected: "\"WIDTHxHEIGHT xrgb8888\" or \"WIDTHxHEIGHT rgb565\"",
                  parse: FramebufferFormat.init(parsing:), format: { $0.configValue ?? $0.description }),
        .text("calling_display", \.callingDisplay,
              doc: "a second screen above the door showing the numbers called: a DRM connector, example: "
                  + "\"/dev/dri/card0:HDMI-A-2\", or a framebuffer, \"/dev/fb1\"; "
                  + "\"simulated\": PNG frames in STATE_DIR/calling-board/; none: no second screen"),
        .text("speaker", \.speaker, doc: "the voice's ALSA device, example: \"default\" or \"plughw:CARD=Device\""),
        .text("headset", \.headset,
              doc: "the headphone jack's evdev node (SW_HEADPHONE_INSERT), example: \"/dev/input/by-path/…-event\"; none: no jack"),
        .text("headset_speaker", \.headsetSpeaker,
              doc: "the headset output's ALSA device, where the codec does not switch by itself, example: \"plughw:CARD=PCH,DEV=1\""),
        .text("touchscreen", \.touchscreen, doc: "the touch panel's evdev node (grabbed), example: \"/dev/clup/touch\""),
        .path("touchscreen_axes", \.touchscreenAxes, doc: "an evemu .desc whose axis ranges replace the panel's own"),
        .numbers("calibration", \.calibration, count: 6, what: "libinput's calibration matrix",
                 doc: "libinput's calibration matrix; [0, 1, 0, -1, 0, 1] turns 90°; one saved by clupctl calibrate replaces it"),
        .number("calibration_max_error_mm", \.calibrationMaxErrorMM, what: "millimetres", accepts: { (0.5...50).contains($0) },
                refusal: { "\($0) mm is out of range 0.5...50" },
                doc: "clupctl calibrate saves a calibration only if it misses no target by more than this"),
        .text("reader", \.reader, doc: "the keyboard-wedge QR reader's evdev node, example: \"/dev/clup/reader\""),
        .parsed("reader_layout", \.readerLayout,
                doc: "the keyboard layout the scanner types in, as xkb names it: \"it\", \"fr\", \"es\", \"de\", \"us\", \"fr(oss)\"",
                expected: "a keyboard layout of xkb-data (\"it\", \"fr\", \"es\", \"de\", \"us\", or with a variant: \"fr(oss)\")",
                parse: { Keymap.named($0) == nil ? nil : $0 }, format: { $0 }),
        .text("serial_reader", \.serialReader, doc: "or a serial QR reader, example: \"/dev/serial/by-id/usb-…\""),
        .text("presence", \.presence, doc: "an evdev SW_FRONT_PROXIMITY switch, example: \"/dev/clup/presence\""),
        .text("proximity", \.proximity,
              doc: "or an IIO sensor, example: \"/sys/bus/iio/devices/iio:device0/in_proximity_raw\""),
        .integer("proximity_near", \.proximityNear, in: 0...1_000_000, doc: "raw reading from which someone is present…"),
        .integer("proximity_far", \.proximityFar, in: 0...1_000_000, doc: "…until a reading at or below this"),
        .optional("pir", \.pir, doc: "or a PIR on a GPIO line, example: \"gpiochip0:27\" or \"gpiochip0:PIR\"",
                  expected: "a GPIO line \"CHIP:LINE\" (e.g. \"gpiochip0:17\" or \"gpiochip0:PIR\")",
                  parse: GPIOLineSpec.init(parsing:), format: \.description),
        .flag("pir_active_low", \.pirActiveLow, doc: "true when the PIR pulls its line low"),
        .seconds("pir_hold", \.pirHold, doc: "seconds without movement before the person counts as gone"),
        .text("turnstile", \.turnstile, doc: "the turnstile's contacts as evdev keys, example: \"/dev/clup/turnstile\""),
        .integer("turnstile_entry_key", \.turnstileEntryKey, in: 1...767, doc: "the entry contact's key (183 is KEY_F13)"),
        .integer("turnstile_exit_key", \.turnstileExitKey, in: 1...767, doc: "the exit contact's key (184 is KEY_F14)"),
        .optional("turnstile_entry_line", \.turnstileEntryLine, doc: "or the contacts on GPIO lines, example: \"gpiochip0:5\"",
                  expected: "a GPIO line \"CHIP:LINE\"", parse: GPIOLineSpec.init(parsing:), format: \.description),
        .optional("turnstile_exit_line", \.turnstileExitLine, doc: "example: \"gpiochip0:6\"",
                  expected: "a GPIO line \"CHIP:LINE\"", parse: GPIOLineSpec.init(parsing:), format: \.description),
        .flag("turnstile_lines_active_low", \.turnstileLinesActiveLow, doc: "true when a contact pulls its line to ground"),
        .optional("turnstile_release", \.turnstileRelease,
                  doc: "a GPIO line, example: \"gpiochip0:23\", or a value file: \"/sys/class/gpio/gpio23/value\" "
                      + "(a value file under /sys needs the unit to allow writing there: hardware/WIRING.md)",
                  expected: "a value file path (\"/sys/…/value\") or a GPIO line \"CHIP:LINE\"",
                  parse: ReleaseLine.Target.init(parsing:), format: \.configValue),
        .flag("turnstile_release_active_low", \.turnstileReleaseActiveLow, doc: "true for relay modules that close on a low input"),
        .text("printer_port", \.printerPort,
              doc: "the USB ticket printer's port as usblp makes it, example: \"/dev/clup/printer\" (/dev/usb/lp0): "
                  + "its paper and error lines are read every few seconds, and tickets stop while it has no paper; "
                  + "none: CUPS's word only"),
        .path("usb_profiles", \.usbProfiles, doc: "known USB models for `clupctl devices`, example: \"usb-devices.json\""),
    ]

    public func validate(_ problem: (String, String) -> ConfigurationError) throws(ConfigurationError) {
        guard DisplayRotation(rawValue: displayRotationDegrees) != nil else {
            throw problem("display_rotation", "\(displayRotationDegrees) is not a quarter turn: 0, 90, 180 or 270")
        }
        if reader != nil && serialReader != nil {
            throw problem("serial_reader", "one door reader: set hardware.reader or hardware.serial_reader, not both")
        }
        if presence != nil && proximity != nil {
            throw problem("proximity", "one presence sensor: set hardware.presence or hardware.proximity, not both")
        }
        if pir != nil && (presence != nil || proximity != nil) {
            throw problem("pir", "one presence sensor: set hardware.pir, hardware.presence or hardware.proximity, not two")
        }
        guard proximityFar <= proximityNear else {
            throw problem("proximity_far", "must not be above proximity_near (\(proximityNear))")
        }
        if (turnstileEntryLine == nil) != (turnstileExitLine == nil) {
            throw problem(turnstileEntryLine == nil ? "turnstile_entry_line" : "turnstile_exit_line",
                          "a GPIO turnstile needs both lines, turnstile_entry_line and turnstile_exit_line")
        }
        if turnstileEntryLine != nil && turnstile != nil {
            throw problem("turnstile_entry_line", "one turnstile: set hardware.turnstile (evdev) or its GPIO lines, not both")
        }
    }
}
