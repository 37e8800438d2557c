import CLupCore
import CLupDrawing
import CLupProtocol
import CLupStore
import Foundation
import Logging

/// The totem's link to its hub: who it is there (`TotemEnrolment`), the outbox's upload
/// (`SyncClient`), the store's settings that come down, with the ones in force, and the
/// door's line with its part of the capacity (each followed by a `HubFollower`). A totem
/// that is not enrolled has none of them and runs on its file alone.
final class HubLink {
    let enrolment: TotemEnrolment?
    let sync: SyncClient?
    /// The store's settings from the hub in force (the last applied, kept in the event log).
    private(set) var settings: StoreSettingsDocument?
    /// The door's part of the capacity last put in force from its line (kept in the event
    /// log); a part sent with the settings, of a higher version, goes before it.
    private(set) var lineLimit: DoorLimit?
    /// The version of the door's line last taken from the hub (since this start).
    private(set) var lineVersion: Int64?
    private var settingsFollower: HubFollower<StoreSettingsDocument>?
    private var lineFollower: HubFollower<DoorLine>?
    /// The last look at the screen the hub asked for: each is answered once.
    private var lastScreenRequest: String?
    private let runtime: KioskRuntime

    init(enrolment: TotemEnrolment?, settings: StoreSettingsDocument?, lineLimit: DoorLimit?, sync: SyncClient?,
         runtime: KioskRuntime) {
        self.enrolment = enrolment
        self.settings = settings
        self.lineLimit = lineLimit
        self.sync = sync
        self.runtime = runtime
    }

    /// The configuration as the hub has it: the enrolment's identity and the store's settings
    /// over the file's, with the door's part of the capacity in force. Until the first
    /// settings come, an enrolled door holds no place: the store's other doors may hold
    /// every one.
    func applied(to file: KioskConfiguration) -> KioskConfiguration {
        guard let enrolment else { return file }
        var config = enrolment.apply(to: file)
        if let settings { config = config.applying(settings) }
        return withDoorLimit(config)
    }

    /// `config` with the door's part of the capacity in force: of the one its line gave and
    /// the one its last settings carried, the newer. None (no place) until the hub's first
    /// settings, even if the line came first, and none if neither gave one: an enrolled door
    /// never counts the whole store's capacity as its own.
    func withDoorLimit(_ config: KioskConfiguration) -> KioskConfiguration {
        var config = config
        guard let settings else {
            config.queue.doorLimit = 0
            return config
        }
        let fromSettings = settings.doorLimit.map { DoorLimit(limit: $0, version: settings.version) }
        config.queue.doorLimit = DoorLimit.newer(fromSettings, lineLimit)?.limit ?? 0
        return config
    }

    /// Starts the upload and the long polls of the settings and of the door's line, and
    /// tells the hub the door's figures after every command the kiosk commits.
    func start(kiosk: Kiosk, deviceID: String) {
        let logger = runtime.logger
        // The audit trail is trimmed of what the hub holds; a totem not enrolled never uploads
        // (nor can it be enrolled with this log), so all of its log counts as held.
        guard let sync else {
            kiosk.desk.hub = NoHub()
            return
        }
        kiosk.desk.hub = sync
        kiosk.desk.add(self)
        desk(kiosk.desk, committed: kiosk.desk.day)
        kiosk.hubBookings = sync.bookingDesk
        sync.start()
        let client = sync.client
        settingsFollower = HubFollower(
            "the store's settings", client: client, fetch: { try await client.settings(after: $0, signer: $1) }, version: \.version,
            deviceID: deviceID, deviceKey: sync.deviceKey, knownVersion: settings?.version ?? 0, clockOffset: { [sync] in sync.clockOffset },
            deliver: runtime.loop.mailbox { [unowned self, unowned kiosk] (settings: StoreSettingsDocument) in apply(settings, to: kiosk) },
            logger: logger)
        // Whole at each start (known: none, so that even a line at version 0 is taken, with the
        // other doors' lists): what the door holds already is not taken twice.
        lineFollower = HubFollower(
            "the door's line", client: client, fetch: { try await client.line(after: $0, signer: $1) }, version: \.version,
            deviceID: deviceID, deviceKey: sync.deviceKey, knownVersion: -1, clockOffset: { [sync] in sync.clockOffset },
            deliver: runtime.loop.mailbox { [unowned self, unowned kiosk] (line: DoorLine) in take(line, to: kiosk) },
            logger: logger)
        settingsFollower?.start()
        lineFollower?.start()
    }

    func stop() {
        sync?.stop()
        settingsFollower?.stop()
        lineFollower?.stop()
    }

    /// A totem not enrolled never uploads (nor can it be enrolled with this log): all of its
    /// log counts as held, and its clock is its own.
    private final class NoHub: HubPosition {
        var acknowledgedSeq: Int64? { .max }
        var measuredClockOffset: Double? { nil }
    }

