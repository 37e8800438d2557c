import Foundation

/// The queue, admission and occupancy rules. Each command returns the events it caused,
/// already applied; a refused command changes nothing and throws why.
///
/// Instants come as `Moment`s: the wall clock goes into the events, while every window and
/// bound (presentation, turnstile pass, aging) is measured on the monotonic clock, so a step
/// of the wall clock neither ends a window early nor stretches it.
extension DayState {
    // MARK: The day

    /// The day `businessDay` begins after `previous` (the last day the totem kept, if any):
    /// the people still inside at each door carry over, and so do the tickets still in play
    /// (printing, waiting, called, admitted) whose validity has not run out; voided ones stay
    /// behind. Opens an empty day when there is nothing to carry; a day already open stays
    /// as it is.
    @discardableResult
    public mutating func open(after previous: DayState?, at now: Moment, ticketValidity: TimeInterval) -> [DomainEvent] {
        guard !isOpen else { return [] }
        var inside: [String: Int] = [:]
        var carried: [Ticket] = []
        if let previous, previous.businessDay < businessDay {
            for ledger in previous.ledgers.values where ledger.count != 0 { inside[ledger.door] = ledger.count }
            carried = previous.tickets.values.filter { ticket in
                switch ticket.state {
                case .printing: true
                case .waiting, .called, .admitted: now.wall < ticket.issuedAt.addingTimeInterval(ticketValidity)
                case .entered, .noShow, .printFailed, .voided: false
                }
            }.sorted { ($0.issuedAt, $0.number.description) < ($1.issuedAt, $1.number.description) }
        }
        return applying([.dayOpened(businessDay: businessDay, after: previous?.businessDay, inside: inside,
                                    tickets: carried, at: now.wall)])
    }

    // MARK: Tickets

    /// Issues the next ticket of the request's lane; a booking names the start of its slot,
    /// which must be one of the store's slots and not full (of the bookings this totem may
    /// issue itself). Numbers start again each day; one still held by a ticket carried over
    /// from the day before is skipped. `promisedWait` is the wait the customer is told.
    @discardableResult
    public mutating func issue(_ request: TicketRequest, issuer: TicketIssuer, at instant: Moment,
                               policy: QueuePolicy, promisedWait: WaitEstimate? = nil, language: String? = nil,
                               issuedBy employee: String? = nil)
        throws(Refusal) -> [DomainEvent] {
        if case let .booking(slotStart) = request {
            guard policy.slotLength > 0,
                  slotStart.timeIntervalSince1970.truncatingRemainder(dividingBy: policy.slotLength) == 0
            else { throw .noSuchSlot }
            let booked = ownBookings(of: slotStart, totem: issuer.totem)
            guard booked < policy.ownBookingLimit else {
                throw .slotFull(slotStart: slotStart.formatted(.iso8601), bookings: booked)
            }
        }
        var sequence = lastSequence(of: issuer.totem, in: request.lane) + 1
        while tickets[TicketNumber(totem: issuer.totem, lane: request.lane, sequence: sequence)] != nil {
            sequence += 1
        }
        guard sequence <= TicketNumber.maximumSequence else { throw .numbersUsedUp(lane: request.lane.rawValue) }
        var (ticket, _) = issuer.issue(request, sequence: sequence, businessDay: businessDay, at: instant)
        ticket.promisedWait = promisedWait
        ticket.language = language.map { String($0.prefix(8)) }
        ticket.issuedBy = employee.map { String($0.prefix(AuditEntry.maximumText)) }
        return applying([.ticketIssued(ticket)])
    }

    /// The bookings of the slot starting at `slot` that totem `totem` issued itself (those
    /// the printer failed, or staff voided, hold nothing).
    public func ownBookings(of slot: Date, totem: Character) -> Int {
        tickets.values.filter { $0.number.totem == totem && $0.slotStart == slot && $0.state != .printFailed && $0.state != .voided }
            .count
    }

    /// A booking the hub made for a customer at this totem (from the hub's authenticated
    /// answer): it joins the day as a ticket on its way to the printer, recorded before it
    /// prints, and is admitted at the door within its window like any booking made through the hub.
    @discardableResult
    public mutating func joinHubBooking(_ number: TicketNumber, slot: Date, code: String, at now: Moment,
                                        language: String? = nil) throws(Refusal) -> [DomainEvent] {
        guard number.totem == TicketPayload.hubLetter, number.lane == .booking else {
            throw .unknownTicket("\(number) (not a booking made through the hub)")
        }
        guard tickets[number] == nil else { throw .alreadyUsed("\(number) (already printed here)") }
        var ticket = Ticket(number: number, businessDay: businessDay, issuedAt: now.wall, issuedSteady: now.steady,
                            state: .printing, code: code, slotStart: slot)
        ticket.language = language.map { String($0.prefix(8)) }
        return applying([.ticketIssued(ticket)])
    }

