import Logging
import CLupCore
import CLupProtocol
import Foundation

/// The hub's side of "Book a later time". Each call answers once, on whatever thread the
/// hub's client answers on; the kiosk hands the answer to its loop (`EventLoop.expect`), so
/// no thread of the kiosk, the workers included, waits while the hub thinks.
struct HubBookingDesk: Sendable {
    typealias Answer<Value> = @Sendable (Result<Value, CodedError>) -> Void
    /// Today's slots the hub can still book, with their free places.
    let slots: @Sendable (@escaping Answer<SlotOffers>) -> Void
    /// Books a place in the slot starting at the given Unix second.
    let book: @Sendable (Double, @escaping Answer<TotemBooking>) -> Void

    init(slots: @escaping @Sendable (@escaping Answer<SlotOffers>) -> Void,
         book: @escaping @Sendable (Double, @escaping Answer<TotemBooking>) -> Void) {
        self.slots = slots
        self.book = book
    }

    /// A desk whose calls answer before they return (a hub in the tests' process).
    init(answering slots: @escaping @Sendable () throws -> SlotOffers, book: @escaping @Sendable (Double) throws -> TotemBooking) {
        self.slots = { answer in answer(Result { try slots() }.mapError { CodedError(describing: $0) }) }
        self.book = { start, answer in answer(Result { try book(start) }.mapError { CodedError(describing: $0) }) }
    }
}

/// "Book a later time": today's free slots, from the hub and from this totem's own share
/// of each slot; a place booked through the hub when it has one, else issued here (offline
/// too, within the share the hub keeps for this totem). Either way the booking is recorded
/// before it prints, and the door admits it within the window around its slot.
extension Kiosk {
    /// The most slots offered at once (one button each).
    static let offeredSlots = 4

    /// Looks up today's free slots, then tells the screen.
    func findSlots() {
        let own = ownSlots()
        guard let hub = hubBookings else {
            handle(.slotsFound(Self.choices(own: own, atHub: [:], from: clock.now(), clockTime: clockTime)))
            return
        }
        let answer = loop.expect { [unowned self] (result: Result<SlotOffers, CodedError>) in
            var atHub: [Double: Int] = [:]
            switch result {
            case let .success(offers):
                for slot in offers.slots.prefix(24 * 60) where slot.free > 0 { atHub[slot.start] = slot.free }
            case let .failure(error):
                logger.warning("the hub's free slots are not known; offering this totem's own", metadata: ["error": "\(error)"])
            }
            handle(.slotsFound(Self.choices(own: ownSlots(), atHub: atHub, from: clock.now(), clockTime: clockTime)))
        }
        hub.slots { answer.send($0) }
    }

    /// The slots of today still to start, each with the places this totem may still book
    /// itself: from now to the store's closing (or the business day's end).
    func ownSlots() -> [Date: Int] {
        let policy = config.queue
        guard Self.takesBookings(config) else { return [:] }
        let now = clock.now()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = config.store.timeZone
        let midnight = calendar.startOfDay(for: now)
        let closes = midnight.addingTimeInterval(Double(config.store.closesMinute) * 60)
        let opens = midnight.addingTimeInterval(Double(config.store.opensMinute) * 60)
        let slot = policy.slotLength
        var start = Date(timeIntervalSince1970: (max(now, opens).timeIntervalSince1970 / slot).rounded(.up) * slot)
        var slots: [Date: Int] = [:]
        while start.addingTimeInterval(slot) <= closes, slots.count < 24 * 60 {
            slots[start] = max(0, policy.ownBookingLimit - desk.day.ownBookings(of: start, totem: config.totem.letter))
            start = start.addingTimeInterval(slot)
        }
        return slots
    }

    /// The first slots from `now` on with a free place, from this totem's share and the hub's.
    static func choices(own: [Date: Int], atHub: [Double: Int], from now: Date, clockTime: (Date) -> String) -> [SlotChoice] {
        // The hub's slots count even where this totem's calendar has none (its hours not heard yet).
        let fromHub = atHub.keys.map { Date(timeIntervalSince1970: $0) }.filter { $0 >= now.addingTimeInterval(-60) }
        return Set(own.keys).union(fromHub).sorted().compactMap { start -> SlotChoice? in
            let choice = SlotChoice(start: start, time: clockTime(start), atHub: atHub[start.timeIntervalSince1970] ?? 0,
                                    own: own[start] ?? 0)
            return choice.free > 0 ? choice : nil
        }.prefix(offeredSlots).map { $0 }
    }

    /// Books a place in the chosen slot: through the hub when it has one, else from this
    /// totem's own share.
    func book(_ choice: SlotChoice, askedAt: Double?) -> KioskOutcome {
        // No place is taken at the hub for a ticket the printer cannot give.
        if choice.atHub > 0, hubBookings != nil, let stopped = printerStopsTickets {
            let refusal = CodedError(.ticketNotRecorded, "no ticket: \(stopped)")
            handle(.ticketNotRecorded(reason: refusal.description))
            return KioskOutcome(refused: refusal)
        }
        guard choice.atHub > 0, let hub = hubBookings else {
            return issueTicket(.booking(slotStart: choice.start), askedAt: askedAt, language: screens.flow.language)
        }
        let start = choice.start.timeIntervalSince1970
        let answer = loop.expect { [unowned self] (result: Result<TotemBooking, CodedError>) in
            switch result {
            case let .success(booking):
                printHubBooking(booking, askedAt: askedAt)
            case let .failure(error):
                logger.warning("the hub did not book the slot", metadata: ["slot": "\(choice.time)", "error": "\(error)"])
                if choice.own > 0 {
                    _ = issueTicket(.booking(slotStart: choice.start), askedAt: askedAt, language: screens.flow.language)
                } else {
                    let refusal = CodedError(describing: error)
                    handle(.ticketNotRecorded(reason: "no place was booked at \(choice.time): \(refusal.message)"))
                }
            }
        }
        hub.book(start) { answer.send($0) }
        return KioskOutcome("asking the hub for a place at \(choice.time)")
    }

    /// A booking the hub made for the customer in front of the totem: recorded, then printed.
    private func printHubBooking(_ booking: TotemBooking, askedAt: Double?) {
        guard let number = TicketNumber(booking.number), number.totem == TicketPayload.hubLetter, number.lane == .booking,
              booking.slotStart.isFinite, (0...Double(UInt32.max)).contains(booking.slotStart)
        else {
            logger.error("the hub answered a booking that is not one", metadata: ["number": "\(booking.number.prefix(16))"])
            handle(.ticketNotRecorded(reason: CodedError(.hubAnswerUnreadable, "the hub's booking cannot be read").description))
            return
        }
        let slot = Date(timeIntervalSince1970: booking.slotStart)
        // The hub holds the place already: it is recorded even if the printer stopped meanwhile.
        let outcome = recordAndPrint(wait: WaitEstimate(low: 0, high: 0), askedAt: askedAt, whateverThePrinter: true) { day, now in
            try day.joinHubBooking(number, slot: slot, code: booking.code, at: now, language: screens.flow.language)
        }
        if let refusal = outcome.refusal {
            logger.error("a booking the hub made was not recorded", metadata: ["number": "\(number)", "reason": "\(refusal)"])
        }
    }
}
