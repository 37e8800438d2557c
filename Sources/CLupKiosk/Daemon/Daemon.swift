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

/// `clupd`: opens the state, brings up the devices and the control socket, tells systemd
/// it is ready, and runs the kiosk on its event loop until SIGTERM.
public final class Daemon {
    /// The configuration in force (the kiosk's; a reload replaces it).
    var config: KioskConfiguration { kiosk.config }
    let options: DaemonOptions
    let state: StateDirectory
    let loop: EventLoop
    let kiosk: Kiosk
    let devices: DeviceSet
    /// USB arrivals and departures, for the log, `status` and `devices`.
    let usb: USBHotplug
    /// The known USB models, when configured.
    let usbProfiles: USBProfiles?
    let server: ControlServer
    var printer: any TicketPrinter { kiosk.spooler.printer }
    let notifier = SystemdNotifier()
    let clock: any Clock
    let logger: Logger
    /// Where the configuration came from, for `clupctl config show`.
    let configSource: String
    /// When the configuration in force was read.
    var configLoadedAt: Date
    /// Why the last reload was refused or partial, until one succeeds, for `status`.
    var configProblem: CodedError?
    var printerStatus: (status: PrinterStatus?, error: PrintError?, at: Double)?

    /// Sets everything up; throws what keeps the daemon from starting.
    public init(options: DaemonOptions, clock: any Clock = SystemClock()) throws(DaemonError) {
        var logger = Logger(label: "clupd")
        logger.logLevel = .info
        self.logger = logger
        self.clock = clock
        self.options = options

        let config: KioskConfiguration
        do {
            (config, configSource) = try Self.loadConfiguration(options)
        } catch {
            throw .configuration(error)
        }
        configLoadedAt = clock.now()

        state = try StateDirectory(path: options.stateDirectory)
        let loop = EventLoop(clock: clock)
        self.loop = loop
        do {
            devices = try DeviceSet(config: config, simulate: options.simulate, stateDirectory: state.path, loop: loop)
            usbProfiles = try config.hardware.usbProfiles.map { path throws(USBProfiles.LoadError) in try USBProfiles.load(path: path) }
        } catch {
            throw .configuration(error)
        }
        usb = USBHotplug(loop: loop)
        let runtime = KioskRuntime(loop: loop, clock: clock, logger: logger)
        do {
            let store = try TotemStore(path: state.databasePath, deviceID: config.deviceID)
            let key = try TotemKey.loadOrCreate(at: state.keyPath)
            let desk = try QueueDesk(store: store, rules: Kiosk.rules(config), loop: loop, clock: clock, logger: logger)
            let spooler = PrintSpooler(printer: CUPSPrinter(queue: config.printer.queue), model: config.printer.model,
                                       timeout: config.printer.timeoutSeconds, spool: state.spoolPath, loop: loop,
                                       clock: clock, logger: logger)
            kiosk = Kiosk(config: config, devices: devices.devices, desk: desk, spooler: spooler, key: key, runtime: runtime)
        } catch {
            throw .data(error)
        }

        let group: gid_t?
        if let name = config.control.group {
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
            throw .io(error)
        } catch {
            throw .io(error)
        }
    }

    /// Runs until SIGTERM or SIGINT; returns the exit status.
    public func run() -> Int32 {
        // Real devices are opened first, so the kiosk starts with what is actually there.
        devices.start()
        usb.onChange = { [unowned self] device, arrived in
            let known = usbProfiles?.match(device.id).map { "\($0.role): \($0.name)" } ?? "not a known model"
            logger.notice(arrived ? "USB device plugged in" : "USB device unplugged",
                          metadata: ["id": "\(device.id)", "bus": "\(device.bus):\(device.address)", "known": "\(known)"])
        }
        usb.start()
        kiosk.start()
        server.start(on: loop) { [unowned self] request, peer in try self.handle(request, from: peer) }
        SignalWatcher.install(on: loop, signals: [SIGTERM, SIGINT, SIGHUP]) { [unowned self] signal in
            if signal == SIGHUP { return self.reloadConfiguration() }
            self.logger.info("stopping on signal \(signal)")
            self.loop.stop()
        }
        checkPrinter()
        startWatchdog()
        notifier.notify("READY=1\nSTATUS=kiosk running, store \(config.store.id) totem \(config.totem.letter)")
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

    /// The configuration file (the one given, else `/etc/clup/clupd.toml` if present, else
    /// the defaults) as `options` amend it, and where it came from.
    static func loadConfiguration(_ options: DaemonOptions) throws(ConfigurationError) -> (KioskConfiguration, String) {
        var config: KioskConfiguration
        let source: String
        if let path = options.configPath {
            config = try KioskConfiguration.load(path: path)
            source = path
        } else if FileManager.default.fileExists(atPath: KioskConfiguration.defaultPath) {
            config = try KioskConfiguration.load(path: KioskConfiguration.defaultPath)
            source = KioskConfiguration.defaultPath
        } else {
            config = KioskConfiguration()
            source = "built-in defaults (no \(KioskConfiguration.defaultPath))"
        }
        return (config, source)
    }

    /// SIGHUP (`systemctl reload clupd`): reads the configuration again and puts it in force.
    /// A file that does not parse changes nothing, and says so in the log and `status`;
    /// keys only a restart can change keep their running values, and `status` says which.
    func reloadConfiguration() {
        notifier.notify("RELOADING=1")
        defer { notifier.notify("READY=1") }
        let next: KioskConfiguration
        do {
            (next, _) = try Self.loadConfiguration(options)
        } catch {
            configProblem = CodedError(.configurationNotReloaded, "the configuration was not reloaded (\(error)); the one read at "
                + "\(configLoadedAt.formatted(.iso8601)) stays in force")
            logger.error("configuration not reloaded; the one in force stays", metadata: ["error": "\(error)"])
            notifier.notify("STATUS=configuration not reloaded: \(error)")
            return
        }
        let restartOnly = config.restartOnlyDifferences(to: next)
        kiosk.adopt(next.keepingRestartOnlyKeys(of: config))
        configLoadedAt = clock.now()
        configProblem = restartOnly.isEmpty ? nil
            : CodedError(.restartNeeded, "reloaded, but \(restartOnly.joined(separator: ", ")) changed and take effect only when clupd restarts")
        logger.notice("configuration reloaded", metadata: ["source": "\(configSource)",
                                                          "needs a restart": "\(restartOnly.joined(separator: ", "))"])
        notifier.notify("STATUS=kiosk running, store \(config.store.id) totem \(config.totem.letter); configuration reloaded")
    }
}