    /// Places in this door's line taken from a phone, as the hub handed them down with the
    /// settings: each one new to the day joins the line waiting, at the time the hub took it
    /// (`line`); one the hub says was left is voided, if it still waits or is called. Joins
    /// for another door, older than `validity` or already known change nothing, so the
    /// same list may come again and again.
    @discardableResult
    public mutating func takeRemote(_ joins: [RemoteJoin], left: Set<TicketNumber>, totem: Character, validity: TimeInterval,
                                    at now: Moment) -> [DomainEvent] {
        var events: [DomainEvent] = []
        for join in joins.sorted(by: { ($0.joinedAt, $0.number.sequence) < ($1.joinedAt, $1.number.sequence) })
        where join.number.totem == totem && join.number.lane == .remote && tickets[join.number] == nil && !left.contains(join.number)
            && now.wall.timeIntervalSince(join.joined) < validity {
            var ticket = Ticket(number: join.number, businessDay: businessDay, issuedAt: join.joined, state: .waiting, code: join.code)
            ticket.takenAt = LineOrder.instant(join.joined)
            ticket.language = join.language
            events += applying([.ticketIssued(ticket)])
        }
        for number in left.sorted(by: { $0.sequence < $1.sequence }) where number.lane == .remote {
            guard let state = tickets[number]?.state, state == .waiting || state == .called else { continue }
            events += applying([.ticketVoided(number, businessDay: businessDay, at: now.wall, by: Self.remoteLeaver,
                                              reason: "left the line from their phone")])
        }
        return events
    }

    /// Who voids a remote ticket its holder left.
    public static let remoteLeaver = "app"

    /// cupsd accepted the ticket's print job. Like the other print outcomes, it concerns
    /// only a ticket still printing; anything else records nothing.
    @discardableResult
    public mutating func recordSubmitted(_ number: TicketNumber, job: Int) -> [DomainEvent] {
        guard tickets[number]?.state == .printing else { return [] }
        return applying([.ticketSubmitted(number, businessDay: businessDay, job: job)])
    }

    /// The printer finished the ticket: it joins the queue.
    @discardableResult
    public mutating func recordPrinted(_ number: TicketNumber, job: Int) -> [DomainEvent] {
        guard tickets[number]?.state == .printing else { return [] }
        return applying([.ticketPrinted(number, businessDay: businessDay, job: job)])
    }

    /// The printer failed: the ticket never joins the queue, and its number is not reused.
    @discardableResult
    public mutating func recordPrintFailed(_ number: TicketNumber, reason: String) -> [DomainEvent] {
        guard tickets[number]?.state == .printing else { return [] }
        return applying([.ticketPrintFailed(number, businessDay: businessDay, reason: reason)])
    }

    // MARK: Calling

    /// Places a priority ticket may take that others may not: the reserve, less what
    /// priority tickets already hold.
    public func priorityReserve(_ policy: QueuePolicy) -> Int {
        let held = tickets.values.filter { $0.lane == .priority && $0.state.holdsAPlace }.count
        return max(0, policy.reservedForPriority - held)
    }

    /// Bookings whose window is open now and who have not come in yet: their places are
    /// kept. The totem's own, and those made through the hub that have not reached a door.
    func expectedBookings(at now: Date, policy: QueuePolicy) -> Int {
        let own = tickets.values.filter { $0.state == .waiting && isInBookingWindow($0, at: now, policy: policy) }.count
        let fromHub = (policy.hubBookings ?? [:]).filter { number, slot in
            tickets[number] == nil && now >= slot.addingTimeInterval(-policy.bookingEarly) && now <= slot.addingTimeInterval(policy.bookingLate)
        }.count
        return own + fromHub
    }

    /// Whether a booking's window (around its slot, on the wall clock like the slot) is open.
    func isInBookingWindow(_ ticket: Ticket, at now: Date, policy: QueuePolicy) -> Bool {
        guard ticket.lane == .booking, let slot = ticket.slotStart else { return false }
        return now >= slot.addingTimeInterval(-policy.bookingEarly) && now <= slot.addingTimeInterval(policy.bookingLate)
    }

