import Logging
import CLupCore
import CLupHardware
import CLupProtocol
import CLupStore
import Foundation

/// The employee at the totem: a 3 s press in the staff corner (or a staff badge at the door
/// reader) opens the PIN pad; the PIN is checked off the loop against its slow hash; five
/// wrong ones in a row lock the pad; a logged-in employee picks the reason and the priority
/// ticket prints. Every step is an audit event naming the staff number.
extension Kiosk {
    /// How long a press in the staff corner must last, in milliseconds.
    static let staffPressMilliseconds = 3000
    /// A staff badge's code, as the door reader reads it: this, then the staff number.
    static let staffBadgePrefix = "CLUP-STAFF:"

    /// A long press on the screen: in the staff corner of an entrance screen, held 3 s,
    /// it opens the PIN pad.
    func longPressed(_ gesture: TouchGesture) -> KioskOutcome? {
        guard let corner = screens.geometry.staffCorner(on: screens.flow.screen),
              corner.contains(x: gesture.x1 * screens.geometry.width, y: gesture.y1 * screens.geometry.height) else { return nil }
        guard gesture.milliseconds >= Self.staffPressMilliseconds else {
            return KioskOutcome("the staff corner opens the PIN pad after \(Self.staffPressMilliseconds / 1000) s "
                + "(held \(gesture.milliseconds) ms)")
        }
        return staffAccess(staffNumber: nil)
    }

    /// Opens the PIN pad, or says it is locked; `staffNumber` comes from a badge.
    func staffAccess(staffNumber: String?) -> KioskOutcome {
        let now = clock.now()
        let locked = padLock.isLocked(at: now) ? padLock.lockedUntil.map(lockEnd) : nil
        handle(.staffAccess(staffNumber: staffNumber, lockedUntil: locked))
        if let locked { return KioskOutcome("the PIN pad is locked until \(locked)") }
        return KioskOutcome("the PIN pad is open" + (staffNumber.map { " for staff number \($0)" } ?? ""))
    }

    /// A staff badge read at the door: the PIN pad opens with its staff number typed.
    func badgeRead(_ code: String) -> KioskOutcome {
        let number = String(code.dropFirst(Self.staffBadgePrefix.count))
        guard PinHash.problem(staffNumber: number) == nil else {
            return KioskOutcome(refused: CodedError(.badEmployee, "not a staff badge: \(TypedText.inMessage(code))"))
        }
        guard screens.flow.screen == .asleep || screens.flow.screen.isEntrance else {
            return KioskOutcome("staff badge \(number) read; the totem is busy (\(screens.flow.screen.name)), try again in a moment")
        }
        return staffAccess(staffNumber: number)
    }

    /// Checks the PIN typed on a worker (scrypt is slow on purpose), then tells the flow,
    /// counts a failure and locks the pad after the fifth in a row, auditing each.
    func checkPin(staffNumber: String, pin: String) {
        let record: EmployeeRecord?
        do {
            record = try desk.store.employee(staffNumber)
        } catch {
            logger.error("could not read the employees", metadata: ["error": "\(error)"])
            record = nil
        }
        let hash = record.map { PinHash(kdf: $0.kdf, salt: $0.salt, hash: $0.pinHash) }
        loop.background({ () -> Bool in
            guard let hash else {
                PinHash.decoy(pin)
                return false
            }
            return hash.matches(pin)
        }) { [unowned self] right in
            pinChecked(staffNumber: staffNumber, right: right)
        }
    }

