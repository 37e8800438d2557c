import CLupConfig
import CLupCore
import CLupHardware
import Foundation

/// The kiosk's devices as `[hardware]` chooses them: the Linux backend where a device node
/// or file is named, the simulated twin everywhere else (so a totem can be brought up one
/// real device at a time).
struct DeviceSet {
    let devices: KioskDevices
    /// Opens the real devices; called once the kiosk runs.
    let start: () -> Void

    var simulatedTouchscreen: SimulatedTouchscreen? { devices.touchscreen as? SimulatedTouchscreen }
    var simulatedPresence: SimulatedPresenceSensor? { devices.presence as? SimulatedPresenceSensor }
    var simulatedTurnstile: SimulatedTurnstile? { devices.turnstile as? SimulatedTurnstile }
    var simulatedReader: SimulatedDoorReader? { devices.reader as? SimulatedDoorReader }
    var simulatedHeadset: SimulatedHeadsetJack? { devices.headset as? SimulatedHeadsetJack }

    /// `path`, created if need be (where it cannot be, the frames are not written).
    private static func folder(_ path: String) -> String {
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The door reader's keyboard layout (the configuration was checked to name one; xkb-data
    /// may still have gone since).
    private static func keymap(_ layout: String) throws(ConfigurationError) -> Keymap {
        do {
            return try Keymap(layout)
        } catch {
            throw ConfigurationError(file: "/usr/share/X11/xkb", line: nil, key: "hardware.reader_layout", problem: error.description)
        }
    }

    init(config: KioskConfiguration, simulate: Bool, stateDirectory: String, loop: EventLoop) throws(ConfigurationError) {
        let choices = config.hardware.devices(simulate: simulate)
        var starters: [() -> Void] = []
        // One DRMCard per card: the screens on its connectors share its mode setting.
        var cards: [String: DRMCard] = [:]
        func card(_ path: String) -> DRMCard {
            if let card = cards[path] { return card }
            let card = DRMCard(path: path, loop: loop)
            cards[path] = card
            starters.append(card.start)
            return card
        }
        let (width, height, rotation) = (config.screen.width, config.screen.height, choices.rotation)
        // A connector named for one screen is kept for it before the other takes the first one.
        if case let .drm(path, connector?) = choices.callingBoard { card(path).reserve(connector) }
        if case let .drm(path, connector?) = choices.display { card(path).reserve(connector) }
        let display: Display = switch choices.display {
        case let .framebuffer(path, format):
            FramebufferDisplay(path: path, fallbackWidth: width, fallbackHeight: height, assumedFormat: format, rotation: rotation)
        case let .drm(path, connector):
            DRMDisplay(card: card(path), connector: connector, rotation: rotation, fallbackWidth: width, fallbackHeight: height)
        case .firstScreen:
            if let first = DRMCard.firstWithConnectors() {
                DRMDisplay(card: card(first), connector: nil, rotation: rotation, fallbackWidth: width, fallbackHeight: height)
            } else {
                FramebufferDisplay(path: "/dev/fb0", fallbackWidth: width, fallbackHeight: height, rotation: rotation)
            }
        case .simulated:
            PNGDisplay(width: width, height: height, directory: stateDirectory)
        }

        let speech = SpeechSynthesizer(wordsPerMinute: config.voice.wordsPerMinute)
        let voice: Voice?
        switch (config.voice.enabled, choices.speaker) {
        case (false, _): voice = nil
        case let (true, .alsa(device, headset)): voice = ALSAVoice(device: device, headsetDevice: headset, synthesizer: speech)
        case (true, .simulated): voice = SimulatedVoice(directory: stateDirectory, synthesizer: speech)
        }

        let callingBoard: Display? = switch choices.callingBoard {
        case .none: nil
        case .simulated: PNGDisplay(width: 1280, height: 720, directory: Self.folder(stateDirectory + "/calling-board"))
        case let .framebuffer(path): FramebufferDisplay(path: path, fallbackWidth: 1280, fallbackHeight: 720)
        case let .drm(path, connector):
            DRMDisplay(card: card(path), connector: connector, rotation: .none, fallbackWidth: 1280, fallbackHeight: 720)
        }

        let headset: HeadsetJack?
        switch choices.headset {
        case .none: headset = nil
        case .simulated: headset = SimulatedHeadsetJack()
        case let .evdev(path):
            let jack = EvdevHeadsetJack(path: path, loop: loop)
            starters.append(jack.start)
            headset = jack
        }

        let touchscreen: Touchscreen
        switch choices.touchscreen {
        case let .evdev(path, axesFrom, calibration):
            let axes = try axesFrom.map { description throws(ConfigurationError) in
                do {
                    return try EvemuRecording(parsing: String(contentsOfFile: description, encoding: .utf8)).axes
                } catch {
                    throw ConfigurationError(file: description, line: nil, key: "hardware.touchscreen_axes",
                                             problem: "cannot read \(description): \(error)")
                }
            }
            let panel = EvdevTouchscreen(path: path, loop: loop, axes: axes, calibration: CalibrationMatrix(calibration))
            starters.append(panel.start)
            touchscreen = panel
        case .simulated:
            touchscreen = SimulatedTouchscreen(width: display.width, height: display.height)
        }

        let presence: PresenceSensor
        switch choices.presence {
        case let .evdevSwitch(path):
            let sensor = EvdevPresenceSensor(path: path, loop: loop)
            starters.append(sensor.start)
            presence = sensor
        case let .pir(line, activeLow, hold):
            let sensor = GPIOPresenceSensor(source: .line(line, activeLow: activeLow), loop: loop, debouncer: PIRDebouncer(hold: hold))
            starters.append(sensor.start)
            presence = sensor
        case let .proximity(path, near, far):
            let sensor = IIOPresenceSensor(path: path, near: near, far: far, loop: loop)
            starters.append(sensor.start)
            presence = sensor
        case .simulated:
            presence = SimulatedPresenceSensor()
        }

        let release = choices.release.map { ReleaseLine(target: $0.target, activeLow: $0.activeLow, loop: loop) }
        let turnstile: Turnstile
        switch choices.turnstile {
        case let .evdev(path, entryKey, exitKey):
            let gate = EvdevTurnstile(path: path, entryKey: UInt16(entryKey), exitKey: UInt16(exitKey), release: release, loop: loop)
            starters.append(gate.start)
            turnstile = gate
        case let .gpio(entry, exit, activeLow):
            let gate = GPIOTurnstile(entry: .line(entry, activeLow: activeLow), exit: .line(exit, activeLow: activeLow),
                                     release: release, loop: loop)
            starters.append(gate.start)
            turnstile = gate
        case .simulated:
            turnstile = SimulatedTurnstile()
        }

        let reader: DoorReader
        switch choices.reader {
        case let .wedge(path, layout):
            let scanner = EvdevDoorReader(path: path, keymap: try Self.keymap(layout), loop: loop)
            starters.append(scanner.start)
            reader = scanner
        case let .serial(path):
            let scanner = SerialDoorReader(path: path, loop: loop)
            starters.append(scanner.start)
            reader = scanner
        case let .simulated(layout):
            reader = SimulatedDoorReader(keymap: try Self.keymap(layout))
        }

        devices = KioskDevices(display: display, touchscreen: touchscreen, presence: presence, turnstile: turnstile,
                               reader: reader, voice: voice, headset: headset, callingBoard: callingBoard,
                               printerPort: choices.printerPort.map { PrinterPortWatch(path: $0) })
        let all = starters
        start = { for starter in all { starter() } }
    }
}
