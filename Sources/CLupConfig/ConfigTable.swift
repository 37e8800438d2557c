/// A table of the configuration file (`[store]`, `[queue]`, …): its keys, declared once.
public protocol ConfigTable: Equatable, Sendable {
    /// The table's name in the file.
    static var table: String { get }
    static var keys: [ConfigKey<Self>] { get }
    /// What the table is for, as a comment above it.
    static var doc: String { get }
    init()
    /// Checks what no single key can: keys that must agree. `problem(key, text)` makes the
    /// error, naming the key (and its line).
    func validate(_ problem: (String, String) -> ConfigurationError) throws(ConfigurationError)
}

extension ConfigTable {
    public func validate(_ problem: (String, String) -> ConfigurationError) throws(ConfigurationError) {}
}