    /// The ticket the rule would call now, and why; nil when nobody can be called.
    ///
    /// The rule: places are free when fewer than capacity are inside or promised. Places of
    /// bookings whose window is open are kept for them; of the rest, the priority reserve
    /// is for priority tickets only. Among what is left, a ticket of the line (regular or
    /// remote) that has waited longer than the aging bound goes first, then priority, then
    /// the line in the order its places were taken.
    public func nextCall(at now: Moment, policy: QueuePolicy) -> (ticket: Ticket, reason: String)? {
        let free = policy.placesHere.subtractingSaturating(placesTaken(policy)).subtractingSaturating(expectedBookings(at: now.wall, policy: policy))
        guard free > 0 else { return nil }
        let reserve = priorityReserve(policy)
        let priority = waiting(in: .priority).first
        let regular = line.first
        let regularMayGo = free > reserve
        if let regular, regularMayGo, regular.secondsSinceIssue(at: now) > policy.agingBound {
            let minutes = Int(saturating: regular.secondsSinceIssue(at: now) / 60)
            return (regular, "aging: waited \(minutes) min, over the \(Int(saturating: policy.agingBound / 60)) min bound")
        }
        if let priority {
            return (priority, regularMayGo ? "priority: before regular tickets" : "priority: a place kept for priority")
        }
        if let regular, regularMayGo {
            return (regular, "arrival order: the longest-waiting ticket in line")
        }
        return nil
    }

    /// Calls one ticket, or says why none can be called.
    @discardableResult
    public mutating func callNext(at now: Moment, policy: QueuePolicy) throws(Refusal) -> [DomainEvent] {
        guard let (ticket, reason) = nextCall(at: now, policy: policy) else {
            if queueLength == 0 { throw .nobodyWaiting }
            throw .storeFull(occupied: placesTaken(policy), capacity: policy.placesHere, reserved: priorityReserve(policy))
        }
        return applying([called(ticket, reason: reason, at: now)])
    }

    /// Calls tickets while there is room.
    @discardableResult
    public mutating func callWhileRoom(at now: Moment, policy: QueuePolicy) -> [DomainEvent] {
        var events: [DomainEvent] = []
        while let (ticket, reason) = nextCall(at: now, policy: policy) {
            events += applying([called(ticket, reason: reason, at: now)])
        }
        return events
    }

    private func called(_ ticket: Ticket, reason: String, at now: Moment) -> DomainEvent {
        .ticketCalled(ticket.number, businessDay: businessDay, at: now.wall, reason: reason, steady: now.steady)
    }

    /// Ends what has run out of time: an admission nobody used lapses (the ticket is called
    /// again), and a called ticket past its presentation window becomes a no-show,
    /// freeing its place.
    @discardableResult
    public mutating func expireWindows(at now: Moment, policy: QueuePolicy) -> [DomainEvent] {
        let lapsed = tickets.values
            .filter { $0.state == .admitted && ($0.secondsSinceAdmission(at: now) ?? .infinity) >= policy.passWindow }
            .sorted { ($0.admittedAt ?? $0.issuedAt, $0.number.sequence) < ($1.admittedAt ?? $1.issuedAt, $1.number.sequence) }
        var events = applying(lapsed.map { .admissionLapsed($0.number, businessDay: businessDay, at: now.wall) })
        let expired = tickets.values
            .filter { $0.state == .called && ($0.secondsSinceCall(at: now) ?? .infinity) >= policy.presentationWindow }
            .sorted { ($0.calledAt ?? $0.issuedAt, $0.number.sequence) < ($1.calledAt ?? $1.issuedAt, $1.number.sequence) }
        events += applying(expired.map { .ticketNoShow($0.number, businessDay: businessDay, at: now.wall) })
        return events
    }

    /// Seconds from `now` until the next window ends (a called ticket's or a released
    /// turnstile's), if any; 0 when one has already ended.
    public func secondsToNextExpiry(at now: Moment, policy: QueuePolicy) -> Double? {
        let calls = tickets.values.filter { $0.state == .called }
            .map { policy.presentationWindow - ($0.secondsSinceCall(at: now) ?? .infinity) }
        let admissions = tickets.values.filter { $0.state == .admitted }
            .map { policy.passWindow - ($0.secondsSinceAdmission(at: now) ?? .infinity) }
        return (calls + admissions).min().map { max(0, $0) }
    }

