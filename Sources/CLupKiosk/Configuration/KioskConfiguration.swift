import CLupCore
import CLupHardware
import CLupPrinting
import Crypto
import Foundation

/// Everything `clupd` is told by `/etc/clup/clupd.toml`. Every key has a default, so an
/// empty file is a working simulated totem; an unknown key is an error, as it is most
/// likely a typo of a real one.
public struct KioskConfiguration: Sendable, Equatable {
    /// How the devices are driven.
    public enum HardwareMode: String, Sendable {
        case simulated
        case linux
    }

    public var storeID: UInt32 = 1
    public var storeName = "CLup Market"
    public var timeZone = TimeZone(identifier: "UTC")!
    /// Minutes after local midnight at which a business day starts.
    public var businessDayStartMinute = 5 * 60
    public var totemLetter: Character = "A"
    public var doorName = "main"

    public var printerQueue = "clup-ticket"
    public var paper = PaperWidth.mm80
    /// The printer model's profile (`hardware/printers/*.json`); nil prints PDF on `paper`.
    public var printerProfile: PrinterProfile?
    /// Where the profile was read from, as configured.
    public var printerProfilePath: String?
    public var printTimeoutSeconds = 20.0

    public var screenWidth = 720
    public var screenHeight = 1280
    public var idleTimeoutSeconds = 30.0
    /// How long the "take your ticket" or error screen stays before the welcome screen.
    public var resultScreenSeconds = 8.0

    public var ticketValidMinutes: UInt16 = 240
    public var defaultWaitMinutes = 10
    /// The languages of the ticket's texts, the first one for the screen and the main lines.
    public var languages = ["en"]

    /// Capacity, shares and windows of the queue.
    public var policy = QueuePolicy()

    public var hardware = HardwareMode.simulated
    /// The framebuffer the screens are drawn on; nil keeps the simulated (PNG) display.
    public var displayPath: String?
    /// The pixel layout to write when `displayPath` is not a framebuffer but a file
    /// standing in for one (tests, a headless bench).
    public var displayFormat: FramebufferFormat?
    /// The ALSA device the voice speaks through; nil keeps the simulated (WAV) speaker.
    public var speakerDevice: String?
    /// Whether the totem speaks, and how fast (words per minute).
    public var voiceEnabled = true
    public var voiceWordsPerMinute = 160
    /// The touch panel's evdev node; nil keeps the simulated one.
    public var touchscreenPath: String?
    /// An evemu description whose axis ranges replace what the panel reports (panels with
    /// wrong ranges, or a pipe standing in for a panel).
    public var touchscreenAxesPath: String?
    /// libinput's 6-number calibration matrix for the touch panel.
    public var touchCalibration = [1.0, 0, 0, 0, 1, 0]
    /// The keyboard-wedge door reader's evdev node; nil keeps the simulated one.
    public var readerPath: String?
    /// The keyboard layout the door reader types in.
    public var readerLayout = "us"
    /// A serial door reader's port (instead of a keyboard-wedge one).
    public var serialReaderPath: String?
    /// A presence sensor reporting `SW_FRONT_PROXIMITY` through evdev.
    public var presencePath: String?
    /// An IIO proximity sensor's raw value file in sysfs, and its near/far thresholds.
    public var proximityPath: String?
    public var proximityNear = 200
    public var proximityFar = 150
    /// A PIR sensor on a GPIO line, whether it is wired active-low, and how long its line
    /// must stay quiet before the person counts as gone.
    public var pirLine: GPIOLineSpec?
    public var pirActiveLow = false
    public var pirHoldSeconds = 3.0
    /// The turnstile's evdev node and the keys of its entry and exit contacts…
    public var turnstilePath: String?
    public var turnstileEntryKey = 183
    public var turnstileExitKey = 184
    /// …or its contacts on GPIO lines (both set, instead of `turnstilePath`).
    public var turnstileEntryLine: GPIOLineSpec?
    public var turnstileExitLine: GPIOLineSpec?
    public var turnstileLinesActiveLow = false
    /// The output that unlocks one passage: a GPIO line or a value file; and whether the
    /// relay closes on a low output.
    public var turnstileRelease: ReleaseLine.Target?
    public var turnstileReleaseActiveLow = false
    /// Known USB devices (`hardware/usb-devices.json`), for `clupctl devices`.
    public var usbProfilesPath: String?
    /// A group whose members may use the control socket, besides root and clupd's own user.
    public var controlGroup: String?
    /// The public ticket keys (raw 32 bytes) of the store's other totems, by their letter.
    public var totemKeys: [Character: Data] = [:]

