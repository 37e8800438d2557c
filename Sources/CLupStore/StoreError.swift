import CLupCore

/// Errors of the totem's store, each with a stable code for logs and the shell.
public enum StoreError: Error, CodedErrorConvertible, Equatable {
    case corruptRow(table: String, key: String)
    case foreignDay(expected: String, got: String)
    /// The disk holding the database is full: nothing was written.
    case storageFull(path: String)

    public var coded: CodedError {
        switch self {
        case let .corruptRow(table, key): CodedError(.unreadableRow, "unreadable row \(key) in table \(table)")
        case let .foreignDay(expected, got): CodedError(.eventOfAnotherDay, "an event of \(got) committed with the state of \(expected)")
        case let .storageFull(path): CodedError(.diskFull, "the disk holding \(path) is full; nothing was recorded: free some space there")
        }
    }
}