    /// `sync now`: the upload tries at once (`answer` is called once that attempt ended), and
    /// the long polls too if they are pausing after a failure.
    func syncNow(_ answer: @escaping @Sendable () -> Void) {
        settingsFollower?.retryNow()
        lineFollower?.retryNow()
        sync?.syncNow(answer)
    }

    /// The sync as `clupctl sync` shows it.
    func report(deviceID: String) -> SyncReport {
        sync?.report() ?? SyncReport(state: .off, hub: nil, deviceID: deviceID, lastSeq: 0, acknowledgedSeq: nil, outboxDepth: nil,
                                     lastSuccess: nil, lastAttempt: nil, lastError: nil, clockSkew: nil, deadLettered: 0,
                                     consecutiveFailures: 0, nextAttemptIn: nil)
    }

    /// Puts a newer version of the store's settings from the hub in force: recorded as an
    /// event first, then adopted (and the queue settled: more room calls tickets at once).
    func apply(_ next: StoreSettingsDocument, to kiosk: Kiosk) {
        let logger = runtime.logger
        guard next.version > (settings?.version ?? 0) else { return }
        if let problem = next.problem {
            logger.error("the hub's store settings are refused", metadata: ["version": "\(next.version)", "problem": "\(problem)"])
            return
        }
        // The employees' PIN hashes go to the employee table, not into the event log.
        var recorded = next
        recorded.employees = nil
        let now = runtime.clock.now()
        let employees = next.employees.map { pins in
            StaffChange.replaceFromHub(pins.compactMap { pin in
                guard let salt = Data(base64Encoded: pin.salt), let hash = Data(base64Encoded: pin.hash) else { return nil }
                return EmployeeRecord(staffNumber: pin.staffNumber, kdf: pin.kdf, salt: salt, pinHash: hash, changedAt: now,
                                      source: .hub)
            })
        }
        do {
            // Recorded with the places taken from a phone it brings, in one commit.
            let totem = kiosk.config.totem.letter, validity = Double(kiosk.config.tickets.validMinutes) * 60
            try kiosk.desk.perform(changing: employees) { day, now in
                [.storeSettingsApplied(recorded, businessDay: day.businessDay, at: now.wall)]
                    + day.takeRemote(next.remoteTickets ?? [], left: next.leftRemoteNumbers, totem: totem, validity: validity, at: now)
            }
        } catch {
            logger.error("the hub's store settings were not recorded; the ones in force stay", metadata: ["error": "\(error)"])
            return
        }
        settings = next
        kiosk.adopt(withDoorLimit(kiosk.config.applying(next)))
        kiosk.authority.otherDoors = next.otherDoors(keeping: kiosk.authority.otherDoors)
        kiosk.desk.settle()
        logger.notice("store settings from the hub applied", metadata: [
            "version": "\(next.version)", "capacity": "\(next.capacity)",
            "priority share": "\(next.priorityShare)", "booking share": "\(next.bookingShare)",
            "door limit": "\(kiosk.config.queue.doorLimit.map(String.init) ?? "none")", "totem keys": "\(next.totemKeys?.count ?? 0)",
            "employees": "\(next.employees.map { "\($0.count)" } ?? "not sent")"])
    }

    /// Lines up the places taken from phones at this door that it does not hold yet, voids
    /// those their holders left, and puts a new part of the capacity in force (recorded, so
    /// that the hub knows it is held to), in one commit; nothing is written when the line
    /// brings nothing new (as after a restart, when it comes whole again). What the other
    /// doors called and used is kept for the door reader, in memory: after a restart it
    /// comes again with the line's first answer.
    func take(_ line: DoorLine, to kiosk: Kiosk) {
        let logger = runtime.logger
        if let problem = line.problem {
            logger.error("the hub's line for this door is refused", metadata: ["version": "\(line.version)", "problem": "\(problem)"])
            return
        }
        kiosk.authority.otherDoors.called = line.calledElsewhere
        kiosk.authority.otherDoors.used = line.usedElsewhere
        lineVersion = line.version
        if let wanted = line.screenWanted, wanted.id != lastScreenRequest {
            lastScreenRequest = wanted.id
            sendScreen(wanted, of: kiosk)
        }
        let totem = kiosk.config.totem.letter, validity = Double(kiosk.config.tickets.validMinutes) * 60
        // A part the line gives that this door has not recorded yet (the first after it moved
        // to its line too: recorded, it tells the hub the door holds to its line's part).
        let limit = line.doorLimit.flatMap { limit in limit.version > (lineLimit?.version ?? 0) ? limit : nil }
        do {
            let pending = try kiosk.desk.prepare { day, now in
                (limit.map { [.doorLimitApplied($0, businessDay: day.businessDay, at: now.wall)] } ?? [])
                    + day.takeRemote(line.remoteTickets, left: line.leftNumbers, totem: totem, validity: validity, at: now)
            }
            guard !pending.events.isEmpty else { return }
            try kiosk.desk.commit(pending)
        } catch {
            logger.error("the hub's line was not recorded; it is asked again", metadata: ["error": "\(error)"])
            lineFollower?.askAgain()
            return
        }
        guard let limit else { return }
        lineLimit = limit
        kiosk.adopt(withDoorLimit(kiosk.config))  // and settles the queue under the new part
        logger.notice("the door's part of the capacity from the hub applied", metadata: [
            "places": "\(limit.limit)", "version": "\(limit.version)"])
    }