    public init() {}

    /// The device id under which this totem's events are numbered.
    public var deviceID: String { "store-\(storeID)-totem-\(totemLetter)" }

    /// The default configuration file.
    public static let defaultPath = "/etc/clup/clupd.toml"
}

extension KioskConfiguration {
    /// `hardware.mode = "linux"`: each device the file does not name is looked for where
    /// `hardware/udev/70-clup.rules` links it, the screen is the first framebuffer and the
    /// voice speaks through ALSA's default device. A device that is not there shows as
    /// missing; none is simulated.
    public mutating func useStandardDeviceNames() {
        displayPath = displayPath ?? "/dev/fb0"
        speakerDevice = speakerDevice ?? "default"
        touchscreenPath = touchscreenPath ?? "/dev/clup/touch"
        if readerPath == nil && serialReaderPath == nil { readerPath = "/dev/clup/reader" }
        if presencePath == nil && proximityPath == nil && pirLine == nil { presencePath = "/dev/clup/presence" }
        if turnstilePath == nil && turnstileEntryLine == nil { turnstilePath = "/dev/clup/turnstile" }
    }
}

/// A configuration file that cannot be used: which file, which key, what is wrong.
public struct ConfigurationError: Error, CodedErrorConvertible, Equatable {
    public let file: String
    public let line: Int?
    public let key: String?
    public let problem: String

    public var coded: CodedError {
        let place = [file + (line.map { ":\($0)" } ?? ""), key].compactMap { $0 }.joined(separator: ": ")
        return CodedError(.badConfiguration, "\(place): \(problem)")
    }
}

extension KioskConfiguration {
    /// A configuration file larger than this is refused unread.
    public static let maximumFileBytes = 1 << 20

