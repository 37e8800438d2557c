/// A strict reader of JSON text for the few shapes the hub reads by the thousand: a batch's
/// uploaded events and the payloads of the commonest events. Foundation's `JSONDecoder`
/// reads them too, at several times the cost (a container per object, a lookup per key).
///
/// It understands less than `JSONDecoder`, never more: on anything it was not written for (an
/// escape in a key, an exponent, a key given twice, a lone surrogate, a value of another
/// type, nesting past 64) it gives up, and its caller decodes the same text with
/// `JSONDecoder`, whose answer, or error, then stands. So a reader built on it can only be
/// faster, never different; `Fuzz/Sources/FuzzEventBatch` checks that on mutated input.
public struct JSONScanner {
    /// The scanner met something it does not read (the text may still be valid JSON).
    public struct GaveUp: Error {
        public init() {}
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    private static let maximumDepth = 64

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// `read` applied to `text`, which must hold one value and nothing after it but
    /// whitespace; nil when the scanner gave up.
    public static func scan<T>(_ text: UnsafeBufferPointer<UInt8>, _ read: (inout JSONScanner) throws(GaveUp) -> T) -> T? {
        var scanner = JSONScanner(text)
        do {
            scanner.skipSpace()
            let value = try read(&scanner)
            scanner.skipSpace()
            return scanner.index == text.count ? value : nil
        } catch {
            return nil
        }
    }

    /// `read` applied to the UTF-8 of `text`.
    public static func scan<T>(_ text: String, _ read: (inout JSONScanner) throws(GaveUp) -> T) -> T? {
        var text = text
        return text.withUTF8 { scan($0, read) }
    }

    // MARK: Objects and arrays

    /// Calls `member` with each key of an object, the scanner at its value; `member` must read
    /// or skip that value. Keys are plain ASCII or UTF-8 without escapes.
    public mutating func members(_ member: (inout JSONScanner, String) throws(GaveUp) -> Void) throws(GaveUp) {
        try items(between: UInt8(ascii: "{"), and: UInt8(ascii: "}")) { scanner throws(GaveUp) in
            let key = try scanner.plainString()
            scanner.skipSpace()
            try scanner.expect(UInt8(ascii: ":"))
            scanner.skipSpace()
            try member(&scanner, key)
        }
    }

    /// Calls `element` for each value of an array, the scanner at it.
    public mutating func elements(_ element: (inout JSONScanner) throws(GaveUp) -> Void) throws(GaveUp) {
        try items(between: UInt8(ascii: "["), and: UInt8(ascii: "]"), element)
    }

    /// The items of an object or an array, separated by commas, each read by `item`.
    private mutating func items(between open: UInt8, and close: UInt8, _ item: (inout JSONScanner) throws(GaveUp) -> Void)
        throws(GaveUp) {
        try expect(open)
        depth += 1
        guard depth <= Self.maximumDepth else { throw GaveUp() }
        skipSpace()
        if try peek() == close {
            index += 1
            depth -= 1
            return
        }
        while true {
            skipSpace()
            try item(&self)
            skipSpace()
            switch try next() {
            case UInt8(ascii: ","): continue
            case close:
                depth -= 1
                return
            default: throw GaveUp()
            }
        }
    }

    /// The bytes of the value here, checked to be JSON this scanner reads (for a value another
    /// decoder reads, or one nobody asked for).
    public mutating func skip() throws(GaveUp) -> UnsafeBufferPointer<UInt8> {
        let start = index
        switch try peek() {
        case UInt8(ascii: "{"): try members { scanner, _ throws(GaveUp) in _ = try scanner.skip() }
        case UInt8(ascii: "["): try elements { scanner throws(GaveUp) in _ = try scanner.skip() }
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: _ = try numberText()
        }
        return UnsafeBufferPointer(rebasing: bytes[start..<index])
    }

    /// True, past it, when the value here is `null`.
    public mutating func null() throws(GaveUp) -> Bool {
        guard try peek() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    // MARK: Scalars

    /// A string, its escapes resolved; it must be valid UTF-8 and contain no raw control byte.
    public mutating func string() throws(GaveUp) -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return try Self.text(UnsafeBufferPointer(rebasing: bytes[start..<index - 1]))
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            if byte < 0x20 { throw GaveUp() }
            index += 1
        }
        throw GaveUp()
    }