    /// Staff reprint a ticket the printer failed: it goes back to the printer.
    @discardableResult
    public mutating func reprint(_ number: TicketNumber, by who: String) throws(Refusal) -> [DomainEvent] {
        guard let ticket = tickets[number] else { throw .unknownTicket(number.description) }
        guard ticket.state == .printFailed else { throw .notReprintable(number.description, ticket.state.rawValue) }
        return applying([.ticketReprinted(number, businessDay: businessDay, by: who)])
    }

    // MARK: Queue care

    /// The longest reason a void or a correction takes, and the longest name of who did it:
    /// both come from outside (the control socket), and the event log keeps them for good.
    public static let maximumReason = 160
    public static let maximumStaffName = 64

    /// `reason` trimmed, as a void or a correction keeps it: one line of plain text, bounded,
    /// so that it can start no line of the log or the ledger. Refuses it otherwise (and
    /// `blank` when nothing is left once trimmed).
    static func plainReason(_ reason: String, blank: Refusal) throws(Refusal) -> String {
        let why = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !why.isEmpty else { throw blank }
        if TypedText.hasControls(why) { throw .reasonNotOneLine("holds a line break or a control character") }
        // Scalars, not characters: one letter with thousands of combining marks is one character.
        let length = why.unicodeScalars.count
        if length > maximumReason { throw .reasonNotOneLine("has \(length) characters") }
        return why
    }

    /// A technician skips a called ticket whose holder did not come: it becomes a no-show
    /// now rather than when its presentation window ends, and its place is free (the next
    /// settle calls whoever the rule says).
    @discardableResult
    public mutating func skip(number: TicketNumber, by who: String, at now: Moment) throws(Refusal) -> [DomainEvent] {
        guard let ticket = tickets[number] else { throw .unknownTicket(number.description) }
        let name = number.description
        switch ticket.state {
        case .called: break
        case .waiting: throw .skipNotCalled(name)
        case .printing, .printFailed: throw .skipNotPrinted(name)
        case .admitted: throw .atTheDoor(name)
        case .entered: throw .alreadyInside(name)
        case .noShow: throw .alreadyNoShow(name)
        case .voided: throw .alreadyVoided(name)
        }
        return applying([.ticketSkipped(number, businessDay: businessDay, at: now.wall,
                                        by: String(who.prefix(Self.maximumStaffName)))])
    }

    /// A technician voids a ticket waiting, called or failed by the printer, saying why: it
    /// leaves the queue (a called one frees its place), and its code no longer opens the
    /// door. The reason, trimmed, is one line of plain text, neither blank nor long.
    @discardableResult
    public mutating func void(number: TicketNumber, by who: String, reason: String, at now: Moment) throws(Refusal) -> [DomainEvent] {
        let why = try Self.plainReason(reason, blank: .voidWithoutReason)
        guard let ticket = tickets[number] else { throw .unknownTicket(number.description) }
        let name = number.description
        switch ticket.state {
        case .waiting, .called, .printFailed: break
        case .printing: throw .stillPrinting(name)
        case .admitted: throw .atTheDoor(name)
        case .entered: throw .alreadyInside(name)
        case .noShow: throw .alreadyNoShow(name)
        case .voided: throw .alreadyVoided(name)
        }
        return applying([.ticketVoided(number, businessDay: businessDay, at: now.wall, by: String(who.prefix(Self.maximumStaffName)),
                                       reason: why)])
    }

    // MARK: The door

