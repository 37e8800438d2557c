import CLupHardware
import Foundation

/// The kiosk's devices as the configuration names them: the Linux backend where a device
/// node or file is configured under `[hardware]`, the simulated twin everywhere else (so a
/// totem can be brought up one real device at a time).
struct DeviceSet {
    let display: Display
    /// The spoken guidance; nil when `voice.enabled` is false.
    let voice: Voice?
    let touchscreen: Touchscreen
    let presence: PresenceSensor
    let turnstile: Turnstile
    let reader: DoorReader
    /// Opens the real devices; called once the kiosk runs.
    let start: () -> Void

    var simulatedTouchscreen: SimulatedTouchscreen? { touchscreen as? SimulatedTouchscreen }
    var simulatedPresence: SimulatedPresenceSensor? { presence as? SimulatedPresenceSensor }
    var simulatedTurnstile: SimulatedTurnstile? { turnstile as? SimulatedTurnstile }
    var simulatedReader: SimulatedDoorReader? { reader as? SimulatedDoorReader }

    init(config: KioskConfiguration, configSource: String, stateDirectory: String, loop: EventLoop) throws(DaemonError) {
        if let path = config.displayPath {
            display = FramebufferDisplay(path: path, fallbackWidth: config.screenWidth, fallbackHeight: config.screenHeight,
                                         assumedFormat: config.displayFormat)
        } else {
            display = PNGDisplay(width: config.screenWidth, height: config.screenHeight, directory: stateDirectory)
        }
        let speech = SpeechSynthesizer(wordsPerMinute: config.voiceWordsPerMinute)
        if !config.voiceEnabled {
            voice = nil
        } else if let device = config.speakerDevice {
            voice = ALSAVoice(device: device, synthesizer: speech)
        } else {
            voice = SimulatedVoice(directory: stateDirectory, synthesizer: speech)
        }
        var starters: [() -> Void] = []

        if let path = config.touchscreenPath {
            var axes: [UInt16: AxisRange]?
            if let description = config.touchscreenAxesPath {
                do {
                    axes = try EvemuRecording(parsing: String(contentsOfFile: description, encoding: .utf8)).axes
                } catch {
                    throw .configuration(ConfigurationError(file: configSource, line: nil, key: "hardware.touchscreen_axes",
                                                            problem: "cannot read \(description): \(error)"))
                }
            }
            let panel = EvdevTouchscreen(path: path, loop: loop, axes: axes, calibration: CalibrationMatrix(config.touchCalibration))
            starters.append(panel.start)
            touchscreen = panel
        } else {
            touchscreen = SimulatedTouchscreen(width: display.width, height: display.height)
        }

        if let path = config.presencePath {
            let sensor = EvdevPresenceSensor(path: path, loop: loop)
            starters.append(sensor.start)
            presence = sensor
        } else if let line = config.pirLine {
            let sensor = GPIOPresenceSensor(source: .line(line, activeLow: config.pirActiveLow), loop: loop,
                                            debouncer: PIRDebouncer(hold: config.pirHoldSeconds))
            starters.append(sensor.start)
            presence = sensor
        } else if let path = config.proximityPath {
            let sensor = IIOPresenceSensor(path: path, near: config.proximityNear, far: config.proximityFar, loop: loop)
            starters.append(sensor.start)
            presence = sensor
        } else {
            presence = SimulatedPresenceSensor()
        }

        let release = config.turnstileRelease.map {
            ReleaseLine(target: $0, activeLow: config.turnstileReleaseActiveLow, loop: loop)
        }
        if let path = config.turnstilePath {
            let gate = EvdevTurnstile(path: path, entryKey: UInt16(config.turnstileEntryKey),
                                      exitKey: UInt16(config.turnstileExitKey), release: release, loop: loop)
            starters.append(gate.start)
            turnstile = gate
        } else if let entry = config.turnstileEntryLine, let exit = config.turnstileExitLine {
            let activeLow = config.turnstileLinesActiveLow
            let gate = GPIOTurnstile(entry: .line(entry, activeLow: activeLow), exit: .line(exit, activeLow: activeLow),
                                     release: release, loop: loop)
            starters.append(gate.start)
            turnstile = gate
        } else {
            turnstile = SimulatedTurnstile()
        }

        let keymap = Keymap.named(config.readerLayout) ?? .us
        if let path = config.readerPath {
            let scanner = EvdevDoorReader(path: path, keymap: keymap, loop: loop)
            starters.append(scanner.start)
            reader = scanner
        } else if let path = config.serialReaderPath {
            let scanner = SerialDoorReader(path: path, loop: loop)
            starters.append(scanner.start)
            reader = scanner
        } else {
            reader = SimulatedDoorReader(keymap: keymap)
        }

        let all = starters
        start = { for starter in all { starter() } }
    }
}
