/// Base45 (RFC 9285): bytes as text in the QR alphanumeric set, so a payload fits a
/// small QR symbol in alphanumeric mode.
public enum Base45 {
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)
    static let values: [UInt8: Int] = Dictionary(
        uniqueKeysWithValues: alphabet.enumerated().map { ($0.element, $0.offset) })

    /// Why a text is not Base45.
    public enum DecodingError: Error, Equatable, Sendable {
        case invalidCharacter(position: Int)
        case invalidLength
        case valueOutOfRange(position: Int)
    }

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 2 * 3 + 2)
        var index = 0
        while index + 1 < bytes.count {
            var n = Int(bytes[index]) * 256 + Int(bytes[index + 1])
            for _ in 0..<3 {
                out.append(alphabet[n % 45])
                n /= 45
            }
            index += 2
        }
        if index < bytes.count {
            let n = Int(bytes[index])
            out.append(alphabet[n % 45])
            out.append(alphabet[n / 45])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: String) throws(DecodingError) -> [UInt8] {
        let chars = Array(text.utf8)
        guard chars.count % 3 != 1 else { throw .invalidLength }
        var digits: [Int] = []
        digits.reserveCapacity(chars.count)
        for (position, char) in chars.enumerated() {
            guard let value = values[char] else { throw .invalidCharacter(position: position) }
            digits.append(value)
        }
        var out: [UInt8] = []
        var index = 0
        while index + 2 < digits.count {
            let n = digits[index] + digits[index + 1] * 45 + digits[index + 2] * 2025
            guard n <= 0xFFFF else { throw .valueOutOfRange(position: index) }
            out.append(UInt8(n >> 8))
            out.append(UInt8(n & 0xFF))
            index += 3
        }
        if index < digits.count {
            let n = digits[index] + digits[index + 1] * 45
            guard n <= 0xFF else { throw .valueOutOfRange(position: index) }
            out.append(UInt8(n))
        }
        return out
    }
}