    /// A code read at the door: verified offline against the store's keys, then admitted
    /// once if the rules allow; else says why. A ticket that came in, read again, is on its
    /// way out: its exit is recorded (`ticket.left`) and nobody is admitted.
    ///
    /// In a store with several doors, `otherDoors` is what the hub last said of the other
    /// doors: a ticket one of them called is admitted here too (if this door has a place),
    /// and one of this door's tickets already admitted at another door is used.
    @discardableResult
    public mutating func admit(code: String, keyring: TicketKeyring, at now: Moment,
                               policy: QueuePolicy, otherDoors: OtherDoors = OtherDoors()) throws(Refusal) -> [DomainEvent] {
        let payload = try keyring.verify(code, at: now.wall)
        if otherDoors.used.contains(payload.number) { throw .alreadyUsed("\(payload.number) (at another door)") }
        if let slot = payload.slotStart {
            return try admitHubBooking(payload.number, slot: slot, code: code, at: now, policy: policy, otherDoors: otherDoors)
        }
        guard let ticket = tickets[payload.number], ticket.code == code else {
            if payload.number.totem != keyring.ownTotem {
                guard otherDoors.called.contains(payload.number) else {
                    throw .otherTotemsTicket(payload.number.description, totem: payload.number.totem)
                }
                guard placesTaken(policy) < policy.placesHere else {
                    throw .storeFull(occupied: placesTaken(policy), capacity: policy.placesHere, reserved: priorityReserve(policy))
                }
                var arrived = Ticket(number: payload.number, businessDay: businessDay, issuedAt: payload.issuedAt,
                                     state: .called, code: code)
                arrived.calledAt = now.wall
                arrived.calledSteady = now.steady
                arrived.callReason = "called at totem \(payload.number.totem)'s door"
                return applying([.ticketFromOtherDoor(arrived, at: now.wall),
                                 .ticketAdmitted(arrived.number, businessDay: businessDay, at: now.wall, steady: now.steady)])
            }
            throw .unknownTicket("\(payload.number) (not issued here today)")
        }
        let number = ticket.number.description
        switch ticket.state {
        case .printing, .printFailed:
            throw .notPrinted(number)
        case .waiting where ticket.lane == .booking:
            guard isInBookingWindow(ticket, at: now.wall, policy: policy) else { throw .outsideBookingWindow(number) }
            // Its place was kept while its window was open, so a free place is there
            // unless the store was filled by hand.
            guard placesTaken(policy) < policy.placesHere else {
                throw .storeFull(occupied: placesTaken(policy), capacity: policy.placesHere, reserved: priorityReserve(policy))
            }
        case .waiting:
            throw .notCalledYet(number)
        case .called:
            // Its window may have ended a moment before the expiry timer ran.
            if (ticket.secondsSinceCall(at: now) ?? .infinity) >= policy.presentationWindow {
                throw .noShow(number)
            }
        case .entered:
            return try leaving(ticket, at: now)
        case .admitted:
            throw .alreadyUsed(number)
        case .noShow:
            throw .noShow(number)
        case .voided:
            throw ticket.voidedBy == Self.remoteLeaver ? .leftTheLine(number) : .voided(number)
        }
        return applying([.ticketAdmitted(ticket.number, businessDay: businessDay, at: now.wall, steady: now.steady)])
    }

    /// A booking made through the hub (its code verified): admitted once within the window
    /// around its slot, unless the hub said it was cancelled. It joins the day here, like a
    /// ticket of another door.
    private mutating func admitHubBooking(_ number: TicketNumber, slot: Date, code: String, at now: Moment, policy: QueuePolicy,
                                          otherDoors: OtherDoors) throws(Refusal) -> [DomainEvent] {
        if otherDoors.cancelled.contains(number) { throw .bookingCancelled(number.description) }
        let known = tickets[number]
        if known?.state == .voided { throw .voided(number.description) }
        if let known, known.state == .entered { return try leaving(known, at: now) }
        if known?.state == .admitted { throw .alreadyUsed(number.description) }
        if let known, known.state == .printing || known.state == .printFailed { throw .notPrinted(number.description) }
        guard now.wall >= slot.addingTimeInterval(-policy.bookingEarly), now.wall <= slot.addingTimeInterval(policy.bookingLate) else {
            throw .outsideBookingWindow("\(number) (slot at \(slot.formatted(.iso8601)))")
        }
        guard placesTaken(policy) < policy.placesHere else {
            throw .storeFull(occupied: placesTaken(policy), capacity: policy.placesHere, reserved: priorityReserve(policy))
        }
        if known != nil {
            // Admitted before, but the turnstile did not turn (and its presentation window
            // may have passed since): the booking's window is still open.
            return applying([.ticketAdmitted(number, businessDay: businessDay, at: now.wall, steady: now.steady)])
        }
        var arrived = Ticket(number: number, businessDay: businessDay, issuedAt: slot, state: .called, code: code, slotStart: slot)
        arrived.calledAt = now.wall
        arrived.calledSteady = now.steady
        arrived.callReason = "booked through the hub for the slot at \(slot.formatted(.iso8601))"
        return applying([.ticketFromOtherDoor(arrived, at: now.wall),
                         .ticketAdmitted(number, businessDay: businessDay, at: now.wall, steady: now.steady)])
    }

    /// A ticket that came in, scanned again: on the way out. Its exit is recorded once (the
    /// time in store); the turnstile's exit pulse counts the person as for anyone leaving.
    private mutating func leaving(_ ticket: Ticket, at now: Moment) throws(Refusal) -> [DomainEvent] {
        if let left = ticket.leftAt { throw .alreadyUsed("\(ticket.number) (it left at \(left.formatted(.iso8601)))") }
        return applying([.ticketLeft(ticket.number, businessDay: businessDay, at: now.wall)])
    }