    /// A number with no exponent, as a finite `Double`.
    public mutating func double() throws(GaveUp) -> Double {
        let text = try numberText()
        guard text.count <= 40, !text.contains(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
              let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite
        else { throw GaveUp() }
        return value
    }

    /// A number with no fraction and no exponent that fits an `Int64`.
    public mutating func int64() throws(GaveUp) -> Int64 {
        let text = try numberText()
        var value: Int64 = 0
        let negative = text.first == UInt8(ascii: "-")
        for byte in text.dropFirst(negative ? 1 : 0) {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { throw GaveUp() }
            let digit = Int64(byte - UInt8(ascii: "0"))
            let (times, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflowA, !overflowB else { throw GaveUp() }
            value = sum
        }
        return value
    }

    /// An `int64()` that fits an `Int`.
    public mutating func int() throws(GaveUp) -> Int {
        guard let value = Int(exactly: try int64()) else { throw GaveUp() }
        return value
    }

    // MARK: The grammar

    /// The bytes of a JSON number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func numberText() throws(GaveUp) -> UnsafeBufferPointer<UInt8> {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, Self.isDigit(bytes[index]) else { throw GaveUp() }
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else { skipDigits() }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw GaveUp() }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw GaveUp() }
            skipDigits()
        }
        return UnsafeBufferPointer(rebasing: bytes[start..<index])
    }

    private mutating func skipDigits() {
        while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// A key: a string without escapes.
    private mutating func plainString() throws(GaveUp) -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            guard bytes[index] >= 0x20, bytes[index] != UInt8(ascii: "\\") else { throw GaveUp() }
            index += 1
        }
        guard index < bytes.count else { throw GaveUp() }
        index += 1
        return try Self.text(UnsafeBufferPointer(rebasing: bytes[start..<index - 1]))
    }

    /// The rest of a string that has an escape, from its first byte at `start`.
    private mutating func escapedString(from start: Int) throws(GaveUp) -> String {
        var resolved = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try resolved.withUnsafeBufferPointer { buffer throws(GaveUp) in try Self.text(buffer) }
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw GaveUp() }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): resolved.append(escape)
                case UInt8(ascii: "b"): resolved.append(0x08)
                case UInt8(ascii: "f"): resolved.append(0x0C)
                case UInt8(ascii: "n"): resolved.append(0x0A)
                case UInt8(ascii: "r"): resolved.append(0x0D)
                case UInt8(ascii: "t"): resolved.append(0x09)
                case UInt8(ascii: "u"): resolved.append(contentsOf: String(try unicodeEscape()).utf8)
                default: throw GaveUp()
                }
            case 0..<0x20: throw GaveUp()
            default: resolved.append(byte)
            }
        }
        throw GaveUp()
    }

    /// The scalar of a `\uXXXX` escape (the `\u` read), a surrogate pair's as one.
    private mutating func unicodeEscape() throws(GaveUp) -> Unicode.Scalar {
        let unit = try hexQuad()
        switch unit {
        case 0xD800..<0xDC00:
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { throw GaveUp() }
            index += 2
            let low = try hexQuad()
            guard (0xDC00..<0xE000).contains(low),
                  let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) else { throw GaveUp() }
            return scalar
        case 0xDC00..<0xE000: throw GaveUp()
        default:
            guard let scalar = Unicode.Scalar(unit) else { throw GaveUp() }
            return scalar
        }
    }

    private mutating func hexQuad() throws(GaveUp) -> UInt32 {
        guard index + 4 <= bytes.count else { throw GaveUp() }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8 = switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: throw GaveUp()
            }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }

    private static func text(_ utf8: UnsafeBufferPointer<UInt8>) throws(GaveUp) -> String {
        guard let text = String(validating: utf8, as: UTF8.self) else { throw GaveUp() }
        return text
    }

    private mutating func literal(_ word: StaticString) throws(GaveUp) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
              UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(bytes[index..<index + count])
        else { throw GaveUp() }
        index += count
    }

    private mutating func expect(_ byte: UInt8) throws(GaveUp) {
        guard try next() == byte else { throw GaveUp() }
    }

    private mutating func next() throws(GaveUp) -> UInt8 {
        let byte = try peek()
        index += 1
        return byte
    }

    private func peek() throws(GaveUp) -> UInt8 {
        guard index < bytes.count else { throw GaveUp() }
        return bytes[index]
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }
}

/// The keys of an object read once each: a key given twice makes the scanner give up
/// (JSONDecoder keeps one of them; which one is not worth depending on).
public struct SeenKeys {
    private var seen: UInt64 = 0

    public init() {}

    /// Notes key number `bit` (0 to 63) read.
    public mutating func note(_ bit: Int) throws(JSONScanner.GaveUp) {
        guard seen & (1 << bit) == 0 else { throw JSONScanner.GaveUp() }
        seen |= 1 << bit
    }

    public func has(_ bit: Int) -> Bool { seen & (1 << bit) != 0 }
}
