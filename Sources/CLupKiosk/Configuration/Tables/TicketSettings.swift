import CLupConfig

/// `[tickets]`: what a ticket says and how long it is valid.
public struct TicketSettings: ConfigTable {
    public static let table = "tickets"
    public static let doc = "The printed tickets."

    public var validMinutes = 240
    public var defaultWaitMinutes = 10
    /// The languages of the ticket's texts; the first one for the screen, the voice and the
    /// ticket's main lines.
    public var languages = ["en"]

    public init() {}

    public static let keys: [ConfigKey<TicketSettings>] = [
        .integer("valid_minutes", \.validMinutes, in: 1...Int(UInt16.max), doc: "how long a printed ticket's code stays valid"),
        .integer("default_wait_minutes", \.defaultWaitMinutes, in: 0...1440,
                 doc: "the wait printed until there is exit history to estimate from"),
        .strings("languages", \.languages, doc: "the ticket's languages, the first for the screen and the voice: en, it, de, fr, es"),
    ]

    public func validate(_ problem: (String, String) -> ConfigurationError) throws(ConfigurationError) {
        guard !languages.isEmpty else { throw problem("languages", "name at least one language") }
        if let unknown = languages.first(where: { !CustomerTexts.supported.contains($0) }) {
            throw problem("languages", "no texts for \"\(unknown)\" (have \(CustomerTexts.supported.joined(separator: ", ")))")
        }
    }
}
