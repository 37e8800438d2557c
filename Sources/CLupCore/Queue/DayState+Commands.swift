import Foundation

/// The queue, admission and occupancy rules. Each command returns the events it caused,
/// already applied; a refused command changes nothing and throws why.
extension DayState {
    // MARK: Tickets

    /// Issues the next ticket of the request's lane; a booking names the start of its slot,
    /// which must be one of the store's slots and not full.
    @discardableResult
    public mutating func issue(_ request: TicketRequest, issuer: TicketIssuer, at instant: Date,
                               policy: QueuePolicy) throws(Refusal) -> [DomainEvent] {
        if case let .booking(slotStart) = request {
            guard policy.slotLength > 0,
                  slotStart.timeIntervalSince1970.truncatingRemainder(dividingBy: policy.slotLength) == 0
            else { throw .noSuchSlot }
            let booked = tickets.values.filter { $0.slotStart == slotStart && $0.state != .printFailed }.count
            guard booked < policy.bookingsPerSlot else {
                throw .slotFull(slotStart: ISO8601DateFormatter().string(from: slotStart), bookings: booked)
            }
        }
        let last = lastSequence(of: issuer.totem, in: request.lane)
        guard last < TicketNumber.maximumSequence else { throw .numbersUsedUp(lane: request.lane.rawValue) }
        let (_, event) = issuer.issue(request, lastSequence: last, businessDay: businessDay, at: instant)
        return applying([event])
    }

    /// cupsd accepted the ticket's print job. Like the other print outcomes, it concerns
    /// only a ticket of this day still printing; anything else (a job that ends after the
    /// day rolled over) records nothing.
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

    /// Bookings whose window is open now and who have not come in yet: their places are kept.
    func expectedBookings(at now: Date, policy: QueuePolicy) -> Int {
        tickets.values.filter { $0.state == .waiting && isInBookingWindow($0, at: now, policy: policy) }.count
    }

    func isInBookingWindow(_ ticket: Ticket, at now: Date, policy: QueuePolicy) -> Bool {
        guard ticket.lane == .booking, let slot = ticket.slotStart else { return false }
        return now >= slot.addingTimeInterval(-policy.bookingEarly) && now <= slot.addingTimeInterval(policy.bookingLate)
    }

    /// The ticket the rule would call now, and why; nil when nobody can be called.
    ///
    /// The rule: places are free when fewer than capacity are inside or promised. Places of
    /// bookings whose window is open are kept for them; of the rest, the priority reserve
    /// is for priority tickets only. Among what is left, a regular ticket that has waited
    /// longer than the aging bound goes first, then priority, then regular tickets in
    /// arrival order.
    public func nextCall(at now: Date, policy: QueuePolicy) -> (ticket: Ticket, reason: String)? {
        let free = policy.capacity.subtractingSaturating(occupied).subtractingSaturating(expectedBookings(at: now, policy: policy))
        guard free > 0 else { return nil }
        let reserve = priorityReserve(policy)
        let priority = waiting(in: .priority).first
        let regular = waiting(in: .regular).first
        let regularMayGo = free > reserve
        if let regular, regularMayGo, now.timeIntervalSince(regular.issuedAt) > policy.agingBound {
            let minutes = Int(saturating: now.timeIntervalSince(regular.issuedAt) / 60)
            return (regular, "aging: waited \(minutes) min, over the \(Int(saturating: policy.agingBound / 60)) min bound")
        }
        if let priority {
            return (priority, regularMayGo ? "priority: before regular tickets" : "priority: a place kept for priority")
        }
        if let regular, regularMayGo {
            return (regular, "arrival order: the longest-waiting regular ticket")
        }
        return nil
    }

    /// Calls one ticket, or says why none can be called.
    @discardableResult
    public mutating func callNext(at now: Date, policy: QueuePolicy) throws(Refusal) -> [DomainEvent] {
        guard let (ticket, reason) = nextCall(at: now, policy: policy) else {
            if queueLength == 0 { throw .nobodyWaiting }
            throw .storeFull(occupied: occupied, capacity: policy.capacity, reserved: priorityReserve(policy))
        }
        return applying([.ticketCalled(ticket.number, businessDay: businessDay, at: now, reason: reason)])
    }

    /// Calls tickets while there is room.
    @discardableResult
    public mutating func callWhileRoom(at now: Date, policy: QueuePolicy) -> [DomainEvent] {
        var events: [DomainEvent] = []
        while let (ticket, reason) = nextCall(at: now, policy: policy) {
            events += applying([.ticketCalled(ticket.number, businessDay: businessDay, at: now, reason: reason)])
        }
        return events
    }

    /// Ends what has run out of time: an admission nobody used lapses (the ticket is called
    /// again), and a called ticket past its presentation window becomes a no-show,
    /// freeing its place.
    @discardableResult
    public mutating func expireWindows(at now: Date, policy: QueuePolicy) -> [DomainEvent] {
        let lapsed = tickets.values
            .filter { $0.state == .admitted && now >= ($0.admittedAt ?? $0.issuedAt).addingTimeInterval(policy.passWindow) }
            .sorted { ($0.admittedAt ?? $0.issuedAt, $0.number.sequence) < ($1.admittedAt ?? $1.issuedAt, $1.number.sequence) }
        var events = applying(lapsed.map { .admissionLapsed($0.number, businessDay: businessDay, at: now) })
        let expired = tickets.values
            .filter { $0.state == .called && now >= ($0.calledAt ?? $0.issuedAt).addingTimeInterval(policy.presentationWindow) }
            .sorted { ($0.calledAt ?? $0.issuedAt, $0.number.sequence) < ($1.calledAt ?? $1.issuedAt, $1.number.sequence) }
        events += applying(expired.map { .ticketNoShow($0.number, businessDay: businessDay, at: now) })
        return events
    }

