import Foundation

/// The compact binary record in a ticket's QR code.
///
/// Layout, big-endian, 15 bytes: version (1), store (4), totem letter (1, ASCII), lane (1),
/// sequence (2), issue time in Unix seconds (4), validity in minutes (2). The business day
/// is not carried: it follows from the issue time and the store's day start.
///
/// Version 2 is a booking made through the hub (in the app): the same layout, signed by the
/// hub with the store's booking key, numbered with the letter `hubLetter` in the booking
/// lane, and its time is the start of the booked slot (when it was booked is not carried).
///
/// Version 3 is a place in the line taken from a phone: the same layout, signed by the hub
/// with the store's booking key, numbered with the letter of the door's totem in the remote
/// lane (`AR-004`), and its time is when the hub took it.
public struct TicketPayload: Hashable, Sendable {
    public static let currentVersion: UInt8 = 1
    public static let hubBookingVersion: UInt8 = 2
    public static let remoteVersion: UInt8 = 3
    public static let encodedCount = 15
    /// The letter of bookings made through the hub; no totem is enrolled with it.
    public static let hubLetter: Character = "Z"

    public let store: UInt32
    public let number: TicketNumber
    /// When a totem issued it; for a booking made through the hub, the start of its slot.
    public let issuedAt: Date
    public let validMinutes: UInt16
    /// For a booking made through the hub: the start of its slot (`issuedAt` too); else nil.
    public let slotStart: Date?

    public init(store: UInt32, number: TicketNumber, issuedAt: Date, validMinutes: UInt16) {
        self.store = store
        self.number = number
        self.issuedAt = issuedAt
        self.validMinutes = validMinutes
        slotStart = nil
    }

    /// A booking made through the hub: booking `sequence` of the slot's day, for the slot
    /// starting at `slotStart` (whole seconds), lasting `slotMinutes`.
    public init(store: UInt32, hubBooking sequence: Int, slotStart: Date, slotMinutes: UInt16) {
        self.store = store
        number = TicketNumber(totem: Self.hubLetter, lane: .booking, sequence: sequence)
        issuedAt = slotStart
        validMinutes = slotMinutes
        self.slotStart = slotStart
    }

    /// A place in the line of totem `number.totem`'s door taken from a phone at `joinedAt`
    /// (whole seconds), valid `validMinutes`.
    public init(store: UInt32, remote number: TicketNumber, joinedAt: Date, validMinutes: UInt16) {
        precondition(number.lane == .remote && number.totem != Self.hubLetter, "a remote ticket is numbered for a totem's door")
        self.store = store
        self.number = number
        issuedAt = joinedAt
        self.validMinutes = validMinutes
        slotStart = nil
    }

    /// Whose key signed it: the hub's (letter `hubLetter`) for its bookings and remote
    /// tickets, else the issuing totem's.
    public var signer: Character {
        slotStart != nil || number.lane == .remote ? Self.hubLetter : number.totem
    }

    /// Why bytes are not a ticket payload.
    public enum DecodingError: Error, Equatable, Sendable {
        case wrongLength(Int)
        case unknownVersion(UInt8)
        case badTotemLetter(UInt8)
        case unknownLane(UInt8)
        case zeroSequence
        /// The hub's letter on a totem's ticket, a totem's letter on a hub's booking, a hub's
        /// booking in another lane, or the remote lane in another version than 3.
        case letterOfTheOtherIssuer
    }

    public func encoded() -> [UInt8] {
        let version = slotStart != nil ? Self.hubBookingVersion : number.lane == .remote ? Self.remoteVersion : Self.currentVersion
        var bytes: [UInt8] = [version]
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
        guard [Self.currentVersion, Self.hubBookingVersion, Self.remoteVersion].contains(bytes[0]) else {
            throw .unknownVersion(bytes[0])
        }
        let letter = bytes[5]
        guard letter >= UInt8(ascii: "A"), letter <= UInt8(ascii: "Z") else { throw .badTotemLetter(letter) }
        guard let lane = Lane(wireCode: bytes[6]) else { throw .unknownLane(bytes[6]) }
        let sequence = Int(UInt16(bigEndianBytes: bytes[7..<9]))
        guard sequence > 0 else { throw .zeroSequence }
        let fromHub = bytes[0] == Self.hubBookingVersion
        guard fromHub == (letter == Self.hubLetter.asciiValue), !fromHub || lane == .booking,
              (bytes[0] == Self.remoteVersion) == (lane == .remote)
        else { throw .letterOfTheOtherIssuer }
        store = UInt32(bigEndianBytes: bytes[1..<5])
        number = TicketNumber(totem: Character(Unicode.Scalar(letter)), lane: lane, sequence: sequence)
        issuedAt = Date(timeIntervalSince1970: Double(UInt32(bigEndianBytes: bytes[9..<13])))
        validMinutes = UInt16(bigEndianBytes: bytes[13..<15])
        slotStart = fromHub ? issuedAt : nil
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
