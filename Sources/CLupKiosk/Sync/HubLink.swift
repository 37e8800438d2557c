import CLupCore
import CLupProtocol
import CLupStore
import Foundation
import Logging

/// The totem's link to its hub: who it is there (`TotemEnrolment`), the outbox's upload
/// (`SyncClient`), and the store's settings that come down (`SettingsFollower`), with the
/// ones in force. A totem that is not enrolled has none of them and runs on its file alone.
final class HubLink {
    let enrolment: TotemEnrolment?
    let sync: SyncClient?
    /// The store's settings from the hub in force (the last applied, kept in the event log).
    private(set) var settings: StoreSettingsDocument?
    private var follower: SettingsFollower?
    private let runtime: KioskRuntime

    init(enrolment: TotemEnrolment?, settings: StoreSettingsDocument?, sync: SyncClient?, runtime: KioskRuntime) {
        self.enrolment = enrolment
        self.settings = settings
        self.sync = sync
        self.runtime = runtime
    }

    /// The configuration as the hub has it: the enrolment's identity and the store's settings
    /// over the file's. Until the first settings come, an enrolled door holds no place: the
    /// store's other doors may hold every one.
    func applied(to file: KioskConfiguration) -> KioskConfiguration {
        guard let enrolment else { return file }
        var config = enrolment.apply(to: file)
        if let settings {
            config = config.applying(settings)
        } else {
            config.queue.doorLimit = 0
        }
        return config
    }

    /// Starts the upload and the settings' long poll, and tells the hub the door's figures
    /// after every command the kiosk commits.
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
        let mailbox = runtime.loop.mailbox { [unowned self, unowned kiosk] (settings: StoreSettingsDocument) in
            apply(settings, to: kiosk)
        }
        follower = SettingsFollower(client: sync.client, deviceID: deviceID, deviceKey: sync.deviceKey,
                                    knownVersion: settings?.version ?? 0, clockOffset: { [sync] in sync.clockOffset },
                                    deliver: mailbox, logger: logger)
        follower?.start()
    }

    func stop() {
        sync?.stop()
        follower?.stop()
    }

    /// A totem not enrolled never uploads (nor can it be enrolled with this log): all of its
    /// log counts as held, and its clock is its own.
    private final class NoHub: HubPosition {
        var acknowledgedSeq: Int64? { .max }
        var measuredClockOffset: Double? { nil }
    }

    /// `sync now`: the upload tries at once (`answer` is called once that attempt ended), and
    /// the settings' long poll too if it is pausing after a failure.
    func syncNow(_ answer: @escaping @Sendable () -> Void) {
        follower?.retryNow()
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
        kiosk.adopt(kiosk.config.applying(next))
        kiosk.authority.otherDoors = next.otherDoors
        kiosk.desk.settle()
        logger.notice("store settings from the hub applied", metadata: [
            "version": "\(next.version)", "capacity": "\(next.capacity)",
            "priority share": "\(next.priorityShare)", "booking share": "\(next.bookingShare)",
            "door limit": "\(next.doorLimit.map(String.init) ?? "none")", "totem keys": "\(next.totemKeys?.count ?? 0)",
            "employees": "\(next.employees.map { "\($0.count)" } ?? "not sent")"])
    }

    /// The store settings last applied from the hub, from the event log; nil if none (or
    /// unreadable: logged, and the file's settings stay in force).
    static func lastSettings(in store: TotemStore, logger: Logger) -> StoreSettingsDocument? {
        do {
            guard let stored = try store.lastEvents(ofTypes: ["store.settings-applied"], limit: 1).last else { return nil }
            guard case let .storeSettingsApplied(settings, _, _) = try stored.decoded(), settings.problem == nil else { return nil }
            return settings
        } catch {
            logger.error("the hub's last store settings cannot be read; the file's are in force", metadata: ["error": "\(error)"])
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
