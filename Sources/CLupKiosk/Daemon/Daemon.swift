import CLupCore
import CLupHardware
import CLupPrinting
import CLupStore
import Crypto
import Foundation
import Logging

/// How `clupd` was asked to run.
public struct DaemonOptions: Sendable {
    public var stateDirectory: String
    /// nil: `/etc/clup/clupd.toml` if it exists, else the defaults.
    public var configPath: String?
    public var socketPath: String
    public var simulate: Bool

    public init(stateDirectory: String, configPath: String?, socketPath: String, simulate: Bool) {
        self.stateDirectory = stateDirectory
        self.configPath = configPath
        self.socketPath = socketPath
        self.simulate = simulate
    }
}

/// The simulated devices, kept by type so `clupctl sim` can drive them; nil where the
/// configuration names a real device instead.
struct SimulatedDevices {
    let display: PNGDisplay
    let touchscreen: SimulatedTouchscreen?
    let presence: SimulatedPresenceSensor
    let turnstile: SimulatedTurnstile
    let reader: SimulatedDoorReader?
}

/// The evdev devices the configuration names, started once the kiosk runs.
struct EvdevDevices {
    let touchscreen: EvdevTouchscreen?
    let reader: EvdevDoorReader?
}

/// `clupd`: opens the state, brings up the devices and the control socket, tells systemd
/// it is ready, and runs the kiosk on its event loop until SIGTERM.
public final class Daemon {
    let config: KioskConfiguration
    let state: StateDirectory
    let store: TotemStore
    let loop: EventLoop
    let controller: KioskController
    let simulated: SimulatedDevices
    let evdev: EvdevDevices
    let server: ControlServer
    let printer: CUPSPrinter
    let notifier = SystemdNotifier()
    let clock: any Clock
    let logger: Logger
    /// Where the configuration came from, for `clupctl config show`.
    let configSource: String
    var printerStatus: (status: PrinterStatus?, error: PrintError?, at: Double)?

    /// Sets everything up; throws what keeps the daemon from starting.
    public init(options: DaemonOptions, clock: any Clock = SystemClock()) throws(DaemonError) {
        var logger = Logger(label: "clupd")
        logger.logLevel = .info
        self.logger = logger
        self.clock = clock

        var config: KioskConfiguration
        do {
            if let path = options.configPath {
                config = try KioskConfiguration.load(path: path)
                configSource = path
            } else if FileManager.default.fileExists(atPath: KioskConfiguration.defaultPath) {
                config = try KioskConfiguration.load(path: KioskConfiguration.defaultPath)
                configSource = KioskConfiguration.defaultPath
            } else {
                config = KioskConfiguration()
                configSource = "built-in defaults (no \(KioskConfiguration.defaultPath))"
            }
        } catch {
            throw .configuration(error)
        }
        if options.simulate { config.hardware = .simulated }
        guard config.hardware == .simulated else {
            // The Linux backends (evdev, GPIO, serial reader) arrive with the hardware issue;
            // starting without devices would present a kiosk that cannot work.
            throw .configuration(ConfigurationError(
                file: options.configPath ?? KioskConfiguration.defaultPath, line: nil, key: "hardware.mode",
                problem: "\"linux\" device backends are not in this build yet; use \"simulated\" or --simulate"))
        }
        self.config = config

        state = try StateDirectory(path: options.stateDirectory)
        do {
            store = try TotemStore(path: state.databasePath, deviceID: config.deviceID)
        } catch {
            throw .data(error)
        }

        let loop = EventLoop(clock: clock)
        self.loop = loop
        let keymap = Keymap.named(config.readerLayout) ?? .us
        var axes: [UInt16: AxisRange]?
        if let path = config.touchscreenAxesPath {
            do {
                axes = try EvemuRecording(parsing: String(contentsOfFile: path, encoding: .utf8)).axes
            } catch {
                throw .configuration(ConfigurationError(file: configSource, line: nil, key: "hardware.touchscreen_axes",
                                                        problem: "cannot read \(path): \(error)"))
            }
        }
        evdev = EvdevDevices(
            touchscreen: config.touchscreenPath.map { [axes] in
                EvdevTouchscreen(path: $0, loop: loop, axes: axes, calibration: CalibrationMatrix(config.touchCalibration))
            },
            reader: config.readerPath.map { EvdevDoorReader(path: $0, keymap: keymap, loop: loop) })
        let devices = SimulatedDevices(
            display: PNGDisplay(width: config.screenWidth, height: config.screenHeight, directory: state.path),
            touchscreen: evdev.touchscreen == nil ? SimulatedTouchscreen(width: config.screenWidth, height: config.screenHeight) : nil,
            presence: SimulatedPresenceSensor(),
            turnstile: SimulatedTurnstile(),
            reader: evdev.reader == nil ? SimulatedDoorReader(keymap: keymap) : nil)
        simulated = devices
        printer = CUPSPrinter(queue: config.printerQueue)
        let key: Curve25519.Signing.PrivateKey
        do {
            key = try TotemKey.loadOrCreate(at: state.keyPath)
        } catch {
            throw .data(error)
        }
        do {
            controller = try KioskController(
                config: config, store: store, loop: loop, display: devices.display,
                touchscreen: evdev.touchscreen ?? devices.touchscreen!, presence: devices.presence,
                turnstile: devices.turnstile, reader: evdev.reader ?? devices.reader!,
                printJob: TicketPrintJob(printer: printer, profile: config.printerProfile ?? .pdf(config.paper),
                                         spoolDirectory: state.spoolPath, timeout: config.printTimeoutSeconds),
                key: key, clock: clock, logger: logger)
        } catch {
            throw .data(error)
        }

        let group: gid_t?
        if let name = config.controlGroup {
            guard let entry = getgrnam(name) else {
                throw .configuration(ConfigurationError(file: options.configPath ?? KioskConfiguration.defaultPath,
                                                        line: nil, key: "control.group", problem: "no group named \(name)"))
            }
            group = entry.pointee.gr_gid
        } else {
            group = nil
        }
        let directory = (options.socketPath as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            server = try ControlServer(path: options.socketPath, allowedGroup: group, logger: logger)
        } catch let error as ControlServer.ListenError {
            if case .inUse = error { throw .inUse(error) }
            throw .io(error.description)
        } catch {
            throw .io("\(error)")
        }
    }

