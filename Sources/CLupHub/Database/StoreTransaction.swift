import PostgresNIO

/// A transaction that holds one store's row lock, with the connection it runs on. Only
/// `lock` makes one, so whatever takes a `StoreTransaction` runs under that store's lock:
/// planning its doors' places (`DoorShares.replan`), numbering its places and bookings.
///
/// The lock is the first of the store's rows a transaction takes: the store's own row, then
/// whatever else of the store (a totem's cursor, door grants, tickets, bookings, employees).
/// A transaction that took any of those before the store's row could wait for one that
/// holds the row and wants its rows: PostgreSQL ends such a pair as a deadlock (40P01),
/// which a door would see as a failed upload.
struct StoreTransaction: Sendable {
    /// What the store's row holds that the doors' places are planned with.
    struct Row: Sendable {
        let settingsVersion: Int64
        let capacity: Int
    }

    let store: StoreID
    let connection: PostgresConnection
    let logger: Logger

    /// Locks `store`'s row for the rest of the transaction on `connection`; nil if there is
    /// no such store.
    static func lock(_ store: StoreID, _ connection: PostgresConnection, _ logger: Logger) async throws -> StoreTransaction? {
        guard try await connection.rows(BatchStatements.LockStore(store: store), logger).first != nil else { return nil }
        return StoreTransaction(store: store, connection: connection, logger: logger)
    }

    /// The same, a store that does not exist refused (404).
    static func locking(_ store: StoreID, _ connection: PostgresConnection, _ logger: Logger) async throws -> StoreTransaction {
        guard let locked = try await lock(store, connection, logger) else {
            throw HubError(.notFound, .unknownStore, "no store \"\(store.rawValue.prefix(40))\"")
        }
        return locked
    }

    /// The store's row as it is now in this transaction (which may have changed it).
    func row() async throws -> Row {
        guard let row = try await connection.rows(BatchStatements.LockStore(store: store), logger).first else {
            throw HubError(.notFound, .unknownStore, "no store \"\(store.rawValue.prefix(40))\"")
        }
        return row
    }
}

extension HubDatabase {
    /// Runs `body` in one transaction that first locks `store`'s row (a store that does not
    /// exist: 404).
    func storeTransaction<T: Sendable>(_ store: StoreID, _ body: @escaping @Sendable (StoreTransaction) async throws -> T)
        async throws -> T {
        let logger = self.logger
        return try await transaction { connection in try await body(try await StoreTransaction.locking(store, connection, logger)) }
    }

    /// The same, once per idempotency key (`transaction(once:_:)`).
    func storeTransaction<T: Codable & Sendable>(_ store: StoreID, once key: IdempotencyKey?,
                                                 _ body: @escaping @Sendable (StoreTransaction) async throws -> T) async throws -> T {
        let logger = self.logger
        return try await transaction(once: key) { connection in
            try await body(try await StoreTransaction.locking(store, connection, logger))
        }
    }
}