    /// One frame of the screen for the look someone at the hub's panel asked for, sent; who
    /// asked is kept in the audit trail with how it went. The customers' screens show no
    /// one's data (numbers, waits, the store's texts). An employee's screens (the PIN pad,
    /// the priority reasons) are not sent: a frame saying a member of staff is at the totem
    /// goes instead.
    func sendScreen(_ wanted: ScreenWanted, of kiosk: Kiosk) {
        guard let sync else { return }
        let logger = runtime.logger
        let screen = kiosk.screens.flow.screen.name
        let staff = Self.staffScreens.contains(screen)
        let entry = { (result: String) in
            AuditEntry(role: .technician, who: "\(wanted.by) (hub panel)", action: AuditEntry.Action(rawValue: "screen-seen"), result: result,
                       what: "screen \(screen)\(staff ? " (an employee's: not sent)" : "")", from: "the hub's panel, look \(wanted.id)")
        }
        let png: [UInt8]
        do {
            png = staff ? try Self.staffAtTheTotem(kiosk.screens.geometry) : try kiosk.screenshot()
        } catch {
            logger.error("the screen could not be captured for the hub", metadata: ["error": "\(error)"])
            kiosk.record([entry("not sent: \(CodedError(describing: error).code)")])
            return
        }
        let frame = ScreenFrame(request: wanted.id, png: Data(png), takenAt: runtime.clock.now().timeIntervalSince1970)
        let told = runtime.loop.expect { [unowned kiosk] (error: CodedError?) in
            if let error { logger.error("the screen's frame did not reach the hub", metadata: ["error": "\(error)"]) }
            kiosk.record([entry(error.map { "not sent: \($0.code)" } ?? "sent")])
        }
        sync.sendScreen(frame) { error in told.send(error) }
    }

    /// The screens a look from the hub does not show: an employee's.
    static let staffScreens: Set<String> = ["pin-pad", "checking-pin", "pad-locked", "priority-reason"]

    /// What a look sees while an employee uses the totem.
    static func staffAtTheTotem(_ geometry: ScreenGeometry) throws -> [UInt8] {
        let canvas = try Canvas(width: Int(geometry.width), height: Int(geometry.height))
        canvas.fill(Color(red: 0.85, green: 0.87, blue: 0.89))
        canvas.text("A member of staff is using the totem", x: geometry.width / 2, y: geometry.height / 2,
                    size: max(12, geometry.width / 24), bold: true, alignment: .center)
        return try canvas.pngData()
    }

    /// The door's part of the capacity last put in force from its line, from the event log;
    /// nil if none (or unreadable: logged, and the settings' part is in force).
    static func lastLineLimit(in store: TotemStore, logger: Logger) -> DoorLimit? {
        lastApplied("store.door-limit-applied", in: store, logger: logger,
                    unreadable: "the door's last part of the capacity cannot be read; the settings' is in force") {
            guard case let .doorLimitApplied(limit, _, _) = $0, limit.problem == nil else { return nil }
            return limit
        }
    }

    /// The store settings last applied from the hub, from the event log; nil if none (or
    /// unreadable: logged, and the file's settings stay in force).
    static func lastSettings(in store: TotemStore, logger: Logger) -> StoreSettingsDocument? {
        lastApplied("store.settings-applied", in: store, logger: logger,
                    unreadable: "the hub's last store settings cannot be read; the file's are in force") {
            guard case let .storeSettingsApplied(settings, _, _) = $0, settings.problem == nil else { return nil }
            return settings
        }
    }

    /// What `read` takes from the last event of `type` in the log (by its index); nil if
    /// there is none, or it does not hold what it should, or the log cannot be read (logged).
    private static func lastApplied<T>(_ type: String, in store: TotemStore, logger: Logger, unreadable: Logger.Message,
                                       _ read: (DomainEvent) -> T?) -> T? {
        do {
            guard let stored = try store.lastEvents(ofTypes: [type], limit: 1).last else { return nil }
            return read(try stored.decoded())
        } catch {
            logger.error(unreadable, metadata: ["error": "\(error)"])
            return nil
        }
    }
}

extension HubLink: QueueDeskObserver {
    /// Tells the hub the door's figures after every command the kiosk commits.
    func desk(_ desk: QueueDesk, committed day: DayState) {
        guard let sync else { return }
        do {
            sync.report(DoorReport(held: day.heldHere, waiting: day.queueLength, seq: try desk.store.lastSeq()))
        } catch {
            runtime.logger.error("the door's figures for the hub could not be read", metadata: ["error": "\(error)"])
        }
    }
}

extension SyncClient: HubPosition {}
