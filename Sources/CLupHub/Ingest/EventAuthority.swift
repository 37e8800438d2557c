import CLupCore
import PostgresNIO

/// What a totem's events may change at the hub: the figures of the door it was enrolled
/// at, and tickets as the design lets a door touch them. The hub takes the door and the
/// ticket from the device's enrolment, never from a payload, and keeps anything else as a
/// dead letter with its reason.
///
/// A door's own tickets carry its letter. A booking made through the hub (letter Z) is
/// the store's: any door admits it, and a door issues one only if the hub booked it for
/// that door. Another door's ticket may be taken in (`ticket.from-other-door`) while the
/// hub has it called, which is how the taking door learnt it might; from then on the
/// taking door admits it, sees it leave, lets its admission lapse or its window end.
/// Nothing else of another door's ticket is this door's. A passage through this door
/// always counts (the person went through); only the ticket it names may be left out.
struct EventAuthority {
    struct TicketKey: Hashable { let day: String, number: String }

    /// What the hub holds of a ticket the batch names that is not plainly this door's.
    struct Held {
        /// The ticket's state at the hub (`called`, `admitted` …).
        var state: String
        /// The device that took it in or admitted it, if any.
        var admittedBy: String?
        /// For a booking made through the hub: whether it was booked for this device.
        var bookedHere = false
        /// The business day the hub keeps the ticket's row under (`ticket_day`), which may be
        /// another than the batch names: a ticket carried into a later day since, or not yet
        /// into the batch's. Two days a batch names may be one row.
        var row: String? = nil
    }

    let device: AuthenticatedDevice
    /// The hub's rows of the other doors' tickets and of the bookings the batch names.
    var held: [TicketKey: Held]

    /// What becomes of an event of this device: applied as it is, applied in part (a
    /// passage without a ticket that is not this door's), or refused with the reason.
    enum Verdict: Equatable {
        case apply(DomainEvent)
        case refuse(String)
    }

    /// The verdict on `event`. Tickets taken in earlier in the batch count as taken: call
    /// in seq order.
    mutating func verdict(on event: DomainEvent, day: String) -> Verdict {
        switch event {
        case let .passage(direction, door, businessDay, at, ticket, steady):
            if door != device.door.rawValue { return .refuse(Self.otherDoor(event.type, door, device.door.rawValue)) }
            guard let ticket, touch(ticket, day: day, event.type, takingIn: false) != nil else { return .apply(event) }
            return .apply(.passage(direction: direction, door: door, businessDay: businessDay, at: at, ticket: nil, steady: steady))
        case let .occupancyCorrected(door, _, _, _, _, _):
            return door == device.door.rawValue ? .apply(event) : .refuse(Self.otherDoor(event.type, door, device.door.rawValue))
        case let .dayOpened(businessDay, after, inside, tickets, at):
            if let door = inside.keys.sorted().first(where: { $0 != device.door.rawValue }) {
                return .refuse(Self.otherDoor(event.type, door, device.door.rawValue))
            }
            // The tickets still in play carried into the day: other doors' tickets taken in
            // here have rows of their own doors, so only this door's own are carried by it.
            return .apply(.dayOpened(businessDay: businessDay, after: after, inside: inside,
                                     tickets: tickets.filter { isOwn($0.number) }, at: at))
        case let .ticketIssued(ticket) where ticket.number.totem == TicketPayload.hubLetter:
            let key = TicketKey(day: day, number: ticket.number.description)
            return held[key]?.bookedHere == true ? .apply(event)
                : .refuse("ticket.issued for \(ticket.number): the hub booked no such number for totem \(device.letter)")
        case let .ticketIssued(ticket):
            return isOwn(ticket.number) ? .apply(event)
                : .refuse("ticket.issued for \(ticket.number): totem \(device.letter) issues only its own tickets")
        case let .ticketFromOtherDoor(ticket, _):
            return touch(ticket.number, day: day, event.type, takingIn: true).map(Verdict.refuse) ?? .apply(event)
        case let .ticketAdmitted(number, _, _, _), let .admissionLapsed(number, _, _), let .ticketLeft(number, _, _),
             let .ticketNoShow(number, _, _), let .ticketSkipped(number, _, _, _), let .ticketVoided(number, _, _, _, _):
            return touch(number, day: day, event.type, takingIn: false).map(Verdict.refuse) ?? .apply(event)
        case let .ticketSubmitted(number, _, _), let .ticketPrinted(number, _, _), let .ticketPrintFailed(number, _, _),
             let .ticketCalled(number, _, _, _, _), let .ticketReprinted(number, _, _):
            return isOwn(number) ? .apply(event) : .refuse("\(event.type) for \(number): only its own door may do that")
        case let .doorLimitApplied(limit, _, _):
            return limit.problem.map { .refuse("\(event.type): \($0)") } ?? .apply(event)
        case .storeSettingsApplied, .audited:
            return .apply(event)
        }
    }

