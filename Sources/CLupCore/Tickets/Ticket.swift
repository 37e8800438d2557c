import Foundation

/// A place in the queue, as printed on paper. Nothing personal: no name, no phone number.
public struct Ticket: Hashable, Codable, Sendable {
    public let number: TicketNumber
    public let businessDay: BusinessDay
    public let issuedAt: Date
    public var state: TicketState
    /// The text of the ticket's QR code, as the door reader will see it.
    public let code: String
    /// For a booking: the start of its slot.
    public let slotStart: Date?
    /// For a priority ticket: why the employee gave it.
    public let priorityReason: PriorityReason?
    public var printJob: Int?
    public var calledAt: Date?
    /// Why this ticket was called when it was, in words.
    public var callReason: String?
    public var admittedAt: Date?
    public var enteredAt: Date?
    public var failureReason: String?

    public init(number: TicketNumber, businessDay: BusinessDay, issuedAt: Date, state: TicketState,
                code: String, slotStart: Date? = nil, priorityReason: PriorityReason? = nil) {
        self.number = number
        self.businessDay = businessDay
        self.issuedAt = issuedAt
        self.state = state
        self.code = code
        self.slotStart = slotStart
        self.priorityReason = priorityReason
    }

    public var lane: Lane { number.lane }
}
