import CLupCore
import Foundation

/// A small model of the store's rules, written apart from `DayState` and as plainly as
/// possible (lists, counts, no dictionaries whose order could matter), to check it against:
/// for every command it says what the rules must do (which ticket, which refusal), and
/// after every command it is compared with what `DayState` did.
public struct QueueModel {
    /// A ticket as the model sees it.
    public struct Ticket: Equatable {
        public let number: TicketNumber
        public let code: String
        public let issueDay: BusinessDay
        public let issued: Moment
        public let slot: Date?
        public var state: TicketState
        public var called: Moment?
        public var admitted: Moment?
        /// When it was scanned on the way out, after it came in.
        public var left: Date?

        var lane: Lane { number.lane }

        /// The issue time as the code carries it: whole seconds.
        var issuedAt: Date { Date(timeIntervalSince1970: issued.wall.timeIntervalSince1970.rounded(.down)) }
    }

    public let policy: QueuePolicy
    /// How long a ticket stays valid after it is issued.
    public let validity: TimeInterval
    public private(set) var day: BusinessDay
    public private(set) var tickets: [Ticket] = []
    /// The raw count of each door (may be below zero), in the order doors were first seen.
    public private(set) var doors: [(door: String, count: Int)] = []

    public init(policy: QueuePolicy, validity: TimeInterval, day: BusinessDay) {
        self.policy = policy
        self.validity = validity
        self.day = day
    }

    // MARK: Figures

    func count(_ door: String) -> Int { doors.first { $0.door == door }?.count ?? 0 }

    public var inside: Int { max(0, doors.reduce(0) { $0 + $1.count }) }
    public var promised: Int { tickets.filter { $0.state == .called || $0.state == .admitted }.count }
    public var occupied: Int { inside + promised }
    public var waitingCount: Int { tickets.filter { $0.state == .waiting && $0.lane != .booking }.count }

    var reserve: Int {
        let kept = min(policy.capacity, Int((Double(policy.capacity) * policy.priorityShare).rounded(.up)))
        let held = tickets.filter { $0.lane == .priority && ($0.state == .called || $0.state == .admitted) }.count
        return max(0, kept - held)
    }

    func inBookingWindow(_ ticket: Ticket, at now: Date) -> Bool {
        guard ticket.lane == .booking, let slot = ticket.slot else { return false }
        return now >= slot.addingTimeInterval(-policy.bookingEarly) && now <= slot.addingTimeInterval(policy.bookingLate)
    }

    func oldestWaiting(_ lane: Lane) -> Ticket? {
        tickets.filter { $0.lane == lane && $0.state == .waiting }
            .min { ($0.issuedAt, $0.number.sequence) < ($1.issuedAt, $1.number.sequence) }
    }

    // MARK: What the rules must do

    /// The number the next ticket of `lane` must get.
    public func nextNumber(totem: Character, lane: Lane) -> TicketNumber {
        let own = tickets.filter { $0.issueDay == day && $0.number.totem == totem && $0.lane == lane }.map(\.number.sequence)
        var sequence = (own.max() ?? 0) + 1
        while tickets.contains(where: { $0.number == TicketNumber(totem: totem, lane: lane, sequence: sequence) }) {
            sequence += 1
        }
        return TicketNumber(totem: totem, lane: lane, sequence: sequence)
    }

    /// Why a booking for `slot` must be refused, if it must.
    public func bookingRefusal(slot: Date) -> Refusal? {
        let aligned = policy.slotLength > 0 && slot.timeIntervalSince1970.truncatingRemainder(dividingBy: policy.slotLength) == 0
        guard aligned else { return .noSuchSlot }
        let booked = tickets.filter { $0.slot == slot && $0.state != .printFailed && $0.state != .voided }.count
        let perSlot = Int((Double(policy.capacity) * policy.bookingShare).rounded(.down))
        guard booked < perSlot else {
            return .slotFull(slotStart: slot.formatted(.iso8601), bookings: booked)
        }
        return nil
    }

