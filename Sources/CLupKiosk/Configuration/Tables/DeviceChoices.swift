import Foundation
import CLupConfig
import CLupHardware

/// What `[hardware]` chooses for each device: its backend and that backend's settings.
/// The daemon builds its devices from these, so a device is one `switch`, never a set of
/// optionals checked by hand.
public struct DeviceChoices: Sendable, Equatable {
    public enum Display: Sendable, Equatable {
        /// PNG frames in the state directory.
        case simulated
        case framebuffer(path: String, assumedFormat: FramebufferFormat?)
        /// A connector of a DRM card (nil: its first connected one).
        case drm(card: String, connector: String?)
        /// `mode = "linux"` with no screen named: the first DRM card where there is one (its
        /// first connected connector), else the first framebuffer.
        case firstScreen
    }

    public enum CallingBoard: Sendable, Equatable {
        case none
        /// PNG frames in `STATE_DIR/calling-board/`, 1280×720.
        case simulated
        case framebuffer(path: String)
        case drm(card: String, connector: String?)
    }

    public enum Speaker: Sendable, Equatable {
        /// A WAV file of the last utterance in the state directory.
        case simulated
        case alsa(device: String, headset: String?)
    }

    public enum Headset: Sendable, Equatable {
        /// No jack.
        case none
        /// `clupctl sim headset in|out`.
        case simulated
        case evdev(path: String)
    }

    public enum Touchscreen: Sendable, Equatable {
        case simulated
        case evdev(path: String, axesFrom: String?, calibration: [Double])
    }

    public enum Presence: Sendable, Equatable {
        case simulated
        case evdevSwitch(path: String)
        case pir(GPIOLineSpec, activeLow: Bool, hold: Double)
        case proximity(path: String, near: Int, far: Int)
    }

    public enum Turnstile: Sendable, Equatable {
        case simulated
        case evdev(path: String, entryKey: Int, exitKey: Int)
        case gpio(entry: GPIOLineSpec, exit: GPIOLineSpec, activeLow: Bool)
    }

    public enum DoorReader: Sendable, Equatable {
        case simulated(layout: String)
        case wedge(path: String, layout: String)
        case serial(path: String)
    }

    public var display: Display
    public var rotation: DisplayRotation
    public var speaker: Speaker
    public var headset: Headset
    public var callingBoard: CallingBoard
    public var touchscreen: Touchscreen
    public var presence: Presence
    public var turnstile: Turnstile
    /// The output that unlocks one passage, and whether its relay closes on a low output.
    public var release: (target: ReleaseLine.Target, activeLow: Bool)?
    public var reader: DoorReader
    /// The USB printer's usblp port, read for its status lines (only where one is named:
    /// a printer on the network has none).
    public var printerPort: String?

    public static func == (lhs: DeviceChoices, rhs: DeviceChoices) -> Bool {
        (lhs.display, lhs.speaker, lhs.touchscreen, lhs.presence, lhs.turnstile, lhs.reader)
            == (rhs.display, rhs.speaker, rhs.touchscreen, rhs.presence, rhs.turnstile, rhs.reader)
            && lhs.rotation == rhs.rotation && lhs.printerPort == rhs.printerPort
            && lhs.headset == rhs.headset && lhs.callingBoard == rhs.callingBoard
            && lhs.release?.target == rhs.release?.target && lhs.release?.activeLow == rhs.release?.activeLow
    }
}

extension HardwareSettings {
    /// What the keys choose. With `mode = "linux"` each device not named is looked for where
    /// `hardware/udev/70-clup.rules` links it, the screen is the first DRM card's first
    /// connected connector (else the first framebuffer) and the
    /// voice speaks through ALSA's default device; `simulate` (clupd --simulate) keeps them
    /// simulated whatever the mode.
    public func devices(simulate: Bool = false) -> DeviceChoices {
        let standard = mode == .linux && !simulate
        let speaker = self.speaker ?? (standard ? "default" : nil)
        let touchscreen = self.touchscreen ?? (standard ? "/dev/clup/touch" : nil)
        let presenceSwitch = presence ?? (standard && proximity == nil && pir == nil ? "/dev/clup/presence" : nil)
        let turnstile = self.turnstile ?? (standard && turnstileEntryLine == nil ? "/dev/clup/turnstile" : nil)
        let reader = self.reader ?? (standard && serialReader == nil ? "/dev/clup/reader" : nil)

        return DeviceChoices(
            display: display.map { Self.screen($0, assumedFormat: displayFormat) } ?? (standard ? .firstScreen : .simulated),
            rotation: displayRotation,
            speaker: speaker.map { .alsa(device: $0, headset: headsetSpeaker) } ?? .simulated,
            // A jack only where one is named: not every totem has one.
            headset: headset.map { .evdev(path: $0) } ?? (mode == .linux && !simulate ? .none : .simulated),
            callingBoard: callingDisplay.map { name -> DeviceChoices.CallingBoard in
                switch Self.screen(name, assumedFormat: nil) {
                case _ where name == "simulated": .simulated
                case let .drm(card, connector): .drm(card: card, connector: connector)
                default: .framebuffer(path: name)
                }
            } ?? .none,
            touchscreen: touchscreen.map { .evdev(path: $0, axesFrom: touchscreenAxes, calibration: calibration) } ?? .simulated,
            presence: presenceSwitch.map { .evdevSwitch(path: $0) }
                ?? pir.map { .pir($0, activeLow: pirActiveLow, hold: pirHold) }
                ?? proximity.map { .proximity(path: $0, near: proximityNear, far: proximityFar) }
                ?? .simulated,
            turnstile: turnstile.map { .evdev(path: $0, entryKey: turnstileEntryKey, exitKey: turnstileExitKey) }
                ?? turnstileEntryLine.flatMap { entry in
                    turnstileExitLine.map { .gpio(entry: entry, exit: $0, activeLow: turnstileLinesActiveLow) }
                } ?? .simulated,
            release: turnstileRelease.map { ($0, turnstileReleaseActiveLow) },
            reader: reader.map { .wedge(path: $0, layout: readerLayout) }
                ?? serialReader.map { .serial(path: $0) } ?? .simulated(layout: readerLayout),
            printerPort: printerPort)
    }
}

extension HardwareSettings {
    /// A screen as named under `[hardware]`: a DRM card (`/dev/dri/card0`, or one of its
    /// connectors: `/dev/dri/card0:HDMI-A-1`), else a framebuffer or a file standing in for one.
    static func screen(_ name: String, assumedFormat: FramebufferFormat?) -> DeviceChoices.Display {
        let (path, connector) = splitConnector(name)
        if path.hasPrefix("/dev/dri/") { return .drm(card: path, connector: connector) }
        return .framebuffer(path: name, assumedFormat: assumedFormat)
    }

    /// `/dev/dri/card0:HDMI-A-1` as the card and the connector's name.
    static func splitConnector(_ name: String) -> (path: String, connector: String?) {
        // A stable name with colons of its own (/dev/dri/by-path/pci-0000:00:02.0-card) is a card.
        guard !FileManager.default.fileExists(atPath: name), let colon = name.lastIndex(of: ":"), colon != name.startIndex, name.index(after: colon) != name.endIndex else {
            return (name, nil)
        }
        return (String(name[..<colon]), String(name[name.index(after: colon)...]))
    }
}
