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
    /// nil: `spool/` in the state directory.
    public var spoolDirectory: String?

    public init(stateDirectory: String, configPath: String?, socketPath: String, simulate: Bool,
                spoolDirectory: String? = nil) {
        self.stateDirectory = stateDirectory
        self.configPath = configPath
        self.socketPath = socketPath
        self.simulate = simulate
        self.spoolDirectory = spoolDirectory
    }
}

/// `clupd`: opens the state, brings up the devices and the control socket, tells systemd
/// it is ready, and runs the kiosk on its event loop until SIGTERM. Wiring only: what each
/// part does lives in its own folder (the queue and the door in `Queue/`, printing in
/// `Printing/`, the hub in `Sync/`, the staff and their commands in `Staff/`, the other
/// commands of the control socket in `Control/Routes/` …).
public final class Daemon {
    let state: StateDirectory
    let runtime: KioskRuntime
    let kiosk: Kiosk
    let devices: DeviceSet
    let usb: USBWatch
    let server: ControlServer
    let notifier = SystemdNotifier()
    /// The technicians logged in on the control socket, and the names locked.
    let technicians: TechnicianDesk
    let printerWatch: PrinterWatch
    /// Where the configuration came from, and how the last reload went.
    let configuration: ConfigurationFile
    /// The enrolment, the sync and the store's settings from the hub (none: not enrolled).
    let hub: HubLink
    let calibration: TouchCalibration
    /// The time of the last integrity report logged as an error (`readIntegrityReport`).
    var integrityLoggedAt: Double?
    /// The door's counting figures of yesterday and today (`CountingTally`), kept as events commit.
    var counting: CountingTally

    /// The configuration in force (the kiosk's; a reload replaces it).
    var config: KioskConfiguration { kiosk.config }
    var loop: EventLoop { runtime.loop }
    var clock: any Clock { runtime.clock }
    var logger: Logger { runtime.logger }
    /// The device id the event log is numbered under: the hub's, once enrolled.
    var deviceID: String { hub.enrolment?.deviceID ?? config.deviceID }

