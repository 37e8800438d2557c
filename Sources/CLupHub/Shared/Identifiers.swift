import NIOCore
import PostgresNIO

/// A name the hub gives one kind of thing (a store, a totem): text on the wire and in
/// PostgreSQL, but a type of its own in the code, so a store's number is never passed where
/// a totem's id is meant. Interpolated into a query, it is a bound `text` parameter.
public protocol TextIdentifier: RawRepresentable, Hashable, Sendable, Codable, Comparable, LosslessStringConvertible,
    ExpressibleByStringLiteral, PostgresNonThrowingEncodable, PostgresDecodable where RawValue == String {
    init(rawValue: String)
}

extension TextIdentifier {
    public init(_ text: String) { self.init(rawValue: text) }
    public init(stringLiteral text: String) { self.init(rawValue: text) }

    public var description: String { rawValue }

    /// In JSON, the text itself ("7"), as before it had a type.
    public init(from decoder: any Decoder) throws { self.init(rawValue: try decoder.singleValueContainer().decode(String.self)) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public static var psqlType: PostgresDataType { String.psqlType }
    public static var psqlFormat: PostgresFormat { String.psqlFormat }

    public func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        rawValue.encode(into: &buffer, context: context)
    }

    public init<JSONDecoder: PostgresJSONDecoder>(from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat,
                                           context: PostgresDecodingContext<JSONDecoder>) throws {
        self.init(rawValue: try String(from: &buffer, type: type, format: format, context: context))
    }
}

/// A store's number, as signed into its tickets' codes ("7").
public struct StoreID: TextIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// An enrolled totem's device id ("store-7-totem-A-1f2e3d4c").
public struct DeviceID: TextIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// The name of a door of a store, as a totem was enrolled at it ("north").
public struct DoorName: TextIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}
