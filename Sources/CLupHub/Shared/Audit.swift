import Logging
import PostgresNIO

/// The chain's audit trail, one home for every feature that changes something (the panel,
/// the administrator's shell, rollouts, retention, employees): who did what to which store
/// (nil: to the chain), with the values before and after. Written on the connection of the
/// change's own transaction, so neither is ever kept without the other. Shown in the panel
/// and by `clup-hub audit`.
enum Audit {
    static func record(who: String, store: StoreID?, action: String, before: String?, after: String?,
                       _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO audit (who, store_id, action, before, after) VALUES (\(who), \(store), \(action), \(before), \(after))
            """, logger: logger)
    }
}
