import CLupConfig
import CLupCore
import CLupProtocol
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
    /// The next look at the printer, and whether it is the slow one (nil: a look is under way).
    var nextPrinterCheck: (timer: EventLoop.TimerID, calm: Bool)?
    /// How often cupsd is asked for the printer's state: while a ticket is on its way to it
    /// or it is in trouble, and while it is ready with nothing to print.
    static let printerCheckSeconds = (close: 5.0, calm: 60.0)
    /// The outbox's upload to the hub; nil when the totem is not enrolled.
    let sync: SyncClient?
    /// Who the hub says this totem is (store, letter, door, device id); nil when not enrolled.
    let enrolment: TotemEnrolment?
    /// The store's settings from the hub in force (the last applied, kept in the event log).
    var hubSettings: StoreSettingsDocument?
    var settingsFollower: SettingsFollower?
    /// The technicians logged in on the control socket, and the names locked.
    let technicians: TechnicianDesk
    /// When a caller without permission was last audited, per Unix user.
    var refusedAudited: [UInt32: Double] = [:]
    /// A calibration of the touch panel under way.
    var calibration: CalibrationInProgress?
    /// Where the touch panel's calibration in force comes from.
    var calibrationSource = "hardware.calibration"
    /// Keys of clupd.toml that the hub manages once the totem is enrolled.
    static let hubManagedKeys = ["queue.capacity", "queue.priority_share", "queue.booking_share", "queue.presentation_window_minutes",
                                 "queue.booking_early_minutes", "queue.booking_late_minutes", "queue.slot_minutes"]

    /// Sets everything up; throws what keeps the daemon from starting.
    public init(options: DaemonOptions, clock: any Clock = SystemClock()) throws(DaemonError) {
        var logger = Logger(label: "clupd") { LineSafeLogHandler(label: $0) }
        logger.logLevel = .info
        self.logger = logger
        self.clock = clock
        self.options = options

        var config: KioskConfiguration
        do {
            (config, configSource) = try Self.loadConfiguration(options)
        } catch {
            throw .configuration(error)
        }
        configLoadedAt = clock.now()

        state = try StateDirectory(path: options.stateDirectory)
        do {
            enrolment = try TotemEnrolment.load(from: state.path)
        } catch {
            throw .data(error)
        }
        if let enrolment {
            config = enrolment.apply(to: config)
            do {
                try Self.refuseHubManagedKeys(options, hub: enrolment.hub)
            } catch {
                throw .configuration(error)
            }
        }
        let deviceID = enrolment?.deviceID ?? config.deviceID
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
            let store = try TotemStore(path: state.databasePath, deviceID: deviceID)
            if enrolment != nil, let settings = Self.lastHubSettings(in: store, logger: logger) {
                hubSettings = settings
                config = config.applying(settings)
            } else if enrolment != nil {
                // The store's other doors may hold every place: none here until the hub says.
                config.queue.doorLimit = 0
            }
            let key = try TotemKey.loadOrCreate(at: state.keyPath)
            let desk = try QueueDesk(store: store, rules: Kiosk.rules(config), loop: loop, clock: clock, logger: logger)
            let spooler = PrintSpooler(printer: CUPSPrinter(queue: config.printer.queue), model: config.printer.model,
                                       timeout: config.printer.timeoutSeconds, spool: state.spoolPath, loop: loop,
                                       clock: clock, logger: logger)
            kiosk = Kiosk(config: config, devices: devices.devices, desk: desk, spooler: spooler, key: key, runtime: runtime)
            kiosk.otherDoors = hubSettings?.otherDoors ?? OtherDoors()
        } catch {
            throw .data(error)
        }
        technicians = TechnicianDesk(store: kiosk.desk.store, control: config.control, loop: loop, clock: clock, logger: logger,
                                     timeOfDay: { [unowned kiosk] in kiosk.clockTime($0) }, record: { [unowned kiosk] in kiosk.record($0) })
        switch SavedCalibration.read(from: state.calibrationPath) {
        case let .success(saved)?:
            devices.devices.touchscreen.calibration = CalibrationMatrix(saved.matrix)
            calibrationSource = "\(state.calibrationPath) (clupctl calibrate, by \(saved.by) at \(saved.at.formatted(.iso8601)))"
        case let .failure(problem)?:
            logger.error("the saved calibration is ignored", metadata: ["problem": "\(problem)"])
        case nil:
            break
        }
        do {
            sync = try SyncClient.make(stateDirectory: state.path, databasePath: state.databasePath, logger: logger)
        } catch {
            throw .data(error)
        }
        // The audit trail is trimmed of what the hub holds; a totem not enrolled never uploads
        // (nor can it be enrolled with this log), so all of its log counts as held.
        if let sync {
            kiosk.desk.heldByTheHub = { sync.acknowledgedSeq }
        } else {
            kiosk.desk.heldByTheHub = { .max }
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
        server.onRefused = { [unowned self] peer in auditRefused(peer) }
        let router = controlRouter()
        server.start(on: loop) { body, peer in router.answer(body, from: peer) }
        SignalWatcher.install(on: loop, signals: [SIGTERM, SIGINT, SIGHUP]) { [unowned self] signal in
            if signal == SIGHUP { return self.reloadConfiguration() }
            self.logger.info("stopping on signal \(signal)")
            self.loop.stop()
        }
        kiosk.spooler.onStarted = { [unowned self] in watchThePrinterClosely() }
        checkPrinter()
        startWatchdog()
        if let sync {
            let store = kiosk.desk.store
            let report = { [logger] (day: DayState) in
                do {
                    sync.report(DoorReport(held: day.heldHere, waiting: day.queueLength, seq: try store.lastSeq()))
                } catch {
                    logger.error("the door's figures for the hub could not be read", metadata: ["error": "\(error)"])
                }
            }
            kiosk.desk.onCommitted = report
            report(kiosk.desk.day)
            kiosk.hubBookings = sync.bookingDesk
        }
        sync?.start()
        if let sync {
            let mailbox = loop.mailbox { [unowned self] (settings: StoreSettingsDocument) in self.applyHubSettings(settings) }
            settingsFollower = SettingsFollower(client: sync.client, deviceID: deviceID, deviceKey: sync.deviceKey,
                                                knownVersion: hubSettings?.version ?? 0, clockOffset: { [sync] in sync.clockOffset },
                                                deliver: mailbox, logger: logger)
            settingsFollower?.start()
        }
        notifier.notify("READY=1\nSTATUS=kiosk running, store \(config.store.id) totem \(config.totem.letter)")
        logger.info("clupd ready", metadata: ["device": "\(deviceID)", "socket": "\(server.path)",
                                                "state": "\(state.path)", "hub": "\(enrolment?.hub ?? "none")"])
        loop.run()
        sync?.stop()
        settingsFollower?.stop()
        notifier.notify("STOPPING=1")
        server.stopListening()
        return 0
    }

    /// Asks cupsd for the printer's state, off the loop, so `status` never waits on a slow
    /// print server: every few seconds while a ticket is on its way or the printer is in
    /// trouble, else once a minute (`printerCheckSeconds`).
    private func checkPrinter() {
        nextPrinterCheck = nil
        let printer = self.printer
        loop.background({ () -> Result<PrinterStatus, PrintError> in
            Result { () throws(PrintError) in try printer.status() }
        }) { [unowned self] result in
            switch result {
            case let .success(status): self.printerStatus = (status, nil, self.clock.monotonic())
            case let .failure(error): self.printerStatus = (self.printerStatus?.status, error, self.printerStatus?.at ?? -1)
            }
            self.sync?.report(self.healthForTheHub)
            let calm = self.printerStatus?.error == nil && self.printerStatus?.status?.isReady == true && !self.kiosk.spooler.isBusy
            self.schedulePrinterCheck(calm: calm)
        }
    }

    private func schedulePrinterCheck(calm: Bool) {
        loop.cancel(nextPrinterCheck?.timer)
        let seconds = calm ? Self.printerCheckSeconds.calm : Self.printerCheckSeconds.close
        nextPrinterCheck = (loop.schedule(after: seconds) { [unowned self] in checkPrinter() }, calm)
    }

    /// A ticket on its way to a printer that looked calm, or another queue: the printer is
    /// looked at every few seconds again (a look under way schedules the next itself).
    func watchThePrinterClosely() {
        guard nextPrinterCheck?.calm == true else { return }
        schedulePrinterCheck(calm: false)
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

    /// An enrolled totem takes capacity and shares from the hub: a file that sets them is
    /// refused, naming the hub, rather than silently overridden.
    static func refuseHubManagedKeys(_ options: DaemonOptions, hub: String) throws(ConfigurationError) {
        let path = options.configPath ?? KioskConfiguration.defaultPath
        guard FileManager.default.fileExists(atPath: path) else { return }
        let reader = try ConfigReader.load(path: path, maximumBytes: KioskConfiguration.maximumFileBytes)
        if let key = hubManagedKeys.first(where: { reader.document.values[$0] != nil }) {
            throw reader.error(key, "this totem is enrolled at \(hub), which manages \(key) (clup-hub store set); remove it from the file")
        }
    }

    /// The store settings last applied from the hub, from the event log; nil if none (or
    /// unreadable: logged, and the file's settings stay in force).
    static func lastHubSettings(in store: TotemStore, logger: Logger) -> StoreSettingsDocument? {
        do {
            guard let stored = try store.events(ofTypes: ["store.settings-applied"]).last else { return nil }
            guard case let .storeSettingsApplied(settings, _, _) = try stored.decoded(), settings.problem == nil else { return nil }
            return settings
        } catch {
            logger.error("the hub's last store settings cannot be read; the file's are in force", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Puts a newer version of the store's settings from the hub in force: recorded as an
    /// event first, then adopted (and the queue settled: more room calls tickets at once).
    func applyHubSettings(_ settings: StoreSettingsDocument) {
        guard settings.version > (hubSettings?.version ?? 0) else { return }
        if let problem = settings.problem {
            logger.error("the hub's store settings are refused", metadata: ["version": "\(settings.version)", "problem": "\(problem)"])
            return
        }
        // The employees' PIN hashes go to the employee table, not into the event log.
        var recorded = settings
        recorded.employees = nil
        let employees = settings.employees.map { pins in
            StaffChange.replaceFromHub(pins.compactMap { pin in
                guard let salt = Data(base64Encoded: pin.salt), let hash = Data(base64Encoded: pin.hash) else { return nil }
                return EmployeeRecord(staffNumber: pin.staffNumber, kdf: pin.kdf, salt: salt, pinHash: hash, changedAt: clock.now(),
                                      source: .hub)
            })
        }
        do {
            try kiosk.desk.perform(changing: employees) { day, now in
                [.storeSettingsApplied(recorded, businessDay: day.businessDay, at: now.wall)]
            }
        } catch {
            logger.error("the hub's store settings were not recorded; the ones in force stay", metadata: ["error": "\(error)"])
            return
        }
        hubSettings = settings
        kiosk.adopt(config.applying(settings))
        kiosk.otherDoors = settings.otherDoors
        kiosk.desk.settle()
        logger.notice("store settings from the hub applied", metadata: [
            "version": "\(settings.version)", "capacity": "\(settings.capacity)",
            "priority share": "\(settings.priorityShare)", "booking share": "\(settings.bookingShare)",
            "door limit": "\(settings.doorLimit.map(String.init) ?? "none")", "totem keys": "\(settings.totemKeys?.count ?? 0)",
            "employees": "\(settings.employees.map { "\($0.count)" } ?? "not sent")"])
    }

    /// The device id the event log is numbered under: the hub's, once enrolled.
    var deviceID: String { enrolment?.deviceID ?? config.deviceID }

    /// SIGHUP (`systemctl reload clupd`): reads the configuration again and puts it in force.
    /// A file that does not parse changes nothing, and says so in the log and `status`;
    /// keys only a restart can change keep their running values, and `status` says which.
    func reloadConfiguration() {
        notifier.notify("RELOADING=1")
        defer { notifier.notify("READY=1") }
        var next: KioskConfiguration
        do {
            (next, _) = try Self.loadConfiguration(options)
            if let enrolment {
                next = enrolment.apply(to: next)
                try Self.refuseHubManagedKeys(options, hub: enrolment.hub)
            }
            if let hubSettings {
                next = next.applying(hubSettings)
            } else if enrolment != nil {
                next.queue.doorLimit = 0
            }
        } catch {
            configProblem = CodedError(.configurationNotReloaded, "the configuration was not reloaded (\(error)); the one read at "
                + "\(configLoadedAt.formatted(.iso8601)) stays in force")
            logger.error("configuration not reloaded; the one in force stays", metadata: ["error": "\(error)"])
            notifier.notify("STATUS=configuration not reloaded: \(error)")
            return
        }
        let restartOnly = config.restartOnlyDifferences(to: next)
        kiosk.adopt(next.keepingRestartOnlyKeys(of: config))
        watchThePrinterClosely()
        configLoadedAt = clock.now()
        configProblem = restartOnly.isEmpty ? nil
            : CodedError(.restartNeeded, "reloaded, but \(restartOnly.joined(separator: ", ")) changed and take effect only when clupd restarts")
        logger.notice("configuration reloaded", metadata: ["source": "\(configSource)",
                                                          "needs a restart": "\(restartOnly.joined(separator: ", "))"])
        notifier.notify("STATUS=kiosk running, store \(config.store.id) totem \(config.totem.letter); configuration reloaded")
    }
}
