import Foundation

/// The compact binary record in a ticket's QR code.
///
/// Layout, big-endian, 15 bytes: version (1), store (4), totem letter (1, ASCII), lane (1),
/// sequence (2), issue time in Unix seconds (4), validity in minutes (2). The business day
/// is not carried: it follows from the issue time and the store's day start.
public struct TicketPayload: Hashable, Sendable {
    public static let currentVersion: UInt8 = 1
    public static let encodedCount = 15

    public let store: UInt32
    public let number: TicketNumber
    public let issuedAt: Date
    public let validMinutes: UInt16

    public init(store: UInt32, number: TicketNumber, issuedAt: Date, validMinutes: UInt16) {
        self.store = store
        self.number = number
        self.issuedAt = issuedAt
        self.validMinutes = validMinutes
    }

    /// Why bytes are not a ticket payload.
    public enum DecodingError: Error, Equatable, Sendable {
        case wrongLength(Int)
        case unknownVersion(UInt8)
        case badTotemLetter(UInt8)
        case unknownLane(UInt8)
        case zeroSequence
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = [Self.currentVersion]
        bytes.append(contentsOf: store.bigEndianBytes)
        bytes.append(number.totem.asciiValue ?? 0)
        bytes.append(number.lane.wireCode)
        bytes.append(contentsOf: UInt16(clamping: number.sequence).bigEndianBytes)
        bytes.append(contentsOf: UInt32(saturating: issuedAt.timeIntervalSince1970).bigEndianBytes)
        bytes.append(contentsOf: validMinutes.bigEndianBytes)
        return bytes
    }

    public init(decoding bytes: [UInt8]) throws(DecodingError) {
        guard bytes.count == Self.encodedCount else { throw .wrongLength(bytes.count) }
        guard bytes[0] == Self.currentVersion else { throw .unknownVersion(bytes[0]) }
        let letter = bytes[5]
        guard letter >= UInt8(ascii: "A"), letter <= UInt8(ascii: "Z") else { throw .badTotemLetter(letter) }
        guard let lane = Lane(wireCode: bytes[6]) else { throw .unknownLane(bytes[6]) }
        let sequence = Int(UInt16(bigEndianBytes: bytes[7..<9]))
        guard sequence > 0 else { throw .zeroSequence }
        store = UInt32(bigEndianBytes: bytes[1..<5])
        number = TicketNumber(totem: Character(Unicode.Scalar(letter)), lane: lane, sequence: sequence)
        issuedAt = Date(timeIntervalSince1970: Double(UInt32(bigEndianBytes: bytes[9..<13])))
        validMinutes = UInt16(bigEndianBytes: bytes[13..<15])
    }
}

extension FixedWidthInteger {
    var bigEndianBytes: [UInt8] {
        withUnsafeBytes(of: bigEndian) { Array($0) }
    }

    /// Reads `Self.bitWidth / 8` bytes; the caller passes exactly that many.
    init(bigEndianBytes bytes: ArraySlice<UInt8>) {
        self = bytes.reduce(0) { ($0 << 8) | Self($1) }
    }
}