    /// When the next window ends (a called ticket's or a released turnstile's), if any.
    public func nextExpiry(policy: QueuePolicy) -> Date? {
        let calls = tickets.values.filter { $0.state == .called }.compactMap(\.calledAt)
            .map { $0.addingTimeInterval(policy.presentationWindow) }
        let admissions = tickets.values.filter { $0.state == .admitted }.compactMap(\.admittedAt)
            .map { $0.addingTimeInterval(policy.passWindow) }
        return (calls + admissions).min()
    }

    /// Staff reprint a ticket the printer failed: it goes back to the printer.
    @discardableResult
    public mutating func reprint(_ number: TicketNumber, by who: String) throws(Refusal) -> [DomainEvent] {
        guard let ticket = tickets[number] else { throw .unknownTicket(number.description) }
        guard ticket.state == .printFailed else { throw .notReprintable(number.description, ticket.state.rawValue) }
        return applying([.ticketReprinted(number, businessDay: businessDay, by: who)])
    }

    // MARK: The door

    /// A code read at the door: verified offline against the store's keys, then admitted
    /// once if the rules allow; else says why.
    @discardableResult
    public mutating func admit(code: String, keyring: TicketKeyring, at now: Date,
                               policy: QueuePolicy) throws(Refusal) -> [DomainEvent] {
        let payload = try keyring.verify(code, at: now)
        guard let ticket = tickets[payload.number], ticket.code == code else {
            throw .unknownTicket("\(payload.number) (not issued here today)")
        }
        let number = ticket.number.description
        switch ticket.state {
        case .printing, .printFailed:
            throw .notPrinted(number)
        case .waiting where ticket.lane == .booking:
            guard isInBookingWindow(ticket, at: now, policy: policy) else { throw .outsideBookingWindow(number) }
            // Its place was kept while its window was open, so a free place is there
            // unless the store was filled by hand.
            guard occupied < policy.capacity else {
                throw .storeFull(occupied: occupied, capacity: policy.capacity, reserved: priorityReserve(policy))
            }
        case .waiting:
            throw .notCalledYet(number)
        case .called:
            // Its window may have ended a moment before the expiry timer ran.
            if now >= (ticket.calledAt ?? ticket.issuedAt).addingTimeInterval(policy.presentationWindow) {
                throw .noShow(number)
            }
        case .admitted, .entered:
            throw .alreadyUsed(number)
        case .noShow:
            throw .noShow(number)
        }
        return applying([.ticketAdmitted(ticket.number, businessDay: businessDay, at: now)])
    }

    /// The turnstile did not open for an admitted ticket: its admission is given back.
    @discardableResult
    public mutating func lapseAdmission(_ number: TicketNumber, at now: Date) -> [DomainEvent] {
        guard tickets[number]?.state == .admitted else { return [] }
        return applying([.admissionLapsed(number, businessDay: businessDay, at: now)])
    }

    /// A turnstile pulse. An entry is credited to the oldest admitted ticket, if any.
    @discardableResult
    public mutating func pass(_ direction: PassageDirection, door: String, at now: Date) -> [DomainEvent] {
        let holder = direction == .entry
            ? tickets.values.filter { $0.state == .admitted }
                .min { ($0.admittedAt ?? .distantPast, $0.number.sequence) < ($1.admittedAt ?? .distantPast, $1.number.sequence) }?.number
            : nil
        return applying([.passage(direction: direction, door: door, businessDay: businessDay, at: now, ticket: holder)])
    }

    /// A technician's correction of the count at `door`, with who and why.
    ///
    /// `delta` changes the count the technician sees (`inside`, never below zero). When more
    /// people left by this door than came in, the raw count is below zero; the recorded
    /// delta then also makes up that difference, so "+1" means one person inside.
    @discardableResult
    public mutating func correct(door: String, delta: Int, by who: String, reason: String,
                                 at now: Date) throws(Refusal) -> [DomainEvent] {
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
                                 at now: Date) throws(Refusal) -> [DomainEvent] {
        guard (0...OccupancyLedger.maximumCount).contains(target) else { throw .countOutOfRange(target) }
        let why = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !why.isEmpty else { throw .correctionWithoutReason }
        let ledger = ledger(door: door)
        guard target != ledger.inside || ledger.count < 0 else { throw .zeroCorrection }
        return applying([.occupancyCorrected(door: door, businessDay: businessDay, delta: target.subtractingSaturating(ledger.count),
                                             by: who, reason: why, at: now)])
    }

    // MARK: Waiting

    /// How long a new ticket in `lane` would wait now.
    public func estimatedWait(for lane: Lane, at now: Date, policy: QueuePolicy, defaultMinutes: Int) -> WaitEstimate {
        let reserve = lane == .priority ? 0 : priorityReserve(policy) + expectedBookings(at: now, policy: policy)
        let ahead = lane == .priority ? waiting(in: .priority).count : queueLength
        return wait.estimate(ahead: ahead, free: policy.capacity.subtractingSaturating(occupied).subtractingSaturating(reserve),
                             occupied: occupied,
                             capacity: policy.capacity, defaultMinutes: defaultMinutes)
    }

    private mutating func applying(_ events: [DomainEvent]) -> [DomainEvent] {
        for event in events { apply(event) }
        return events
    }
}