    /// Reads and checks the file at `path`.
    public static func load(path: String) throws(ConfigurationError) -> KioskConfiguration {
        let data: Data
        do {
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            guard size <= maximumFileBytes else {
                throw ConfigurationError(file: path, line: nil, key: nil,
                                         problem: "the file has \(size) bytes; a configuration has at most \(maximumFileBytes)")
            }
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(file: path, line: nil, key: nil, problem: "cannot read the file (\(Self.reason(error)))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(file: path, line: nil, key: nil, problem: "the file is not UTF-8 text")
        }
        return try parse(text, file: path)
    }

    /// Checks TOML `text`; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(ConfigurationError) -> KioskConfiguration {
        let document: TOMLDocument
        do {
            document = try TOMLDocument(parsing: text)
        } catch {
            throw ConfigurationError(file: file, line: error.line, key: nil, problem: error.message)
        }
        var reader = KeyReader(document: document, file: file)
        var config = KioskConfiguration()
        config.storeID = try reader.integer("store.id", default: Int(config.storeID), in: 1...Int(UInt32.max)).asUInt32
        config.storeName = try reader.string("store.name", default: config.storeName, nonEmpty: true)
        let zone = try reader.string("store.timezone", default: config.timeZone.identifier)
        guard let timeZone = TimeZone(identifier: zone) else {
            throw reader.error("store.timezone", "unknown time zone \"\(zone)\" (use a name like \"Europe/Rome\")")
        }
        config.timeZone = timeZone
        config.businessDayStartMinute = try reader.clockTime("store.business_day_start", default: config.businessDayStartMinute)
        let letter = try reader.string("totem.letter", default: String(config.totemLetter))
        guard letter.count == 1, let first = letter.first, first.isASCII, first.isUppercase else {
            throw reader.error("totem.letter", "expected one capital letter A-Z, got \"\(letter)\"")
        }
        config.totemLetter = first
        config.doorName = try reader.string("totem.door", default: config.doorName, nonEmpty: true)

        config.printerQueue = try reader.string("printer.queue", default: config.printerQueue, nonEmpty: true)
        let paper = try reader.string("printer.paper", default: config.paper.rawValue)
        guard let width = PaperWidth(rawValue: paper) else {
            throw reader.error("printer.paper", "expected \"80mm\" or \"58mm\", got \"\(paper)\"")
        }
        config.paper = width
        config.printTimeoutSeconds = try reader.seconds("printer.timeout_seconds", default: config.printTimeoutSeconds)
        let profilePath = try reader.string("printer.profile", default: "")
        if !profilePath.isEmpty {
            // A relative path is read from the configuration file's folder.
            let resolved = profilePath.hasPrefix("/") ? profilePath
                : ((file as NSString).deletingLastPathComponent as NSString).appendingPathComponent(profilePath)
            do {
                config.printerProfile = try PrinterProfile.load(path: resolved)
            } catch {
                throw reader.error("printer.profile", error.description)
            }
            config.printerProfilePath = profilePath
            config.paper = config.printerProfile?.paper ?? config.paper
        }

        config.screenWidth = try reader.integer("screen.width", default: config.screenWidth, in: 240...7680)
        config.screenHeight = try reader.integer("screen.height", default: config.screenHeight, in: 240...7680)
        config.idleTimeoutSeconds = try reader.seconds("screen.idle_timeout_seconds", default: config.idleTimeoutSeconds)
        config.resultScreenSeconds = try reader.seconds("screen.result_seconds", default: config.resultScreenSeconds)

        config.ticketValidMinutes = UInt16(try reader.integer("tickets.valid_minutes", default: Int(config.ticketValidMinutes), in: 1...Int(UInt16.max)))
        config.defaultWaitMinutes = try reader.integer("tickets.default_wait_minutes", default: config.defaultWaitMinutes, in: 0...1440)
        config.languages = try reader.strings("tickets.languages", default: config.languages)
        guard !config.languages.isEmpty else { throw reader.error("tickets.languages", "name at least one language") }
        if let unknown = config.languages.first(where: { !CustomerTexts.supported.contains($0) }) {
            throw reader.error("tickets.languages", "no texts for \"\(unknown)\" (have \(CustomerTexts.supported.joined(separator: ", ")))")
        }

        config.policy.capacity = try reader.integer("queue.capacity", default: config.policy.capacity, in: 1...100_000)
        config.policy.priorityShare = try reader.fraction("queue.priority_share", default: config.policy.priorityShare)
        config.policy.agingBound = try reader.minutes("queue.aging_bound_minutes", default: config.policy.agingBound)
        config.policy.presentationWindow = try reader.minutes("queue.presentation_window_minutes",
                                                              default: config.policy.presentationWindow)
        config.policy.bookingEarly = try reader.minutes("queue.booking_early_minutes", default: config.policy.bookingEarly)
        config.policy.bookingLate = try reader.minutes("queue.booking_late_minutes", default: config.policy.bookingLate)
        config.policy.slotLength = try reader.minutes("queue.slot_minutes", default: config.policy.slotLength)
        config.policy.bookingShare = try reader.fraction("queue.booking_share", default: config.policy.bookingShare)
        if config.policy.priorityShare + config.policy.bookingShare > 1 {
            throw reader.error("queue.booking_share",
                               "priority_share + booking_share is over 1: no place would be left for walk-ins")
        }

        let mode = try reader.string("hardware.mode", default: config.hardware.rawValue)
        guard let hardware = HardwareMode(rawValue: mode) else {
            throw reader.error("hardware.mode", "expected \"simulated\" or \"linux\", got \"\(mode)\"")
        }
        config.hardware = hardware
        config.displayPath = try reader.optionalString("hardware.display")
        if let format = try reader.optionalString("hardware.display_format") {
            guard let parsed = FramebufferFormat(parsing: format) else {
                throw reader.error("hardware.display_format", "expected \"WIDTHxHEIGHT xrgb8888\" or \"WIDTHxHEIGHT rgb565\", got \"\(format)\"")
            }
            config.displayFormat = parsed
        }
        config.speakerDevice = try reader.optionalString("hardware.speaker")
        config.voiceEnabled = try reader.flag("voice.enabled", default: config.voiceEnabled)
        config.voiceWordsPerMinute = try reader.integer("voice.words_per_minute", default: config.voiceWordsPerMinute, in: 80...450)
        let touchscreen = try reader.string("hardware.touchscreen", default: "")
        config.touchscreenPath = touchscreen.isEmpty ? nil : touchscreen
        let axes = try reader.string("hardware.touchscreen_axes", default: "")
        config.touchscreenAxesPath = axes.isEmpty ? nil
            : axes.hasPrefix("/") ? axes : ((file as NSString).deletingLastPathComponent as NSString).appendingPathComponent(axes)
        let calibration = try reader.numbers("hardware.calibration", default: config.touchCalibration)
        guard calibration.count == 6 else {
            throw reader.error("hardware.calibration", "expected 6 numbers (libinput's calibration matrix), got \(calibration.count)")
        }
        config.touchCalibration = calibration
        let doorReader = try reader.string("hardware.reader", default: "")
        config.readerPath = doorReader.isEmpty ? nil : doorReader
        config.readerLayout = try reader.string("hardware.reader_layout", default: config.readerLayout)
        config.serialReaderPath = try reader.optionalString("hardware.serial_reader")
        if config.readerPath != nil && config.serialReaderPath != nil {
            throw reader.error("hardware.serial_reader", "one door reader: set hardware.reader or hardware.serial_reader, not both")
        }
        config.presencePath = try reader.optionalString("hardware.presence")
        config.proximityPath = try reader.optionalString("hardware.proximity")
        if config.presencePath != nil && config.proximityPath != nil {
            throw reader.error("hardware.proximity", "one presence sensor: set hardware.presence or hardware.proximity, not both")
        }
        config.pirLine = try reader.gpioLine("hardware.pir")
        config.pirActiveLow = try reader.flag("hardware.pir_active_low", default: config.pirActiveLow)
        config.pirHoldSeconds = try reader.seconds("hardware.pir_hold", default: config.pirHoldSeconds)
        if config.pirLine != nil && (config.presencePath != nil || config.proximityPath != nil) {
            throw reader.error("hardware.pir", "one presence sensor: set hardware.pir, hardware.presence or hardware.proximity, not two")
        }
        config.proximityNear = try reader.integer("hardware.proximity_near", default: config.proximityNear, in: 0...1_000_000)
        config.proximityFar = try reader.integer("hardware.proximity_far", default: config.proximityFar, in: 0...1_000_000)
        guard config.proximityFar <= config.proximityNear else {
            throw reader.error("hardware.proximity_far", "must not be above proximity_near (\(config.proximityNear))")
        }
        config.turnstilePath = try reader.optionalString("hardware.turnstile")
        config.turnstileEntryKey = try reader.integer("hardware.turnstile_entry_key", default: config.turnstileEntryKey, in: 1...767)
        config.turnstileExitKey = try reader.integer("hardware.turnstile_exit_key", default: config.turnstileExitKey, in: 1...767)
        config.turnstileEntryLine = try reader.gpioLine("hardware.turnstile_entry_line")
        config.turnstileExitLine = try reader.gpioLine("hardware.turnstile_exit_line")
        config.turnstileLinesActiveLow = try reader.flag("hardware.turnstile_lines_active_low",
                                                         default: config.turnstileLinesActiveLow)
        if (config.turnstileEntryLine == nil) != (config.turnstileExitLine == nil) {
            throw reader.error(config.turnstileEntryLine == nil ? "hardware.turnstile_entry_line" : "hardware.turnstile_exit_line",
                               "a GPIO turnstile needs both lines, turnstile_entry_line and turnstile_exit_line")
        }
        if config.turnstileEntryLine != nil && config.turnstilePath != nil {
            throw reader.error("hardware.turnstile_entry_line",
                               "one turnstile: set hardware.turnstile (evdev) or its GPIO lines, not both")
        }
        if let release = try reader.optionalString("hardware.turnstile_release") {
            guard let target = ReleaseLine.Target(parsing: release) else {
                throw reader.error("hardware.turnstile_release",
                                   "expected a value file path (\"/sys/…/value\") or a GPIO line \"CHIP:LINE\", got \"\(release)\"")
            }
            config.turnstileRelease = target
        }
        config.turnstileReleaseActiveLow = try reader.flag("hardware.turnstile_release_active_low",
                                                           default: config.turnstileReleaseActiveLow)
        config.usbProfilesPath = try reader.optionalString("hardware.usb_profiles").map {
            $0.hasPrefix("/") ? $0 : ((file as NSString).deletingLastPathComponent as NSString).appendingPathComponent($0)
        }
        guard Keymap.named(config.readerLayout) != nil else {
            throw reader.error("hardware.reader_layout", "no keymap \"\(config.readerLayout)\" (have us, de)")
        }
        let group = try reader.string("control.group", default: "")
        config.controlGroup = group.isEmpty ? nil : group

        for key in reader.keys(under: "keys") {
            let letter = String(key.dropFirst("keys.".count))
            guard letter.count == 1, let first = letter.first, first.isASCII, first.isUppercase else {
                throw reader.error(key, "a totem is named by one capital letter A-Z")
            }
            let encoded = try reader.string(key, default: "")
            guard let raw = Data(base64Encoded: encoded), raw.count == 32,
                  (try? Curve25519.Signing.PublicKey(rawRepresentation: raw)) != nil
            else { throw reader.error(key, "expected a base64 Ed25519 public key (as `clupctl status` shows it)") }
            config.totemKeys[first] = raw
        }

        if let unknown = reader.unreadKeys.first {
            throw reader.error(unknown, "unknown key")
        }
        return config
    }

