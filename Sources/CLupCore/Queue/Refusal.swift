/// Why a command was refused, with a stable code and a sentence for people.
public enum Refusal: Error, Hashable, Sendable, CodedErrorConvertible {
    case storeFull(occupied: Int, capacity: Int, reserved: Int)
    case nobodyWaiting
    case unknownTicket(String)
    case notCalledYet(String)
    case alreadyUsed(String)
    case noShow(String)
    case notPrinted(String)
    case notReprintable(String, String)
    case outsideBookingWindow(String)
    case slotFull(slotStart: String, bookings: Int)
    case noSuchSlot
    case unreadable(String)
    case forged
    case otherStore(UInt32)
    case unknownTotem(Character)
    case otherTotemsTicket(String, totem: Character)
    case bookingCancelled(String)
    case expired(String)
    case correctionBelowZero(count: Int, delta: Int)
    case correctionWithoutReason
    case zeroCorrection
    case correctionTooLarge(delta: Int)
    case countOutOfRange(Int)
    case numbersUsedUp(lane: String)

    public var coded: CodedError {
        switch self {
        case let .storeFull(occupied, capacity, reserved):
            CodedError(.storeFull, "no room: \(occupied) of \(capacity) places taken or promised"
                + (reserved > 0 ? ", \(reserved) kept for priority" : ""))
        case .nobodyWaiting: CodedError(.nobodyWaiting, "nobody is waiting")
        case let .unknownTicket(number): CodedError(.unknownTicket, "unknown ticket \(number)")
        case let .notCalledYet(number): CodedError(.notCalledYet, "ticket \(number) has not been called yet")
        case let .alreadyUsed(number): CodedError(.alreadyUsed, "ticket \(number) was already used")
        case let .noShow(number): CodedError(.noShow, "ticket \(number) was called but did not come in time")
        case let .notPrinted(number): CodedError(.notPrinted, "ticket \(number) was never printed")
        case let .notReprintable(number, state): CodedError(.notReprintable, "ticket \(number) is \(state); only a ticket the printer failed is reprinted")
        case let .outsideBookingWindow(number): CodedError(.outsideBookingWindow, "booking \(number) is outside its window")
        case let .slotFull(slot, bookings): CodedError(.slotFull, "the slot at \(slot) already holds \(bookings) bookings")
        case .noSuchSlot: CodedError(.noSuchSlot, "a booking needs the start of one of the store's slots")
        case let .unreadable(what): CodedError(.unreadableCode, "unreadable: \(what)")
        case .forged: CodedError(.forgedCode, "forged: the signature does not match")
        case let .otherStore(store): CodedError(.otherStoresTicket, "a ticket of another store (\(store))")
        case let .unknownTotem(letter): CodedError(.unknownTotemKey, "issued by totem \(letter), whose key this totem does not know")
        case let .expired(number): CodedError(.expiredTicket, "ticket \(number) has expired")
        case let .bookingCancelled(number): CodedError(.bookingCancelled, "booking \(number) was cancelled")
        case let .otherTotemsTicket(number, totem):
            CodedError(.otherTotemsTicket, "ticket \(number) is genuine, but totem \(totem) issued it and has not called it (as far as this door has heard from the hub): please use totem \(totem)'s door")
        case let .correctionBelowZero(count, delta):
            CodedError(.correctionBelowZero, "a correction of \(delta) would make the count \(count.addingSaturating(delta)), below zero")
        case .correctionWithoutReason: CodedError(.correctionWithoutReason, "a correction needs a reason")
        case .zeroCorrection: CodedError(.zeroCorrection, "a correction of 0 changes nothing")
        case let .correctionTooLarge(delta):
            CodedError(.correctionTooLarge, "a correction of \(delta) is more than the \(OccupancyLedger.maximumCorrection) people one correction may change")
        case let .countOutOfRange(count):
            CodedError(.countOutOfRange, "a count of \(count) people is outside 0...\(OccupancyLedger.maximumCount)")
        case let .numbersUsedUp(lane): CodedError(.numbersUsedUp, "today's \(lane) numbers are used up (\(TicketNumber.maximumSequence))")
        }
    }
}
