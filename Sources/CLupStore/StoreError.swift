/// Errors of the totem's store, each with a stable code for logs and the shell.
public enum StoreError: Error, CustomStringConvertible, Equatable {
    case corruptRow(table: String, key: String)
    case foreignDay(expected: String, got: String)
    /// The disk holding the database is full: nothing was written.
    case storageFull(path: String)

    public var description: String {
        switch self {
        case let .corruptRow(table, key): "E-DB-010 unreadable row \(key) in table \(table)"
        case let .foreignDay(expected, got): "E-DB-011 an event of \(got) committed with the state of \(expected)"
        case let .storageFull(path): "E-DB-005 the disk holding \(path) is full; nothing was recorded: free some space there"
        }
    }
}
