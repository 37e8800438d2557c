import Foundation
import GRDB

/// An employee who may log in at the totem's PIN pad: a staff number and the PIN as a
/// slow, salted hash (`kdf` names the function and its parameters). Nothing personal.
public struct EmployeeRecord: Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "employee"

    public let staffNumber: String
    public let kdf: String
    public let salt: Data
    public let pinHash: Data
    public let changedAt: Date
    /// Who manages the employee: `clupctl` at this totem, or the hub for the whole store.
    public let source: Source

    public enum Source: String, Sendable {
        case local
        case hub
    }

    public init(staffNumber: String, kdf: String, salt: Data, pinHash: Data, changedAt: Date, source: Source = .local) {
        self.staffNumber = staffNumber
        self.kdf = kdf
        self.salt = salt
        self.pinHash = pinHash
        self.changedAt = changedAt
        self.source = source
    }

    public func encode(to container: inout PersistenceContainer) {
        container["staff_number"] = staffNumber
        container["kdf"] = kdf
        container["salt"] = salt
        container["pin_hash"] = pinHash
        container["changed_at"] = changedAt.timeIntervalSince1970
        container["source"] = source.rawValue
    }

    public init(row: Row) {
        staffNumber = row["staff_number"]
        kdf = row["kdf"]
        salt = row["salt"]
        pinHash = row["pin_hash"]
        changedAt = Date(timeIntervalSince1970: row["changed_at"])
        source = Source(rawValue: row["source"]) ?? .local
    }
}

/// A change to the employees or the technicians, committed with the events that audit it.
public enum StaffChange: Equatable, Sendable {
    /// Adds the employee, or gives them a new PIN.
    case put(EmployeeRecord)
    case remove(staffNumber: String)
    /// The hub's list of the store's employees replaces the one it sent before (a staff
    /// number the hub and the totem both have is the hub's).
    case replaceFromHub([EmployeeRecord])
    /// Adds a technician, or gives one a new secret.
    case putTechnician(TechnicianRecord)
    case removeTechnician(name: String)

    func apply(in db: Database) throws {
        switch self {
        case let .put(record): try record.save(db)
        case let .remove(staffNumber): try EmployeeRecord.deleteOne(db, key: staffNumber)
        case let .replaceFromHub(records):
            try db.execute(sql: "DELETE FROM employee WHERE source = 'hub'")
            for record in records { try record.save(db) }
        case let .putTechnician(record): try record.save(db)
        case let .removeTechnician(name): try TechnicianRecord.deleteOne(db, key: name)
        }
    }
}

extension TotemStore {
    /// Every employee, by staff number.
    public func employees() throws -> [EmployeeRecord] {
        try database.read { db in try EmployeeRecord.order(sql: "staff_number").fetchAll(db) }
    }

    public func employee(_ staffNumber: String) throws -> EmployeeRecord? {
        try database.read { db in try EmployeeRecord.fetchOne(db, key: staffNumber) }
    }
}

/// A field technician who may log in on the control socket: a name and the secret as a slow,
/// salted hash, like an employee's PIN.
public struct TechnicianRecord: Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "technician"

    public let name: String
    public let kdf: String
    public let salt: Data
    public let secretHash: Data
    public let changedAt: Date

    public init(name: String, kdf: String, salt: Data, secretHash: Data, changedAt: Date) {
        self.name = name
        self.kdf = kdf
        self.salt = salt
        self.secretHash = secretHash
        self.changedAt = changedAt
    }

    public func encode(to container: inout PersistenceContainer) {
        container["name"] = name
        container["kdf"] = kdf
        container["salt"] = salt
        container["secret_hash"] = secretHash
        container["changed_at"] = changedAt.timeIntervalSince1970
    }

    public init(row: Row) {
        name = row["name"]
        kdf = row["kdf"]
        salt = row["salt"]
        secretHash = row["secret_hash"]
        changedAt = Date(timeIntervalSince1970: row["changed_at"])
    }
}

extension TotemStore {
    /// Every technician, by name.
    public func technicians() throws -> [TechnicianRecord] {
        try database.read { db in try TechnicianRecord.order(sql: "name").fetchAll(db) }
    }

    public func technician(_ name: String) throws -> TechnicianRecord? {
        try database.read { db in try TechnicianRecord.fetchOne(db, key: name) }
    }
}
