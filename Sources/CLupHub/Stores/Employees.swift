import HTTPTypes
import CLupCore
import CLupProtocol
import Foundation
import Logging
import PostgresNIO

/// The store's employees, managed at the hub for all its totems: staff numbers and PIN
/// hashes (`PinHash`, made by `clup-hub employee` from the PIN typed; the hub never sees
/// the PIN itself once hashed). Every change makes a new settings version, which carries
/// the list to the totems, and is audited.
extension HubAdmin {
    public struct EmployeeRow: Codable, Sendable {
        public let staffNumber: String
        public let changedAt: Date
    }

    public func employees(store: StoreID) async throws -> [EmployeeRow] {
        try await database.transaction { [logger = database.logger] connection in
            try await connection.rows("""
                SELECT staff_number, changed_at FROM employee WHERE store_id = \(store) ORDER BY staff_number
                """, as: (String, Date).self, logger).map { EmployeeRow(staffNumber: $0.0, changedAt: $0.1) }
        }
    }

    /// Adds an employee to `store` (`replacing` false) or gives one a new PIN (true).
    public func putEmployee(store: StoreID, staffNumber: String, pin: PinHash, replacing: Bool, by actor: AuditActor)
        async throws {
        if let problem = PinHash.problem(staffNumber: staffNumber) ?? pin.problem { throw HubError.badRequest(problem) }
        try await database.storeTransaction(store) { [logger = database.logger] locked in
            let connection = locked.connection
            let exists = try await Self.lockEmployee(staffNumber, locked)
            if replacing, !exists { throw HubError(.notFound, .unknownHubEmployee, "store \(store) has no employee \(staffNumber)") }
            if !replacing, exists { throw HubError(.conflict, .hubEmployeeExists, "store \(store) has employee \(staffNumber) already") }
            let count = try await connection.all("SELECT count(*) FROM employee WHERE store_id = \(store)", as: Int.self, logger).first ?? 0
            guard replacing || count < StoreSettingsDocument.maximumEmployees else {
                throw HubError.badRequest("store \(store) has \(count) employees, the most the totems take")
            }
            try await connection.query("""
                INSERT INTO employee (store_id, staff_number, kdf, salt, pin_hash) VALUES
                    (\(store), \(staffNumber), \(pin.kdf), \(pin.salt), \(pin.hash))
                ON CONFLICT (store_id, staff_number) DO UPDATE
                    SET kdf = excluded.kdf, salt = excluded.salt, pin_hash = excluded.pin_hash, changed_at = now()
                """, logger: logger)
            try await DoorShares.replan(locked, bump: .configuration)
            try await Audit.record(by: actor, store: store, action: replacing ? "employee PIN changed" : "employee added",
                                   before: nil, after: "staff number \(staffNumber)", connection, logger)
        }
    }

    public func removeEmployee(store: StoreID, staffNumber: String, by actor: AuditActor) async throws {
        try await database.storeTransaction(store) { [logger = database.logger] locked in
            let connection = locked.connection
            guard try await Self.lockEmployee(staffNumber, locked) else {
                throw HubError(.notFound, .unknownHubEmployee, "store \(store) has no employee \(staffNumber.prefix(20))")
            }
            try await connection.query("DELETE FROM employee WHERE store_id = \(store) AND staff_number = \(staffNumber)", logger: logger)
            try await DoorShares.replan(locked, bump: .configuration)
            try await Audit.record(by: actor, store: store, action: "employee removed", before: "staff number \(staffNumber)",
                                   after: nil, connection, logger)
        }
    }

    /// Whether the locked store has the employee (locked for the change).
    private static func lockEmployee(_ staffNumber: String, _ locked: StoreTransaction) async throws -> Bool {
        try await !locked.connection.all("""
            SELECT staff_number FROM employee WHERE store_id = \(locked.store) AND staff_number = \(staffNumber) FOR UPDATE
            """, as: String.self, locked.logger).isEmpty
    }
}

extension StoreSettingsReader {
    /// The store's employees as the totems take them.
    static func employees(store: StoreID, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> [StoreSettingsDocument.EmployeePin] {
        try await connection.rows("""
            SELECT staff_number, kdf, salt, pin_hash FROM employee WHERE store_id = \(store)
            ORDER BY staff_number LIMIT \(StoreSettingsDocument.maximumEmployees)
            """, as: (String, String, Data, Data).self, logger).map {
            StoreSettingsDocument.EmployeePin(staffNumber: $0.0, kdf: $0.1, salt: $0.2.base64EncodedString(), hash: $0.3.base64EncodedString())
        }
    }
}
