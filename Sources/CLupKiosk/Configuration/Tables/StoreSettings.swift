import CLupConfig
import Foundation

/// `[store]`: which store the totem serves and when its business day starts.
public struct StoreSettings: ConfigTable {
    public static let table = "store"
    public static let doc = "The store this totem stands in."

    /// The chain's number for the store.
    public var id = 1
    public var name = "CLup Market"
    /// The store's time zone, as named in the file ("Europe/Rome").
    public var timeZoneName = "UTC"
    /// Minutes after local midnight at which a business day starts.
    public var businessDayStartMinute = 5 * 60
    /// When the store opens and closes, minutes after local midnight (the hub's, once enrolled).
    public var opensMinute = 0
    public var closesMinute = 24 * 60

    public init() {}

    /// The store's time zone (its name was checked when the file was read).
    public var timeZone: TimeZone { TimeZone(identifier: timeZoneName) ?? TimeZone(secondsFromGMT: 0)! }

    public static let keys: [ConfigKey<StoreSettings>] = [
        .integer("id", \.id, in: 1...Int(UInt32.max), doc: "the chain's number for this store"),
        .string("name", \.name, nonEmpty: true, doc: "printed on tickets and shown on screen"),
        .parsed("timezone", \.timeZoneName, doc: "the store's time zone, example: \"Europe/Rome\"",
                expected: "a time zone name like \"Europe/Rome\"", parse: { TimeZone(identifier: $0) == nil ? nil : $0 }, format: { $0 }),
        .parsed("business_day_start", \.businessDayStartMinute,
                doc: "local time the business day starts: tickets are numbered and people counted per business day",
                expected: "a time \"HH:MM\"", parse: Self.minuteOfDay, format: { String(format: "%02d:%02d", $0 / 60, $0 % 60) }),
        .parsed("opens", \.opensMinute, doc: "local time the store opens (booking slots start from it)",
                expected: "a time \"HH:MM\"", parse: Self.minuteOfDay, format: { String(format: "%02d:%02d", $0 / 60, $0 % 60) }),
        .parsed("closes", \.closesMinute, doc: "local time the store closes (the last booking slot ends by it)",
                expected: "a time \"HH:MM\", up to \"24:00\"", parse: { $0 == "24:00" ? 24 * 60 : Self.minuteOfDay($0) },
                format: { String(format: "%02d:%02d", $0 / 60, $0 % 60) }),
    ]

    /// `"HH:MM"` as minutes after midnight.
    static func minuteOfDay(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hours = Int(parts[0]), let minutes = Int(parts[1]),
              (0..<24).contains(hours), (0..<60).contains(minutes)
        else { return nil }
        return hours * 60 + minutes
    }
}
