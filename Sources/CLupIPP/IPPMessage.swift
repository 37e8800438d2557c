/// IPP messages (RFC 8010), as much of them as clupd asks cupsd and reads back: a request
/// is built from operation attributes and encoded; an answer is parsed into its status and
/// attributes, each with the group it came in. Everything in an answer is checked against
/// the bytes there are: a short, long or malformed answer is an error, never a crash.

/// The delimiter tags that open a group of attributes.
public enum IPPGroup: UInt8, Sendable {
    case operation = 0x01
    case job = 0x02
    case printer = 0x04
    case unsupported = 0x05
    case subscription = 0x06
    case eventNotification = 0x07
    case resource = 0x08
    case document = 0x09
    case system = 0x0A
}

/// The value tags clupd writes or reads.
public enum IPPValueTag: UInt8, Sendable {
    case integer = 0x21
    case boolean = 0x22
    case enumeration = 0x23
    case textWithLanguage = 0x35
    case nameWithLanguage = 0x36
    case text = 0x41
    case name = 0x42
    case keyword = 0x44
    case uri = 0x45
    case charset = 0x47
    case naturalLanguage = 0x48
    case mimeMediaType = 0x49
}

/// One value of an attribute, as read from an answer.
public enum IPPValue: Sendable, Equatable {
    /// An integer or an enum.
    case integer(Int32)
    case boolean(Bool)
    /// Any of the string types (text, name, keyword, URI, …); for text and names with a
    /// language, the text without it.
    case string(String)
    /// Anything else (dates, resolutions, ranges, collections, out-of-band values): kept as
    /// its tag and bytes, read by nobody here.
    case other(tag: UInt8, bytes: [UInt8])

    public var integer: Int32? { if case let .integer(value) = self { value } else { nil } }
    public var boolean: Bool? { if case let .boolean(value) = self { value } else { nil } }
    public var string: String? { if case let .string(value) = self { value } else { nil } }
}

/// An attribute of an answer: its name and its values (one or more).
public struct IPPAttribute: Sendable, Equatable {
    public let name: String
    public var values: [IPPValue]
}

/// A group of an answer's attributes, as its delimiter tag opened it.
public struct IPPAttributeGroup: Sendable, Equatable {
    public let tag: UInt8
    public var attributes: [IPPAttribute]

    /// The first attribute named `name`.
    public subscript(name: String) -> IPPAttribute? {
        attributes.first { $0.name == name }
    }
}

/// An answer that is not IPP, or not whole.
public struct IPPFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A request: an operation and its operation attributes, then a document's bytes if any.
public struct IPPRequest: Sendable {
    public let operation: UInt16
    public let requestID: Int32
    private var attributes: [(tag: IPPValueTag, name: String, values: [IPPValue])] = []

    /// A request for `operation`, with the two attributes every request starts with
    /// (`attributes-charset` utf-8, `attributes-natural-language` en).
    public init(operation: UInt16, requestID: Int32) {
        self.operation = operation
        self.requestID = requestID
        add(.charset, "attributes-charset", "utf-8")
        add(.naturalLanguage, "attributes-natural-language", "en")
    }

    public mutating func add(_ tag: IPPValueTag, _ name: String, _ values: String...) {
        add(tag, name, strings: values)
    }

    public mutating func add(_ tag: IPPValueTag, _ name: String, strings: [String]) {
        attributes.append((tag, name, strings.map(IPPValue.string)))
    }

    public mutating func add(_ tag: IPPValueTag, _ name: String, integer: Int32) {
        attributes.append((tag, name, [.integer(integer)]))
    }

    /// The request's bytes: version 2.0, the operation, its id, the operation attributes and
    /// the end tag. Names and strings longer than IPP allows (32,767 bytes) are cut there.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = [2, 0]
        bytes.appendBigEndian(operation)
        bytes.appendBigEndian(UInt32(bitPattern: requestID))
        bytes.append(IPPGroup.operation.rawValue)
        for attribute in attributes {
            for (index, value) in attribute.values.enumerated() {
                bytes.append(attribute.tag.rawValue)
                bytes.appendField(index == 0 ? Array(attribute.name.utf8) : [])
                switch value {
                case let .integer(number):
                    bytes.appendBigEndian(UInt16(4))
                    bytes.appendBigEndian(UInt32(bitPattern: number))
                case let .boolean(flag):
                    bytes.appendBigEndian(UInt16(1))
                    bytes.append(flag ? 1 : 0)
                case let .string(text):
                    bytes.appendField(Array(text.utf8))
                case let .other(_, raw):
                    bytes.appendField(raw)
                }
            }
        }
        bytes.append(0x03)
        return bytes
    }
}

/// An answer: its status, the request id it answers and its groups of attributes in order.
public struct IPPResponse: Sendable, Equatable {
    public let status: UInt16
    public let requestID: Int32
    public let groups: [IPPAttributeGroup]

    /// The most groups, attributes and values an answer may hold: a Get-Jobs of 500 jobs
    /// holds some 4,000.
    public static let partLimit = 100_000

    /// Whether the status is one of success (0x0000–0x00FF; RFC 8011 5.4.15).
    public var succeeded: Bool { status < 0x0100 }