    /// The turnstile did not open for an admitted ticket: its admission is given back.
    @discardableResult
    public mutating func lapseAdmission(_ number: TicketNumber, at now: Moment) -> [DomainEvent] {
        guard tickets[number]?.state == .admitted else { return [] }
        return applying([.admissionLapsed(number, businessDay: businessDay, at: now.wall)])
    }

    /// A turnstile pulse. An entry is credited to the oldest admitted ticket, if any.
    @discardableResult
    public mutating func pass(_ direction: PassageDirection, door: String, at now: Moment) -> [DomainEvent] {
        let holder = direction == .entry
            ? tickets.values.filter { $0.state == .admitted }
                .min { ($0.admittedAt ?? .distantPast, $0.number.sequence) < ($1.admittedAt ?? .distantPast, $1.number.sequence) }?.number
            : nil
        return applying([.passage(direction: direction, door: door, businessDay: businessDay, at: now.wall, ticket: holder,
                                  steady: now.steady)])
    }

    /// A technician's correction of the count at `door`, with who and why.
    ///
    /// `delta` changes the count the technician sees (`inside`, never below zero). When more
    /// people left by this door than came in, the raw count is below zero; the recorded
    /// delta then also makes up that difference, so "+1" means one person inside.
    @discardableResult
    public mutating func correct(door: String, delta: Int, by who: String, reason: String,
                                 at now: Moment) throws(Refusal) -> [DomainEvent] {
        guard delta != 0 else { throw .zeroCorrection }
        guard delta.magnitude <= OccupancyLedger.maximumCorrection else { throw .correctionTooLarge(delta: delta) }
        let inside = ledger(door: door).inside
        let target = inside.addingSaturating(delta)
        guard target >= 0 else { throw .correctionBelowZero(count: inside, delta: delta) }
        return try correct(door: door, toCount: target, by: who, reason: reason, at: now)
    }

    /// A technician's count of the people inside by `door`, with who and why: the ledger
    /// is corrected to it, however far off it was.
    @discardableResult
    public mutating func correct(door: String, toCount target: Int, by who: String, reason: String,
                                 at now: Moment) throws(Refusal) -> [DomainEvent] {
        guard (0...OccupancyLedger.maximumCount).contains(target) else { throw .countOutOfRange(target) }
        let why = try Self.plainReason(reason, blank: .correctionWithoutReason)
        let ledger = ledger(door: door)
        guard target != ledger.inside || ledger.count < 0 else { throw .zeroCorrection }
        return applying([.occupancyCorrected(door: door, businessDay: businessDay, delta: target.subtractingSaturating(ledger.count),
                                             by: who, reason: why, at: now.wall)])
    }

    // MARK: Waiting

    /// How long a new ticket in `lane` would wait now.
    public func estimatedWait(for lane: Lane, at now: Moment, policy: QueuePolicy, defaultMinutes: Int) -> WaitEstimate {
        let reserve = lane == .priority ? 0 : priorityReserve(policy) + expectedBookings(at: now.wall, policy: policy)
        let ahead = lane == .priority ? waiting(in: .priority).count : queueLength
        return wait.estimate(ahead: ahead, free: policy.placesHere.subtractingSaturating(placesTaken(policy)).subtractingSaturating(reserve),
                             occupied: occupied, capacity: policy.placesHere, defaultMinutes: defaultMinutes)
    }

    /// Keeps what a member of staff did in the day's trail; the day is otherwise unchanged.
    public mutating func audit(_ entry: AuditEntry, at now: Moment) -> [DomainEvent] {
        applying([.audited(entry, businessDay: businessDay, at: now.wall)])
    }

    private mutating func applying(_ events: [DomainEvent]) -> [DomainEvent] {
        for event in events { apply(event) }
        return events
    }
}

/// What the hub last said of a store's other doors, for admitting at this one.
public struct OtherDoors: Hashable, Sendable {
    /// Tickets of other totems called now.
    public var called: Set<TicketNumber>
    /// This totem's tickets admitted at another door, and bookings made through the hub
    /// admitted at another door.
    public var used: Set<TicketNumber>
    /// Bookings made through the hub and cancelled since.
    public var cancelled: Set<TicketNumber>

    public init(called: Set<TicketNumber> = [], used: Set<TicketNumber> = [], cancelled: Set<TicketNumber> = []) {
        self.called = called
        self.used = used
        self.cancelled = cancelled
    }
}