    /// Sets everything up; throws what keeps the daemon from starting.
    public init(options: DaemonOptions, clock: any Clock = SystemClock()) throws(DaemonError) {
        var logger = Logger(label: "clupd") { LineSafeLogHandler(label: $0) }
        logger.logLevel = .info
        let runtime = KioskRuntime(loop: EventLoop(clock: clock), clock: clock, logger: logger)
        self.runtime = runtime

        var config: KioskConfiguration
        do {
            let source: String
            (config, source) = try ConfigurationFile.read(options.configPath)
            configuration = ConfigurationFile(path: options.configPath, source: source, loadedAt: clock.now())
        } catch {
            throw .configuration(error)
        }
        state = try StateDirectory(path: options.stateDirectory, spool: options.spoolDirectory)
        let enrolment: TotemEnrolment?
        do {
            enrolment = try TotemEnrolment.load(from: state.path)
        } catch {
            throw .data(error)
        }
        if let enrolment {
            config = enrolment.apply(to: config)
            do {
                try ConfigurationFile.refuseHubManagedKeys(options.configPath, hub: enrolment.hub)
            } catch {
                throw .configuration(error)
            }
        }
        do {
            devices = try DeviceSet(config: config, simulate: options.simulate, stateDirectory: state.path, loop: runtime.loop)
            usb = try USBWatch(loop: runtime.loop, profilesPath: config.hardware.usbProfiles)
        } catch {
            throw .configuration(error)
        }
        do {
            // A migration due copies the database first, before READY: systemd is told to wait.
            notifier.notify("EXTEND_TIMEOUT_USEC=600000000\nSTATUS=opening the database (copied first if it is to be migrated)")
            let store = try TotemStore(path: state.databasePath, deviceID: enrolment?.deviceID ?? config.deviceID)
            if case let .copied(copy, removed, pruneFailure) = store.copiedBeforeMigrating {
                logger.notice("the database was copied before this version migrated it", metadata: [
                    "copy": "\(copy.path)", "schema": "\(copy.schema ?? "none")", "tickets": "\(copy.tickets)", "events": "\(copy.events)",
                    "older copies removed": "\(removed.count)"])
                if let pruneFailure { logger.warning("an older copy in the backups folder could not be removed: \(pruneFailure)") }
            }
            let settings = enrolment == nil ? nil : HubLink.lastSettings(in: store, logger: logger)
            hub = HubLink(enrolment: enrolment, settings: settings,
                          lineLimit: enrolment == nil ? nil : HubLink.lastLineLimit(in: store, logger: logger),
                          sync: try SyncClient.make(stateDirectory: state.path, databasePath: state.databasePath, logger: logger),
                          runtime: runtime)
            config = hub.applied(to: config)
            let desk = try QueueDesk(store: store, rules: Kiosk.rules(config), loop: runtime.loop, clock: clock, logger: logger)
            let spooler = PrintSpooler(printer: CUPSPrinter(queue: config.printer.queue), model: config.printer.model,
                                       timeout: config.printer.timeoutSeconds, spool: state.spoolPath, loop: runtime.loop,
                                       clock: clock, logger: logger)
            kiosk = Kiosk(config: config, devices: devices.devices, desk: desk, spooler: spooler,
                          key: try TotemKey.load(SealedKey.ticketKey, in: state.path, create: true), runtime: runtime)
            kiosk.authority.otherDoors = settings?.otherDoors(keeping: OtherDoors()) ?? OtherDoors()
            printerWatch = PrinterWatch(spooler: spooler, runtime: runtime)
            kiosk.paper = PaperRoll(directory: state.path, logger: logger)
            counting = Self.countingTally(store: store, today: desk.day.businessDay, door: config.totem.door, logger: logger)
        } catch {
            throw .data(error)
        }
        technicians = TechnicianDesk(store: kiosk.desk.store, control: config.control, runtime: runtime,
                                     timeOfDay: { [unowned kiosk] in kiosk.clockTime($0) }, record: { [unowned kiosk] in kiosk.record($0) })
        calibration = TouchCalibration(path: state.calibrationPath, kiosk: kiosk, runtime: runtime)
        server = try Self.controlServer(options, group: config.control.group, logger: logger)
    }

