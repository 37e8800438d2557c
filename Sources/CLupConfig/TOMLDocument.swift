import Foundation

/// A value in a TOML file.
public enum TOMLValue: Equatable, Sendable {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    case array([TOMLValue])

    /// An integer or a float as a Double; nil for other types.
    public var number: Double? {
        switch self {
        case let .integer(value): Double(value)
        case let .float(value): value
        default: nil
        }
    }

    /// The TOML name of the value's type, for error messages.
    public var typeName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .boolean: "a boolean"
        case .array: "an array"
        }
    }
}

/// The subset of TOML (v1.0) a totem's configuration uses: comments, `[table]` headers,
/// `key = value` with strings, integers, floats, booleans and one-line arrays.
///
/// Keys are flattened to dotted paths (`printer.queue`). Anything outside the subset is an
/// error naming its line, never a silent guess. Arrays nest at most `maximumDepth` deep: the
/// parser recurses into them, and a file of ten thousand `[` must not exhaust the stack.
public struct TOMLDocument: Sendable {
    public static let maximumDepth = 8

    /// Each key's value and the line it was set on.
    public private(set) var values: [String: (value: TOMLValue, line: Int)] = [:]

    /// Why a file is not valid TOML (of our subset).
    public struct SyntaxError: Error, Equatable, Sendable {
        public let line: Int
        public let message: String
    }

    public init(parsing text: String) throws(SyntaxError) {
        var table = ""
        // Split the bytes, not the Characters: "\r\n" is one Character in Swift, so a file
        // written on Windows would otherwise be one long line.
        for (index, rawLine) in Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            var cursor = Cursor(Array(rawLine), line: number)
            cursor.skipSpace()
            if cursor.atEndOfLine { continue }
            if cursor.peek == UInt8(ascii: "[") {
                cursor.advance()
                if cursor.peek == UInt8(ascii: "[") { throw cursor.error("arrays of tables are not supported") }
                table = try cursor.key().joined(separator: ".")
                cursor.skipSpace()
                try cursor.expect("]")
                try cursor.expectEndOfLine()
                continue
            }
            let key = try cursor.key()
            cursor.skipSpace()
            try cursor.expect("=")
            cursor.skipSpace()
            let value = try cursor.value()
            try cursor.expectEndOfLine()
            let path = (table.isEmpty ? [] : [table]) + [key.joined(separator: ".")]
            let fullKey = path.joined(separator: ".")
            if let earlier = values[fullKey] {
                throw SyntaxError(line: number, message: "\(fullKey) is already set on line \(earlier.line)")
            }
            values[fullKey] = (value, number)
        }
    }
}

/// Reads one line of TOML byte by byte; never traps on short input.
private struct Cursor {
    let bytes: [UInt8]
    let line: Int
    var position = 0

    init(_ bytes: [UInt8], line: Int) {
        // A file written on Windows ends its lines with CR LF.
        self.bytes = bytes.last == UInt8(ascii: "\r") ? Array(bytes.dropLast()) : bytes
        self.line = line
    }

    var peek: UInt8? { position < bytes.count ? bytes[position] : nil }
    var atEndOfLine: Bool { peek == nil || peek == UInt8(ascii: "#") }

    mutating func advance() { position += 1 }

    func error(_ message: String) -> TOMLDocument.SyntaxError {
        TOMLDocument.SyntaxError(line: line, message: message)
    }

    mutating func skipSpace() {
        while peek == UInt8(ascii: " ") || peek == UInt8(ascii: "\t") { advance() }
    }

    mutating func expect(_ character: Character) throws(TOMLDocument.SyntaxError) {
        guard let ascii = character.asciiValue, peek == ascii else {
            throw error("expected '\(character)'")
        }
        advance()
    }

    mutating func expectEndOfLine() throws(TOMLDocument.SyntaxError) {
        skipSpace()
        guard atEndOfLine else { throw error("unexpected text after the value") }
    }

