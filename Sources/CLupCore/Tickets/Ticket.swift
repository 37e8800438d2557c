import Foundation

/// A place in the queue, as printed on paper. Nothing personal: no name, no phone number.
public struct Ticket: Hashable, Codable, Sendable {
    public let number: TicketNumber
    public let businessDay: BusinessDay
    public let issuedAt: Date
    /// The monotonic clock when it was issued, called and admitted: the windows and the
    /// aging bound are measured on it (`Moment.seconds(since:_:)`).
    public let issuedSteady: SteadyTime?
    public var state: TicketState
    /// The text of the ticket's QR code, as the door reader will see it.
    public let code: String
    /// For a booking: the start of its slot.
    public let slotStart: Date?
    /// For a priority ticket: why the employee gave it.
    public let priorityReason: PriorityReason?
    public var printJob: Int?
    public var calledAt: Date?
    public var calledSteady: SteadyTime?
    /// Why this ticket was called when it was, in words.
    public var callReason: String?
    public var admittedAt: Date?
    public var admittedSteady: SteadyTime?
    public var enteredAt: Date?
    /// When it was scanned on the way out (nil: not, or not yet).
    public var leftAt: Date?
    public var failureReason: String?
    /// The wait the customer was told when it was issued (nil: none was, as for a booking).
    public var promisedWait: WaitEstimate?
    /// The language its customer chose at the totem (ISO 639-1): its ticket and its call speak it.
    public var language: String?
    /// For a priority ticket issued at the PIN pad: the employee's staff number.
    public var issuedBy: String?
    /// Who voided it: a member of staff, or `DayState.remoteLeaver` for a place its holder
    /// gave up from their phone (the door tells them so). Kept with the day, never in an event
    /// of its own (the void's event says it).
    public var voidedBy: String?
    /// When it took its place in the line, on the hub's clock to the millisecond
    /// (`LineOrder`); nil in the events of earlier versions, whose `issuedAt` stands for it.
    public var takenAt: Date?

    public init(number: TicketNumber, businessDay: BusinessDay, issuedAt: Date, issuedSteady: SteadyTime? = nil,
                state: TicketState, code: String, slotStart: Date? = nil, priorityReason: PriorityReason? = nil) {
        self.number = number
        self.businessDay = businessDay
        self.issuedAt = issuedAt
        self.issuedSteady = issuedSteady
        self.state = state
        self.code = code
        self.slotStart = slotStart
        self.priorityReason = priorityReason
    }

    public var lane: Lane { number.lane }

    /// Its place in the line, as `LineOrder` compares places.
    public var place: LineOrder.Place { LineOrder.Place(number: number, takenAt: takenAt ?? issuedAt) }

    /// Seconds since it was issued, called or admitted, as `now` measures them.
    public func secondsSinceIssue(at now: Moment) -> Double { now.seconds(since: issuedAt, issuedSteady) }
    public func secondsSinceCall(at now: Moment) -> Double? { calledAt.map { now.seconds(since: $0, calledSteady) } }
    public func secondsSinceAdmission(at now: Moment) -> Double? { admittedAt.map { now.seconds(since: $0, admittedSteady) } }
}