    /// The control socket, where `options` says, open to `group` besides root and clupd's user.
    private static func controlServer(_ options: DaemonOptions, group name: String?, logger: Logger) throws(DaemonError) -> ControlServer {
        let group: gid_t?
        if let name {
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
            return try ControlServer(path: options.socketPath, allowedGroup: group, logger: logger)
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
        usb.start(logger: logger)
        // Before the kiosk starts: its first settling records the lapses and no-shows of
        // while clupd was down, which the door's counting and the disk's watch must see.
        kiosk.desk.onRecorded = { [unowned self] events in
            for event in events { counting.record(event) }
        }
        kiosk.desk.onStorageProblem = { [unowned self] in
            notifier.notify("STATUS=\(statusLine())")
            hub.sync?.report(healthForTheHub)
            if kiosk.desk.storageProblem != nil { watchForRoom() }
        }
        kiosk.start()
        let refusals = RefusedCallers()
        server.onRefused = { [unowned self] peer in auditRefused(peer, refusals) }
        let router = controlRouter()
        server.start(on: loop) { body, peer in router.answer(body, from: peer) }
        SignalWatcher.install(on: loop, signals: [SIGTERM, SIGINT, SIGHUP]) { [unowned self] signal in
            if signal == SIGHUP { return self.reloadConfiguration() }
            self.logger.info("stopping on signal \(signal)")
            self.loop.stop()
        }
        printerWatch.onLooked = { [unowned self] in hub.sync?.report(healthForTheHub) }
        printerWatch.port = kiosk.devices.printerPort
        kiosk.onPrinterPortChange = { [unowned self] in hub.sync?.report(healthForTheHub) }
        printerWatch.start()
        startWatchdog()
        hub.start(kiosk: kiosk, deviceID: deviceID)
        notifier.notify("READY=1\nSTATUS=\(statusLine())")
        logger.info("clupd ready", metadata: ["device": "\(deviceID)", "socket": "\(server.path)",
                                                "state": "\(state.path)", "hub": "\(hub.enrolment?.hub ?? "none")"])
        loop.run()
        notifier.notify("STOPPING=1")
        kiosk.showOutOfOrderWhileAway(updating: TotemUpdater.updateUnderWay(in: state.path))
        hub.stop()
        server.stopListening()
        return 0
    }

    /// The counting figures of the day before `today` and of `today`, replayed from the log
    /// (an event that cannot be read is left out: the figures are a measure, not the count).
    static func countingTally(store: TotemStore, today: BusinessDay, door: String, logger: Logger) -> CountingTally {
        var tally = CountingTally(door: door)
        do {
            let from = try store.dayBefore(today) ?? today
            for stored in try store.events(ofTypes: CountingTally.eventTypes, openedOn: from) {
                guard let event = try? stored.decoded() else { continue }
                tally.record(event)
            }
        } catch {
            logger.warning("the door's counting figures could not be read from the log; they start from now", metadata: ["error": "\(error)"])
        }
        return tally
    }

    /// Pets systemd's watchdog from the loop itself: if the loop hangs, systemd restarts us.
    private func startWatchdog() {
        guard let interval = notifier.watchdogInterval else { return }
        loop.schedule(after: interval) { [unowned self] in
            self.notifier.notify("WATCHDOG=1")
            self.startWatchdog()
        }
    }

    /// SIGHUP (`systemctl reload clupd`): reads the configuration again and puts it in force.
    /// A file that does not parse changes nothing, and says so in the log and `status`;
    /// keys only a restart can change keep their running values, and `status` says which.
    func reloadConfiguration() {
        notifier.notify("RELOADING=1")
        defer { notifier.notify("READY=1") }
        let next: KioskConfiguration
        do {
            let file = try configuration.read()
            if let enrolment = hub.enrolment { try ConfigurationFile.refuseHubManagedKeys(configuration.path, hub: enrolment.hub) }
            next = hub.applied(to: file)
        } catch {
            configuration.refused(error)
            logger.error("configuration not reloaded; the one in force stays", metadata: ["error": "\(error)"])
            notifier.notify("STATUS=\(statusLine()); configuration not reloaded: \(error)")
            return
        }
        let restartOnly = config.restartOnlyDifferences(to: next)
        kiosk.adopt(next.keepingRestartOnlyKeys(of: config))
        printerWatch.watchClosely()
        configuration.reloaded(at: clock.now(), restartOnly: restartOnly)
        logger.notice("configuration reloaded", metadata: ["source": "\(configuration.source)",
                                                          "needs a restart": "\(restartOnly.joined(separator: ", "))"])
        notifier.notify("STATUS=\(statusLine()); configuration reloaded")
    }

    /// Free bytes on the state's filesystem past which a disk that was full is taken to have
    /// room again.
    static let roomAgainBytes: Int64 = 1 << 20

    /// While the disk is full, looks every 5 s for room: said at once, not at the next thing
    /// recorded (a closed store records nothing); a write that fails says it again.
    private func watchForRoom() {
        loop.schedule(after: 5) { [unowned self] in
            guard kiosk.desk.storageProblem != nil else { return }
            if let disk = DiskFill.of(state.path), disk.availableBytes > Self.roomAgainBytes {
                kiosk.desk.storageMayBeBack()
            } else {
                watchForRoom()
            }
        }
    }

    /// What `systemctl status clupd` says of it: running, and what keeps it from its work.
    func statusLine() -> String {
        "kiosk running, store \(config.store.id) totem \(config.totem.letter)"
            + (kiosk.desk.storageProblem.map { "; \($0)" } ?? "")
    }
}