    /// Whether `number` is this door's own, or a booking of the store's.
    func isOwn(_ number: TicketNumber) -> Bool {
        String(number.totem) == device.letter || number.totem == TicketPayload.hubLetter
    }

    /// Why this door may not touch another door's ticket, or nil: it may take one in while
    /// the hub has it called; after, only the door that took it in touches it.
    private mutating func touch(_ number: TicketNumber, day: String, _ type: String, takingIn: Bool) -> String? {
        if isOwn(number) { return nil }
        let key = TicketKey(day: day, number: number.description)
        guard let ticket = held[key] else { return "\(type) for \(number): the hub has no such ticket on \(day)" }
        if !takingIn {
            return ticket.admittedBy == device.deviceID.rawValue ? nil
                : "\(type) for \(number): totem \(number.totem)'s ticket, not taken in at this door"
        }
        guard ticket.state == TicketState.called.rawValue else {
            return "\(type) for \(number): the hub has it \(ticket.state), not called at its door"
        }
        let taken = Held(state: TicketState.called.rawValue, admittedBy: device.deviceID.rawValue, row: ticket.row)
        held[key] = taken
        for (other, row) in held where other.number == key.number && ticket.row != nil && row.row == ticket.row { held[other] = taken }
        return nil
    }

    static func otherDoor(_ type: String, _ door: String, _ own: String) -> String {
        "\(type) names door \"\(TypedText.kept(door, maximum: 32))\"; this totem is enrolled at door \"\(own)\""
    }

    /// The tickets `events` name that are another door's, or bookings it issues, by business day.
    static func ticketsToLoad(in events: [(DomainEvent, String)], of device: AuthenticatedDevice) -> [TicketKey] {
        var keys: Set<TicketKey> = []
        let authority = EventAuthority(device: device, held: [:])
        for (event, day) in events {
            let number: TicketNumber? = switch event {
            case let .ticketIssued(ticket): ticket.number.totem == TicketPayload.hubLetter ? ticket.number : nil
            case let .ticketFromOtherDoor(ticket, _): ticket.number
            case let .ticketAdmitted(number, _, _, _), let .admissionLapsed(number, _, _), let .ticketLeft(number, _, _),
                 let .ticketNoShow(number, _, _), let .ticketSkipped(number, _, _, _), let .ticketVoided(number, _, _, _, _): number
            case let .passage(_, _, _, _, ticket, _): ticket
            default: nil
            }
            guard let number else { continue }
            if case .ticketIssued = event {
                keys.insert(TicketKey(day: day, number: number.description))
            } else if !authority.isOwn(number) {
                keys.insert(TicketKey(day: day, number: number.description))
            }
        }
        return keys.sorted { ($0.day, $0.number) < ($1.day, $1.number) }
    }

    /// Reads what the hub holds of `keys` (the store's rows): the tickets, and for the
    /// bookings made through the hub, whether this device booked them.
    static func load(_ keys: [TicketKey], store: StoreID, device: DeviceID, _ connection: PostgresConnection,
                     _ logger: Logger) async throws -> [TicketKey: Held] {
        guard !keys.isEmpty else { return [:] }
        var held: [TicketKey: Held] = [:]
        let tickets = try await connection.rows("""
            SELECT k.day, t.number, t.state, t.admitted_by, t.business_day::text FROM ticket t
            JOIN unnest(\(keys.map(\.day))::text[], \(keys.map(\.number))::text[]) AS k(day, number)
                ON t.business_day = ticket_day(\(store), k.day::date, k.number) AND t.number = k.number
            WHERE t.store_id = \(store)
            """, as: (String, String, String, String?, String).self, logger)
        for (day, number, state, admittedBy, row) in tickets {
            held[TicketKey(day: day, number: number)] = Held(state: state, admittedBy: admittedBy, row: row)
        }
        // Booking numbers restart each day; a booking made at the totem is for a slot of its
        // business day, or of the next one across midnight in the store's time zone.
        let booked = try await connection.rows("""
            SELECT k.day, k.number FROM unnest(\(keys.map(\.day))::text[], \(keys.map(\.number))::text[]) AS k(day, number)
            WHERE EXISTS (SELECT 1 FROM booking b WHERE b.store_id = \(store) AND b.number = k.number
                AND b.customer_ref = \(Bookings.totemReference(device))
                AND b.slot_day BETWEEN k.day::date - 1 AND k.day::date + 1)
            """, as: (String, String).self, logger)
        for (day, number) in booked {
            let key = TicketKey(day: day, number: number)
            held[key, default: Held(state: "booked")].bookedHere = true
        }
        return held
    }
}