    /// A dotted key: bare parts (`A-Za-z0-9_-`) or quoted ones.
    mutating func key() throws(TOMLDocument.SyntaxError) -> [String] {
        var parts: [String] = []
        repeat {
            skipSpace()
            if peek == UInt8(ascii: "\"") || peek == UInt8(ascii: "'") {
                parts.append(try string())
            } else {
                let start = position
                while let byte = peek, byte.isBareKeyCharacter { advance() }
                guard position > start else { throw error("expected a key") }
                parts.append(String(decoding: bytes[start..<position], as: UTF8.self))
            }
            skipSpace()
        } while peek == UInt8(ascii: ".") && { advance(); return true }()
        return parts
    }

    mutating func value(depth: Int = 0) throws(TOMLDocument.SyntaxError) -> TOMLValue {
        guard let byte = peek else { throw error("expected a value") }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return .string(try string())
        case UInt8(ascii: "["):
            return .array(try array(depth: depth + 1))
        case UInt8(ascii: "{"):
            throw error("inline tables are not supported; use a [table] header")
        default:
            return try scalar()
        }
    }

    mutating func array(depth: Int) throws(TOMLDocument.SyntaxError) -> [TOMLValue] {
        guard depth <= TOMLDocument.maximumDepth else {
            throw error("arrays nested more than \(TOMLDocument.maximumDepth) deep")
        }
        advance()
        var items: [TOMLValue] = []
        while true {
            skipSpace()
            if peek == UInt8(ascii: "]") { advance(); return items }
            items.append(try value(depth: depth))
            skipSpace()
            if peek == UInt8(ascii: ",") { advance(); continue }
            guard peek == UInt8(ascii: "]") else { throw error("expected ',' or ']' in array") }
        }
    }

    mutating func string() throws(TOMLDocument.SyntaxError) -> String {
        let quote = bytes[position]
        advance()
        if peek == quote, position + 1 < bytes.count, bytes[position + 1] == quote {
            throw error("multi-line strings are not supported")
        }
        var out: [UInt8] = []
        while let byte = peek {
            advance()
            if byte == quote { return try decodedUTF8(out) }
            if byte == UInt8(ascii: "\\") && quote == UInt8(ascii: "\"") {
                guard let escaped = peek else { break }
                advance()
                switch escaped {
                case UInt8(ascii: "\""): out.append(escaped)
                case UInt8(ascii: "\\"): out.append(escaped)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "u"): out.append(contentsOf: try unicodeEscape())
                default: throw error("unknown escape \\\(Character(Unicode.Scalar(escaped)))")
                }
            } else {
                out.append(byte)
            }
        }
        throw error("unterminated string")
    }

    mutating func unicodeEscape() throws(TOMLDocument.SyntaxError) -> [UInt8] {
        guard position + 4 <= bytes.count,
              let code = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16),
              let scalar = Unicode.Scalar(code)
        else { throw error("bad \\u escape") }
        position += 4
        return Array(String(Character(scalar)).utf8)
    }

    func decodedUTF8(_ bytes: [UInt8]) throws(TOMLDocument.SyntaxError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw error("string is not valid UTF-8") }
        return text
    }

    mutating func scalar() throws(TOMLDocument.SyntaxError) -> TOMLValue {
        let start = position
        while let byte = peek, byte != UInt8(ascii: ","), byte != UInt8(ascii: "]"),
              byte != UInt8(ascii: " "), byte != UInt8(ascii: "\t"), byte != UInt8(ascii: "#") {
            advance()
        }
        let word = String(decoding: bytes[start..<position], as: UTF8.self)
        if word == "true" { return .boolean(true) }
        if word == "false" { return .boolean(false) }
        let digits = word.replacingOccurrences(of: "_", with: "")
        if let integer = Int(digits) { return .integer(integer) }
        if digits.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }),
           digits.first.map({ $0.isNumber || $0 == "-" || $0 == "+" }) == true,
           let float = Double(digits) {
            return .float(float)
        }
        throw error(word.isEmpty ? "expected a value" : "'\(word)' is not a TOML value (strings need quotes)")
    }
}

private extension UInt8 {
    var isBareKeyCharacter: Bool {
        (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "z"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z"))
            || (self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9"))
            || self == UInt8(ascii: "_") || self == UInt8(ascii: "-")
    }
}