    /// Runs until SIGTERM or SIGINT; returns the exit status.
    public func run() -> Int32 {
        do {
            try controller.start()
        } catch {
            logger.critical("cannot show the first screen", metadata: ["error": "\(error)"])
            server.stopListening()
            return 74
        }
        server.start(on: loop) { [unowned self] request, peer in try self.handle(request, from: peer) }
        evdev.touchscreen?.start()
        evdev.reader?.start()
        SignalWatcher.install(on: loop) { [unowned self] signal in
            self.logger.info("stopping on signal \(signal)")
            self.loop.stop()
        }
        checkPrinter()
        startWatchdog()
        notifier.notify("READY=1\nSTATUS=kiosk running, store \(config.storeID) totem \(config.totemLetter)")
        logger.info("clupd ready", metadata: ["device": "\(config.deviceID)", "socket": "\(server.path)",
                                                "state": "\(state.path)"])
        loop.run()
        notifier.notify("STOPPING=1")
        server.stopListening()
        return 0
    }

    /// Asks cupsd for the printer's state every few seconds, off the loop, so `status`
    /// never waits on a slow print server.
    private func checkPrinter() {
        let printer = self.printer
        loop.background({ () -> Result<PrinterStatus, PrintError> in
            Result { () throws(PrintError) in try printer.status() }
        }) { [unowned self] result in
            switch result {
            case let .success(status): self.printerStatus = (status, nil, self.clock.monotonic())
            case let .failure(error): self.printerStatus = (self.printerStatus?.status, error, self.printerStatus?.at ?? -1)
            }
            self.loop.schedule(after: 5) { [unowned self] in self.checkPrinter() }
        }
    }

    /// Pets systemd's watchdog from the loop itself: if the loop hangs, systemd restarts us.
    private func startWatchdog() {
        guard let interval = notifier.watchdogInterval else { return }
        loop.schedule(after: interval) { [unowned self] in
            self.notifier.notify("WATCHDOG=1")
            self.startWatchdog()
        }
    }
}
