import CLupCore
import Foundation

/// The PIN pad's lock: `maximumFailures` wrong PINs in a row lock it for `lockSeconds`. It
/// is rebuilt from the audit trail at start, so a restart does not unlock it.
struct PadLock: Equatable {
    static let maximumFailures = 5
    var lockSeconds: Double
    /// Wrong PINs since the last right one or the last lock.
    private(set) var failures = 0
    private(set) var lockedUntil: Date?

    init(lockSeconds: Double) {
        self.lockSeconds = lockSeconds
    }

    /// The lock as the audit entries (oldest first) leave it.
    init(lockSeconds: Double, replaying entries: [(entry: AuditEntry, at: Date)]) {
        self.init(lockSeconds: lockSeconds)
        for (entry, at) in entries where entry.role == .employee {
            switch entry.action {
            case .pinRefused: failures += 1
            case .padLocked: (failures, lockedUntil) = (0, at.addingTimeInterval(lockSeconds))
            case .login: failures = 0
            default: break
            }
        }
    }

    func isLocked(at now: Date) -> Bool { lockedUntil.map { now < $0 } ?? false }

    /// Counts a wrong PIN; true when it locks the pad.
    mutating func failed(at now: Date) -> Bool {
        failures += 1
        guard failures >= Self.maximumFailures else { return false }
        (failures, lockedUntil) = (0, now.addingTimeInterval(lockSeconds))
        return true
    }

    mutating func succeeded() { failures = 0 }
}
