import PostgresNIO

/// The one order in which the hub's transactions lock a store's rows: the store's own row
/// first, then whatever else of the store (a totem's cursor, door grants, tickets, bookings,
/// employees). A transaction that took any of those before the store's row could wait for
/// one that holds the row and wants its rows: PostgreSQL ends such a pair as a deadlock
/// (40P01), which a door would see as a failed upload.
enum StoreLock {
    /// What the store's row holds that its transactions plan with.
    struct Locked {
        let settingsVersion: Int64
        let capacity: Int
    }

    /// Locks `store`'s row for the rest of the transaction; nil if there is no such store.
    @discardableResult
    static func take(_ store: StoreID, _ connection: PostgresConnection, _ logger: Logger) async throws -> Locked? {
        try await connection.rows(BatchStatements.LockStore(store: store), logger).first
    }
}