    static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }
}

/// Reads typed keys from a document and remembers which were read, to find unknown ones.
private struct KeyReader {
    let document: TOMLDocument
    let file: String
    var read: Set<String> = []

    var unreadKeys: [String] { document.values.keys.filter { !read.contains($0) }.sorted() }

    /// The keys of the table `table` (`keys.B`, `keys.C`, …), sorted.
    func keys(under table: String) -> [String] {
        document.values.keys.filter { $0.hasPrefix(table + ".") }.sorted()
    }

    func error(_ key: String, _ problem: String) -> ConfigurationError {
        ConfigurationError(file: file, line: document.values[key]?.line, key: key, problem: problem)
    }

    mutating func value(_ key: String) -> TOMLValue? {
        read.insert(key)
        return document.values[key]?.value
    }

    mutating func string(_ key: String, default fallback: String, nonEmpty: Bool = false) throws(ConfigurationError) -> String {
        guard let value = value(key) else { return fallback }
        guard case let .string(text) = value else { throw error(key, "expected a string, got \(value.typeName)") }
        if nonEmpty && text.trimmingCharacters(in: .whitespaces).isEmpty { throw error(key, "must not be empty") }
        return text
    }

    /// A string that may be left out or empty, meaning "not set".
    mutating func optionalString(_ key: String) throws(ConfigurationError) -> String? {
        let text = try string(key, default: "")
        return text.isEmpty ? nil : text
    }