    /// The ticket that must be called now, if any.
    public func nextCall(at now: Moment) -> Ticket? {
        let bookings = tickets.filter { $0.state == .waiting && inBookingWindow($0, at: now.wall) }.count
        let free = policy.capacity - occupied - bookings
        guard free > 0 else { return nil }
        let regular = oldestWaiting(.regular), priority = oldestWaiting(.priority)
        let regularMayGo = free > reserve
        if let regular, regularMayGo, now.seconds(since: regular.issuedAt, regular.issued.steady) > policy.agingBound {
            return regular
        }
        if let priority { return priority }
        if let regular, regularMayGo { return regular }
        return nil
    }

    /// Why `callNext` must be refused now, if it must.
    public func callRefusal(at now: Moment) -> Refusal? {
        guard nextCall(at: now) == nil else { return nil }
        if waitingCount == 0 { return .nobodyWaiting }
        return .storeFull(occupied: occupied, capacity: policy.capacity, reserved: reserve)
    }

    /// The refusal a scan of `code` must get, or nil when it must be admitted.
    public func admitRefusal(code: String, keyring: TicketKeyring, at now: Moment) -> Refusal? {
        guard let ticket = tickets.first(where: { $0.code == code }) else {
            // Codes the model did not see issued: whatever the keyring says, or not ours.
            do {
                let payload = try keyring.verify(code, at: now.wall)
                return .unknownTicket("\(payload.number) (not issued here today)")
            } catch {
                return error
            }
        }
        if now.wall > ticket.issuedAt.addingTimeInterval(validity) { return .expired(ticket.number.description) }
        let number = ticket.number.description
        switch ticket.state {
        case .printing, .printFailed: return .notPrinted(number)
        case .waiting where ticket.lane == .booking:
            if !inBookingWindow(ticket, at: now.wall) { return .outsideBookingWindow(number) }
            if occupied >= policy.capacity { return .storeFull(occupied: occupied, capacity: policy.capacity, reserved: reserve) }
            return nil
        case .waiting: return .notCalledYet(number)
        case .called:
            let called = ticket.called!
            return now.seconds(since: called.wall, called.steady) >= policy.presentationWindow ? .noShow(number) : nil
        case .admitted: return .alreadyUsed(number)
        // Scanned again once inside: on its way out, once.
        case .entered: return ticket.left.map { .alreadyUsed("\(number) (it left at \($0.formatted(.iso8601)))") }
        case .noShow: return .noShow(number)
        case .voided: return .voided(number)
        }
    }

    /// The refusal a technician's skip of `number` must get, or nil when it must be skipped:
    /// only a called ticket is.
    public func skipRefusal(_ number: TicketNumber) -> Refusal? {
        guard let ticket = tickets.first(where: { $0.number == number }) else { return .unknownTicket(number.description) }
        let name = number.description
        switch ticket.state {
        case .called: return nil
        case .waiting: return .skipNotCalled(name)
        case .printing, .printFailed: return .skipNotPrinted(name)
        case .admitted: return .atTheDoor(name)
        case .entered: return .alreadyInside(name)
        case .noShow: return .alreadyNoShow(name)
        case .voided: return .alreadyVoided(name)
        }
    }

    /// The refusal a technician's void of `number` for `reason` must get, or nil when it
    /// must be voided: a ticket waiting, called or failed by the printer, with a reason.
    public func voidRefusal(_ number: TicketNumber, reason: String) -> Refusal? {
        if reason.allSatisfy(\.isWhitespace) { return .voidWithoutReason }
        guard let ticket = tickets.first(where: { $0.number == number }) else { return .unknownTicket(number.description) }
        let name = number.description
        switch ticket.state {
        case .waiting, .called, .printFailed: return nil
        case .printing: return .stillPrinting(name)
        case .admitted: return .atTheDoor(name)
        case .entered: return .alreadyInside(name)
        case .noShow: return .alreadyNoShow(name)
        case .voided: return .alreadyVoided(name)
        }
    }