    /// The first attribute named `name`, in whatever group.
    public func first(_ name: String) -> IPPAttribute? {
        groups.lazy.compactMap { $0[name] }.first
    }

    /// The groups tagged `tag`: the jobs of a Get-Jobs answer, one group per job.
    public func groups(_ tag: IPPGroup) -> [IPPAttributeGroup] {
        groups.filter { $0.tag == tag.rawValue }
    }

    /// Parses an answer's bytes (those after the HTTP header). What follows the end tag (a
    /// document, in answers clupd never asks for) is ignored.
    public init(parsing bytes: [UInt8]) throws(IPPFormatError) {
        var reader = ByteReader(bytes)
        // The version (2 bytes), the status or operation (2) and the request id (4).
        guard bytes.count >= 8, let major = reader.byte(), reader.byte() != nil, let status = reader.uint16(),
              let id = reader.uint32() else { throw IPPFormatError("shorter than an IPP header") }
        guard major == 1 || major == 2 else { throw IPPFormatError("IPP version \(major).x, not 1.x or 2.x") }
        self.status = status
        requestID = Int32(bitPattern: id)
        var groups: [IPPAttributeGroup] = []
        var parts = 0
        while true {
            guard let tag = reader.byte() else { throw IPPFormatError("ends before its end tag") }
            // Each group, attribute and value costs far more held than sent: bounded.
            parts += 1
            guard parts <= Self.partLimit else { throw IPPFormatError("more than \(Self.partLimit) groups, attributes and values") }
            if tag == 0x03 { break }
            if tag < 0x10 {
                guard tag != 0x00 else { throw IPPFormatError("reserved delimiter tag 0x00") }
                groups.append(IPPAttributeGroup(tag: tag, attributes: []))
                continue
            }
            guard !groups.isEmpty else { throw IPPFormatError("an attribute before any group") }
            guard let name = reader.field(), let value = reader.field() else {
                throw IPPFormatError("an attribute cut short")
            }
            let parsed = try Self.value(tag: tag, value)
            let last = groups.count - 1
            if name.isEmpty {
                // An additional value of the attribute before it (or a collection's member).
                guard !groups[last].attributes.isEmpty else {
                    throw IPPFormatError("an additional value with no attribute before it")
                }
                groups[last].attributes[groups[last].attributes.count - 1].values.append(parsed)
            } else {
                groups[last].attributes.append(IPPAttribute(name: String(decoding: name, as: UTF8.self), values: [parsed]))
            }
        }
        self.groups = groups
    }

    private static func value(tag: UInt8, _ bytes: ArraySlice<UInt8>) throws(IPPFormatError) -> IPPValue {
        switch tag {
        case IPPValueTag.integer.rawValue, IPPValueTag.enumeration.rawValue:
            guard bytes.count == 4 else { throw IPPFormatError("an integer of \(bytes.count) bytes") }
            return .integer(Int32(bitPattern: bytes.reduce(0) { $0 << 8 | UInt32($1) }))
        case IPPValueTag.boolean.rawValue:
            guard bytes.count == 1, let flag = bytes.first, flag <= 1 else { throw IPPFormatError("a boolean of \(bytes.count) bytes") }
            return .boolean(flag == 1)
        case IPPValueTag.textWithLanguage.rawValue, IPPValueTag.nameWithLanguage.rawValue:
            // The language's length and bytes, then the text's, filling the value exactly.
            var reader = ByteReader(Array(bytes))
            guard reader.field() != nil, let text = reader.field(), reader.isAtEnd else {
                throw IPPFormatError("a text with language that does not fill its value")
            }
            return .string(String(decoding: text, as: UTF8.self))
        case 0x41...0x49:
            return .string(String(decoding: bytes, as: UTF8.self))
        default:
            return .other(tag: tag, bytes: Array(bytes))
        }
    }
}

/// Reads big-endian numbers and length-prefixed fields, nil past the end.
struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16() -> UInt16? {
        guard let high = byte(), let low = byte() else { return nil }
        return UInt16(high) << 8 | UInt16(low)
    }

    mutating func uint32() -> UInt32? {
        guard let high = uint16(), let low = uint16() else { return nil }
        return UInt32(high) << 16 | UInt32(low)
    }

    /// A two-byte length and that many bytes.
    mutating func field() -> ArraySlice<UInt8>? {
        guard let length = uint16().map(Int.init), length <= bytes.count - offset else { return nil }
        defer { offset += length }
        return bytes[offset..<offset + length]
    }
}

extension [UInt8] {
    mutating func appendBigEndian(_ value: UInt16) {
        append(UInt8(value >> 8))
        append(UInt8(value & 0xFF))
    }

    mutating func appendBigEndian(_ value: UInt32) {
        appendBigEndian(UInt16(value >> 16))
        appendBigEndian(UInt16(value & 0xFFFF))
    }

    /// A two-byte length and the bytes, cut at IPP's limit of 32,767.
    mutating func appendField(_ field: [UInt8]) {
        let kept = field.prefix(Int(Int16.max))
        appendBigEndian(UInt16(kept.count))
        append(contentsOf: kept)
    }
}