    mutating func numbers(_ key: String, default fallback: [Double]) throws(ConfigurationError) -> [Double] {
        guard let value = value(key) else { return fallback }
        guard case let .array(items) = value else { throw error(key, "expected an array of numbers, got \(value.typeName)") }
        return try items.map { item throws(ConfigurationError) in
            guard let number = item.number else { throw error(key, "expected numbers, got \(item.typeName)") }
            return number
        }
    }

    mutating func strings(_ key: String, default fallback: [String]) throws(ConfigurationError) -> [String] {
        guard let value = value(key) else { return fallback }
        guard case let .array(items) = value else { throw error(key, "expected an array of strings, got \(value.typeName)") }
        return try items.map { item throws(ConfigurationError) in
            guard case let .string(text) = item else { throw error(key, "expected strings, got \(item.typeName)") }
            return text
        }
    }

    mutating func integer(_ key: String, default fallback: Int, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let value = value(key) else { return fallback }
        guard case let .integer(number) = value else { throw error(key, "expected an integer, got \(value.typeName)") }
        guard range.contains(number) else {
            throw error(key, "\(number) is out of range \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    mutating func flag(_ key: String, default fallback: Bool) throws(ConfigurationError) -> Bool {
        guard let value = value(key) else { return fallback }
        guard case let .boolean(flag) = value else { throw error(key, "expected true or false, got \(value.typeName)") }
        return flag
    }

    /// A GPIO line, `"CHIP:LINE"`; nil when absent or empty.
    mutating func gpioLine(_ key: String) throws(ConfigurationError) -> GPIOLineSpec? {
        guard let text = try optionalString(key) else { return nil }
        guard let spec = GPIOLineSpec(parsing: text) else {
            throw error(key, "expected a GPIO line \"CHIP:LINE\" (e.g. \"gpiochip0:17\" or \"gpiochip0:PIR\"), got \"\(text)\"")
        }
        return spec
    }

    /// An integer or float key; nil when absent, an error naming `what` when another type.
    mutating func number(_ key: String, what: String) throws(ConfigurationError) -> Double? {
        guard let value = value(key) else { return nil }
        guard let number = value.number else { throw error(key, "expected \(what), got \(value.typeName)") }
        return number
    }

    mutating func seconds(_ key: String, default fallback: Double) throws(ConfigurationError) -> Double {
        guard let seconds = try number(key, what: "a number of seconds") else { return fallback }
        guard seconds > 0, seconds <= 86_400 else { throw error(key, "\(seconds) is out of range (0, 86400]") }
        return seconds
    }

    /// A share in 0...1.
    mutating func fraction(_ key: String, default fallback: Double) throws(ConfigurationError) -> Double {
        guard let share = try number(key, what: "a share between 0 and 1") else { return fallback }
        guard (0...1).contains(share) else { throw error(key, "\(share) is not between 0 and 1") }
        return share
    }

    /// Minutes (fractions allowed, for tests and demos), as seconds.
    mutating func minutes(_ key: String, default fallback: TimeInterval) throws(ConfigurationError) -> TimeInterval {
        guard let minutes = try number(key, what: "a number of minutes") else { return fallback }
        guard minutes >= 0, minutes <= 7 * 24 * 60 else { throw error(key, "\(minutes) is out of range 0...10080") }
        return minutes * 60
    }

    /// `"HH:MM"` as minutes after midnight.
    mutating func clockTime(_ key: String, default fallback: Int) throws(ConfigurationError) -> Int {
        let defaultText = String(format: "%02d:%02d", fallback / 60, fallback % 60)
        let text = try string(key, default: defaultText)
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hours = Int(parts[0]), let minutes = Int(parts[1]),
              (0..<24).contains(hours), (0..<60).contains(minutes)
        else { throw error(key, "expected a time \"HH:MM\", got \"\(text)\"") }
        return hours * 60 + minutes
    }
}

private extension Int {
    var asUInt32: UInt32 { UInt32(clamping: self) }
}

extension KioskConfiguration {
    /// The keys of `other` that differ from this configuration and that a running clupd
    /// cannot take: who the totem is (store, letter, door), its devices and screen size,
    /// its voice and the control socket's group. They need a restart.
    public func restartOnlyDifferences(to other: KioskConfiguration) -> [String] {
        var keys: [String] = []
        func check<T: Equatable>(_ key: String, _ path: KeyPath<KioskConfiguration, T>) {
            if self[keyPath: path] != other[keyPath: path] { keys.append(key) }
        }
        check("store.id", \.storeID)
        check("totem.letter", \.totemLetter)
        check("totem.door", \.doorName)
        check("screen.width", \.screenWidth)
        check("screen.height", \.screenHeight)
        check("voice.enabled", \.voiceEnabled)
        check("voice.words_per_minute", \.voiceWordsPerMinute)
        check("control.group", \.controlGroup)
        if hardwareSettings != other.hardwareSettings { keys.append("[hardware]") }
        return keys
    }

    /// This configuration with the keys a running clupd cannot take set as in `running`.
    public func keepingRestartOnlyKeys(of running: KioskConfiguration) -> KioskConfiguration {
        var merged = running
        merged.storeName = storeName
        merged.timeZone = timeZone
        merged.businessDayStartMinute = businessDayStartMinute
        merged.printerQueue = printerQueue
        merged.paper = paper
        merged.printerProfile = printerProfile
        merged.printerProfilePath = printerProfilePath
        merged.printTimeoutSeconds = printTimeoutSeconds
        merged.idleTimeoutSeconds = idleTimeoutSeconds
        merged.resultScreenSeconds = resultScreenSeconds
        merged.ticketValidMinutes = ticketValidMinutes
        merged.defaultWaitMinutes = defaultWaitMinutes
        merged.languages = languages
        merged.policy = policy
        merged.totemKeys = totemKeys
        return merged
    }

    /// Every `[hardware]` setting, to tell whether any changed.
    private var hardwareSettings: String {
        toml.split(separator: "\n").drop { $0 != "[hardware]" }.prefix { $0 != "" }.joined(separator: "\n")
    }
}
