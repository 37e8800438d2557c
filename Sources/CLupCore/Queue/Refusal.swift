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
    /// A skip of a ticket waiting to be called: only a called ticket is skipped.
    case skipNotCalled(String)
    /// A skip of a ticket still printing or failed by the printer.
    case skipNotPrinted(String)
    /// A skip or void of a ticket admitted: the turnstile was released for it.
    case atTheDoor(String)
    /// A skip or void of a ticket whose holder came in.
    case alreadyInside(String)
    /// A skip or void of a ticket that is a no-show already.
    case alreadyNoShow(String)
    /// A void of a ticket still printing: it is voided once printed or failed.
    case stillPrinting(String)
    /// A void without a reason (blank once trimmed).
    case voidWithoutReason
    /// A void's or a correction's reason that is not one short line of plain text (why).
    case reasonNotOneLine(String)
    /// A skip or void of a ticket voided already.
    case alreadyVoided(String)
    /// A voided ticket's code read at the door.
    case voided(String)
    /// The code of a place its holder gave up from their phone, read at the door.
    case leftTheLine(String)

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
        case let .unknownTotem(letter) where letter == TicketPayload.hubLetter:
            CodedError(.unknownTotemKey, "signed by the hub, whose key this totem has not heard yet")
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
        case let .skipNotCalled(number):
            CodedError(.notCalledYet, "ticket \(number) has not been called yet: only a called ticket is skipped")
        case let .skipNotPrinted(number):
            CodedError(.notPrinted, "ticket \(number) has not been printed: only a called ticket is skipped")
        case let .atTheDoor(number): CodedError(.alreadyUsed, "ticket \(number) is already at the door: the turnstile was released for it")
        case let .alreadyInside(number): CodedError(.alreadyUsed, "ticket \(number) is already inside")
        case let .alreadyNoShow(number): CodedError(.noShow, "ticket \(number) is already a no-show: it holds no place")
        case let .stillPrinting(number):
            CodedError(.notPrinted, "ticket \(number) is still printing: it may be voided once printed, or once the printer failed")
        case .voidWithoutReason: CodedError(.voidWithoutReason, "voiding a ticket needs a reason")
        case let .reasonNotOneLine(why):
            CodedError(.reasonNotOneLine, "the reason \(why): give one line of at most \(DayState.maximumReason) characters")
        case let .alreadyVoided(number): CodedError(.alreadyVoided, "ticket \(number) was already voided")
        case let .voided(number): CodedError(.voidedTicket, "ticket \(number) was voided by staff")
        case let .leftTheLine(number):
            CodedError(.leftTheLine, "place \(number) was given up from the phone that took it: its code no longer opens the door")
        }
    }
}
