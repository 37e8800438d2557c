import CLupCore
import Foundation

/// A lock against guessing: `maximumFailures` wrong PINs (or secrets) in a row lock it for
/// `lockSeconds`. It is rebuilt from the audit trail at start, so a restart does not unlock it.
struct FailureLock: Equatable {
    static let maximumFailures = 5
    var lockSeconds: Double
    /// Wrong tries since the last right one or the last lock.
    private(set) var failures = 0
    private(set) var lockedUntil: Date?

    init(lockSeconds: Double) {
        self.lockSeconds = lockSeconds
    }

    /// What the audit trail says happened, one entry at a time, oldest first.
    mutating func replay(_ action: AuditEntry.Action, at: Date, refused: AuditEntry.Action, locked: AuditEntry.Action) {
        switch action {
        case refused:
            // Tries while locked were refused unheard: they count for nothing.
            if !isLocked(at: at) { failures += 1 }
        case locked: (failures, lockedUntil) = (0, at.addingTimeInterval(lockSeconds))
        case .login: failures = 0
        default: break
        }
    }

    func isLocked(at now: Date) -> Bool { lockedUntil.map { now < $0 } ?? false }

    /// Counts a wrong try; true when it locks.
    mutating func failed(at now: Date) -> Bool {
        failures += 1
        guard failures >= Self.maximumFailures else { return false }
        (failures, lockedUntil) = (0, now.addingTimeInterval(lockSeconds))
        return true
    }

    mutating func succeeded() { failures = 0 }
}

/// The PIN pad's lock: one for the whole pad, since a staff number typed may not exist.
typealias PadLock = FailureLock

extension FailureLock {
    /// The pad's lock as the audit entries (oldest first) leave it.
    init(lockSeconds: Double, replaying entries: [(entry: AuditEntry, at: Date)]) {
        self.init(lockSeconds: lockSeconds)
        for (entry, at) in entries where entry.role == .employee {
            replay(entry.action, at: at, refused: .pinRefused, locked: .padLocked)
        }
    }
}