    private func pinChecked(staffNumber: String, right: Bool) {
        let now = clock.now()
        var entries: [AuditEntry] = []
        var lockedUntil: String?
        if right {
            padLock.succeeded()
            entries.append(AuditEntry(role: .employee, who: staffNumber, action: .login, result: "ok", from: AuditEntry.touchscreen))
        } else {
            entries.append(AuditEntry(role: .employee, who: staffNumber, action: .pinRefused, result: "wrong staff number or PIN", from: AuditEntry.touchscreen))
            if padLock.failed(at: now), let until = padLock.lockedUntil {
                lockedUntil = lockEnd(until)
                entries.append(AuditEntry(role: .employee, who: staffNumber, action: .padLocked,
                                          result: "\(PadLock.maximumFailures) wrong PINs; locked until \(lockEnd(until))",
                                          from: AuditEntry.touchscreen))
                logger.warning("the PIN pad is locked after \(PadLock.maximumFailures) wrong PINs",
                               metadata: ["staff": "\(staffNumber)", "until": "\(lockEnd(until))"])
            }
        }
        record(entries)
        handle(.pinChecked(staffNumber: staffNumber, right: right, lockedUntil: lockedUntil))
    }

    /// Issues the priority ticket an employee asked for; their session ends with it.
    func issuePriority(_ reason: PriorityReason, by employee: String, askedAt: Double?) -> KioskOutcome {
        let outcome = issueTicket(.priority(reason), askedAt: askedAt, language: screens.flow.language, by: employee)
        let result = outcome.ticket.map { "\($0) (\(reason.rawValue))" } ?? "none: \(outcome.sentence)"
        record([AuditEntry(role: .employee, who: employee, action: .priorityTicket, result: result, from: AuditEntry.touchscreen),
                AuditEntry(role: .employee, who: employee, action: .logout, result: "ticket issued", from: AuditEntry.touchscreen)])
        logger.notice("priority ticket issued at the PIN pad",
                      metadata: ["number": "\(outcome.ticket.map(\.description) ?? "none")", "reason": "\(reason.rawValue)",
                                 "staff": "\(employee)"])
        return outcome
    }

    /// When the lock ends, as people are told it: the store's clock, to the minute after.
    private func lockEnd(_ until: Date) -> String {
        clockTime(Date(timeIntervalSince1970: (until.timeIntervalSince1970 / 60).rounded(.up) * 60))
    }

    func staffSessionEnded(_ employee: String, why: String) {
        record([AuditEntry(role: .employee, who: employee, action: .logout, result: why, from: AuditEntry.touchscreen)])
    }

    /// Keeps `entries` in the event log; one that cannot be kept is logged, and the totem goes on.
    func record(_ entries: [AuditEntry]) {
        do {
            try desk.audit(entries)
        } catch {
            logger.error("could not keep the staff audit", metadata: ["error": "\(error)",
                                                                       "entries": "\(entries.map(\.action.rawValue))"])
        }
    }

    /// The pad's lock as the audit trail leaves it (at start): the last day's entries, which
    /// hold any lock still on whatever else (maintenance commands) was audited since.
    static func padLock(from store: TotemStore, lockSeconds: Double, now: Date = Date()) -> PadLock {
        PadLock(lockSeconds: lockSeconds, replaying: (try? auditTrail(in: store, since: now.addingTimeInterval(-lockReplaySeconds))) ?? [])
    }

    /// How far back the locks are rebuilt from.
    static let lockReplaySeconds = 86_400.0

    /// The entries of the audit trail kept since `since` that can be read, oldest first.
    static func auditTrail(in store: TotemStore, since: Date) throws -> [(entry: AuditEntry, at: Date)] {
        try store.events(ofTypes: ["staff.audit"], since: since).compactMap { stored in
            guard case let .audited(entry, _, at)? = try? stored.decoded() else { return nil }
            return (entry, at)
        }
    }

    /// The last `count` entries of the audit trail that can be read, oldest first, with when each was kept.
    static func auditTrail(in store: TotemStore, last count: Int) throws -> [(entry: AuditEntry, at: Date)] {
        try store.lastEvents(ofTypes: ["staff.audit"], limit: count).compactMap { stored in
            guard case let .audited(entry, _, at)? = try? stored.decoded() else { return nil }
            return (entry, at)
        }
    }
}
