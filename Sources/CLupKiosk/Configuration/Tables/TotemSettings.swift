import CLupConfig

/// `[totem]`: which of the store's totems this is, and its door.
public struct TotemSettings: ConfigTable {
    public static let table = "totem"
    public static let doc = "This totem among the store's."

    /// The prefix of this totem's ticket numbers: A-017, AP-004.
    public var letter: Character = "A"
    /// The door whose turnstile this totem counts.
    public var door = "main"

    public init() {}

    public static let keys: [ConfigKey<TotemSettings>] = [
        .parsed("letter", \.letter, doc: "prefix of this totem's ticket numbers: A-017, AP-004", expected: "one capital letter A-Z",
                parse: { $0.count == 1 && $0.first!.isASCII && $0.first!.isUppercase ? $0.first : nil }, format: { String($0) }),
        .string("door", \.door, nonEmpty: true, doc: "the door whose turnstile this totem counts"),
    ]
}