    /// The refusal a correction by `delta` must get, if any.
    public func correctionRefusal(door: String, delta: Int) -> Refusal? {
        if delta == 0 { return .zeroCorrection }
        if abs(delta) > OccupancyLedger.maximumCorrection { return .correctionTooLarge(delta: delta) }
        let shown = max(0, count(door))
        if shown + delta < 0 { return .correctionBelowZero(count: shown, delta: delta) }
        if shown + delta > OccupancyLedger.maximumCount { return .countOutOfRange(shown + delta) }
        return nil
    }

    // MARK: Changes

    mutating func update(_ number: TicketNumber, _ change: (inout Ticket) -> Void) {
        guard let index = tickets.firstIndex(where: { $0.number == number }) else { return }
        change(&tickets[index])
    }

    public mutating func issued(_ ticket: CLupCore.Ticket, at now: Moment) {
        tickets.append(Ticket(number: ticket.number, code: ticket.code, issueDay: day, issued: now,
                              slot: ticket.slotStart, state: .printing))
    }

    public mutating func printed(_ number: TicketNumber, fails: Bool) {
        update(number) { if $0.state == .printing { $0.state = fails ? .printFailed : .waiting } }
    }

    public mutating func call(_ number: TicketNumber, at now: Moment) {
        update(number) { $0.state = .called; $0.called = now }
    }

    public mutating func admit(code: String, at now: Moment) {
        guard let ticket = tickets.first(where: { $0.code == code }) else { return }
        if ticket.state == .entered {
            update(ticket.number) { $0.left = now.wall }
        } else {
            update(ticket.number) { $0.state = .admitted; $0.admitted = now }
        }
    }

    /// A technician skipped a called ticket: a no-show now.
    public mutating func skip(_ number: TicketNumber) {
        update(number) { if $0.state == .called { $0.state = .noShow } }
    }

    /// A technician voided a ticket: out of the queue, holding nothing.
    public mutating func void(_ number: TicketNumber) {
        update(number) { $0.state = .voided }
    }

    /// Lapsed admissions go back to where they were; called tickets past their window are no-shows.
    public mutating func expire(at now: Moment) {
        for index in tickets.indices {
            let ticket = tickets[index]
            if ticket.state == .admitted, let admitted = ticket.admitted,
               now.seconds(since: admitted.wall, admitted.steady) >= policy.passWindow {
                tickets[index].state = ticket.called == nil ? .waiting : .called
                tickets[index].admitted = nil
            }
        }
        for index in tickets.indices {
            let ticket = tickets[index]
            if ticket.state == .called, let called = ticket.called,
               now.seconds(since: called.wall, called.steady) >= policy.presentationWindow {
                tickets[index].state = .noShow
            }
        }
    }

    mutating func add(_ delta: Int, to door: String) {
        if let index = doors.firstIndex(where: { $0.door == door }) {
            doors[index].count += delta
        } else {
            doors.append((door, delta))
        }
    }

    /// A passage; an entry belongs to the oldest admission.
    public mutating func pass(_ direction: PassageDirection, door: String) {
        add(direction == .entry ? 1 : -1, to: door)
        guard direction == .entry,
              let holder = tickets.filter({ $0.state == .admitted })
                  .min(by: { ($0.admitted!.wall, $0.number.sequence) < ($1.admitted!.wall, $1.number.sequence) })
        else { return }
        update(holder.number) { $0.state = .entered }
    }

    public mutating func correct(door: String, delta: Int) {
        let shown = max(0, count(door))
        add(shown + delta - count(door), to: door)
    }

    /// The next business day: the count of each door and the tickets still in play (and
    /// valid) carry over; the rest is left behind.
    public mutating func rollOver(to next: BusinessDay, at now: Moment) {
        day = next
        doors = doors.filter { $0.count != 0 }
        tickets = tickets.filter { ticket in
            switch ticket.state {
            case .printing: true
            case .waiting, .called, .admitted: now.wall < ticket.issuedAt.addingTimeInterval(validity)
            case .entered, .noShow, .printFailed, .voided: false
            }
        }
    }
}
