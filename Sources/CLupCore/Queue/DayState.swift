import Foundation

/// Everything the totem knows about one business day: its tickets, the occupancy ledger of
/// each door, and the exit history behind the wait estimate.
///
/// Pure: commands (in `DayState+Commands.swift`) return the events they caused and change
/// the state only by applying those events, so replaying the event log rebuilds the state.
public struct DayState: Hashable, Codable, Sendable {
    public let businessDay: BusinessDay
    /// The day's own tickets, and those carried over from the day before (whose
    /// `businessDay` is the day they were issued).
    public private(set) var tickets: [TicketNumber: Ticket] = [:]
    public private(set) var ledgers: [String: OccupancyLedger] = [:]
    public private(set) var wait = WaitEstimator()
    /// Whether the day has begun (`dayOpened`): a day is opened once, before anything else.
    public private(set) var isOpen = false

    public init(businessDay: BusinessDay) {
        self.businessDay = businessDay
    }

    /// The state as stored: tickets, ledgers and exit history.
    public init(businessDay: BusinessDay, tickets: [Ticket], ledgers: [OccupancyLedger], wait: WaitEstimator, isOpen: Bool) {
        self.businessDay = businessDay
        self.tickets = Dictionary(tickets.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        self.ledgers = Dictionary(ledgers.map { ($0.door, $0) }, uniquingKeysWith: { first, _ in first })
        self.wait = wait
        self.isOpen = isOpen
    }

    /// The state that `events` build from an empty day.
    public static func replaying(_ events: [DomainEvent], businessDay: BusinessDay) -> DayState {
        var state = DayState(businessDay: businessDay)
        for event in events where event.businessDay == businessDay {
            state.apply(event)
        }
        return state
    }

    // MARK: Figures

    /// People inside, over all doors, never below zero.
    public var inside: Int { max(0, ledgers.values.map(\.count).saturatingSum()) }

    /// Tickets called or admitted whose holders are not inside yet.
    public var promised: Int { tickets.values.filter { $0.state.holdsAPlace }.count }

    /// Places taken or promised.
    public var occupied: Int { inside.addingSaturating(promised) }

    /// The places this door's totem holds of a store with several doors: people in by its
    /// doors less those out by them (below zero where more leave by it than come in), plus
    /// its tickets called or admitted. The doors' figures add up to the store's.
    public var heldHere: Int { ledgers.values.map(\.count).saturatingSum().addingSaturating(promised) }

    /// The places taken, as `policy` counts them against `placesHere`: this door's own where
    /// the hub shares the capacity among doors, else everyone's.
    public func placesTaken(_ policy: QueuePolicy) -> Int {
        policy.doorLimit == nil ? occupied : heldHere
    }

    /// The ledger of `door` (empty if nobody passed there yet).
    public func ledger(door: String) -> OccupancyLedger {
        ledgers[door] ?? OccupancyLedger(door: door)
    }

    /// Tickets waiting to be called in `lane`, oldest first.
    public func waiting(in lane: Lane) -> [Ticket] {
        tickets.values.filter { $0.lane == lane && $0.state == .waiting }
            .sorted { ($0.issuedAt, $0.number.sequence) < ($1.issuedAt, $1.number.sequence) }
    }

    /// The line: regular tickets printed here and places taken from a phone, waiting, in
    /// the order they were taken (`LineOrder`, on the hub's clock to the millisecond).
    public var line: [Ticket] {
        tickets.values.filter { ($0.lane == .regular || $0.lane == .remote) && $0.state == .waiting }
            .sorted { LineOrder.precedes($0.place, $1.place) }
    }

    /// How many places are before ticket `number` while it waits in the line (what the hub
    /// tells a phone's place, by the same rule); nil once it does not wait there.
    public func placesAhead(of number: TicketNumber) -> Int? {
        guard let ticket = tickets[number], ticket.state == .waiting, ticket.lane == .regular || ticket.lane == .remote else { return nil }
        return LineOrder.ahead(of: ticket.place, priorityWaiting: waiting(in: .priority).count, line: line.map(\.place))
    }

    /// Tickets waiting to be called, in the queue lanes (not bookings).
    public var queueLength: Int { line.count + waiting(in: .priority).count }

    /// The highest sequence `totem` used in `lane` today (carried tickets do not count:
    /// numbers start again each day).
    public func lastSequence(of totem: Character, in lane: Lane) -> Int {
        // One pass over the day's tickets, copying none (this runs at every issue).
        var last = 0
        for ticket in tickets.values where ticket.businessDay == businessDay && ticket.number.totem == totem && ticket.lane == lane {
            last = max(last, ticket.number.sequence)
        }
        return last
    }

    // MARK: Applying events

    /// Changes the state as `event` says. The only place the state changes.
    public mutating func apply(_ event: DomainEvent) {
        switch event {
        case let .dayOpened(_, _, inside, carried, _):
            isOpen = true
            for (door, count) in inside { ledgers[door] = OccupancyLedger(door: door, carried: count) }
            for ticket in carried { tickets[ticket.number] = ticket }
        case let .ticketIssued(ticket), let .ticketFromOtherDoor(ticket, _):
            tickets[ticket.number] = ticket
        case let .ticketSubmitted(number, _, job):
            tickets[number]?.printJob = job
        case let .ticketPrinted(number, _, job):
            tickets[number]?.state = .waiting
            tickets[number]?.printJob = job
        case let .ticketPrintFailed(number, _, reason):
            tickets[number]?.state = .printFailed
            tickets[number]?.failureReason = reason
        case let .ticketCalled(number, _, at, reason, steady):
            tickets[number]?.state = .called
            tickets[number]?.calledAt = at
            tickets[number]?.calledSteady = steady
            tickets[number]?.callReason = reason
        case let .ticketNoShow(number, _, _), let .ticketSkipped(number, _, _, _):
            tickets[number]?.state = .noShow
        case let .ticketVoided(number, _, _, by, _):
            tickets[number]?.state = .voided
            tickets[number]?.voidedBy = by
        case let .ticketAdmitted(number, _, at, steady):
            tickets[number]?.state = .admitted
            tickets[number]?.admittedAt = at
            tickets[number]?.admittedSteady = steady
        case let .admissionLapsed(number, _, _):
            // Back to where the scan found it: a called ticket is called again, a booking
            // waits for its window as before.
            let wasCalled = tickets[number]?.calledAt != nil
            tickets[number]?.state = wasCalled ? .called : .waiting
            tickets[number]?.admittedAt = nil
            tickets[number]?.admittedSteady = nil
        case let .ticketLeft(number, _, at):
            tickets[number]?.leftAt = at
        case let .ticketReprinted(number, _, _):
            tickets[number]?.state = .printing
            tickets[number]?.printJob = nil
            tickets[number]?.failureReason = nil
        case let .passage(direction, door, _, at, ticket, steady):
            ledgers[door, default: OccupancyLedger(door: door)].apply(direction)
            if let ticket {
                tickets[ticket]?.state = .entered
                tickets[ticket]?.enteredAt = at
            }
            if direction == .exit { wait.recordExit(at: Moment(wall: at, steady: steady)) }
        case let .occupancyCorrected(door, _, delta, _, _, _):
            ledgers[door, default: OccupancyLedger(door: door)].apply(correction: delta)
        case .storeSettingsApplied, .doorLimitApplied, .audited:
            // The policy is the kiosk's configuration, and staff's doings are a trail, not
            // the day's state.
            break
        }
    }
}
