/// Errors of the totem's store, each with a stable code for logs and the shell.
public enum StoreError: Error, CustomStringConvertible, Equatable {
    case corruptRow(table: String, key: String)
    case unknownTicket(String)

    public var description: String {
        switch self {
        case let .corruptRow(table, key): "E-DB-010 unreadable row \(key) in table \(table)"
        case let .unknownTicket(number): "E-DB-011 no ticket \(number) today"
        }
    }
}
