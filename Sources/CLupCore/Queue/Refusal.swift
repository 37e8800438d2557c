/// Why a command was refused, with a stable code and a sentence for people.
public enum Refusal: Error, Hashable, Sendable, CustomStringConvertible {
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
    case expired(String)
    case correctionBelowZero(count: Int, delta: Int)
    case correctionWithoutReason
    case zeroCorrection
    case correctionTooLarge(delta: Int)
    case countOutOfRange(Int)
    case numbersUsedUp(lane: String)

    public var description: String {
        switch self {
        case let .storeFull(occupied, capacity, reserved):
            "E-Q-001 no room: \(occupied) of \(capacity) places taken or promised"
                + (reserved > 0 ? ", \(reserved) kept for priority" : "")
        case .nobodyWaiting: "E-Q-002 nobody is waiting"
        case let .unknownTicket(number): "E-Q-003 unknown ticket \(number)"
        case let .notCalledYet(number): "E-Q-004 ticket \(number) has not been called yet"
        case let .alreadyUsed(number): "E-Q-005 ticket \(number) was already used"
        case let .noShow(number): "E-Q-006 ticket \(number) was called but did not come in time"
        case let .notPrinted(number): "E-Q-007 ticket \(number) was never printed"
        case let .notReprintable(number, state): "E-Q-010 ticket \(number) is \(state); only a ticket the printer failed is reprinted"
        case let .outsideBookingWindow(number): "E-Q-008 booking \(number) is outside its window"
        case let .slotFull(slot, bookings): "E-Q-009 the slot at \(slot) already holds \(bookings) bookings"
        case .noSuchSlot: "E-Q-011 a booking needs the start of one of the store's slots"
        case let .unreadable(what): "E-DOOR-001 unreadable: \(what)"
        case .forged: "E-DOOR-002 forged: the signature does not match"
        case let .otherStore(store): "E-DOOR-003 a ticket of another store (\(store))"
        case let .unknownTotem(letter): "E-DOOR-004 issued by totem \(letter), whose key this totem does not know"
        case let .expired(number): "E-DOOR-005 ticket \(number) has expired"
        case let .otherTotemsTicket(number, totem):
            "E-DOOR-007 ticket \(number) is genuine, but totem \(totem) issued it and calls it: please use totem \(totem)'s door"
        case let .correctionBelowZero(count, delta):
            "E-OCC-001 a correction of \(delta) would make the count \(count + delta), below zero"
        case .correctionWithoutReason: "E-OCC-002 a correction needs a reason"
        case .zeroCorrection: "E-OCC-003 a correction of 0 changes nothing"
        case let .correctionTooLarge(delta):
            "E-OCC-004 a correction of \(delta) is more than the \(OccupancyLedger.maximumCorrection) people one correction may change"
        case let .countOutOfRange(count):
            "E-OCC-005 a count of \(count) people is outside 0...\(OccupancyLedger.maximumCount)"
        case let .numbersUsedUp(lane): "E-Q-012 today's \(lane) numbers are used up (\(TicketNumber.maximumSequence))"
        }
    }
}
