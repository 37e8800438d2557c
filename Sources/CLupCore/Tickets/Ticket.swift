import Foundation

/// A place in the queue, as printed on paper. Nothing personal: no name, no phone number.
public struct Ticket: Hashable, Codable, Sendable {
    public let number: TicketNumber
    public let businessDay: BusinessDay
    public let issuedAt: Date
    public var state: TicketState
    /// The text of the ticket's QR code, as the door reader will see it.
    public let code: String

    public init(number: TicketNumber, businessDay: BusinessDay, issuedAt: Date,
                state: TicketState, code: String) {
        self.number = number
        self.businessDay = businessDay
        self.issuedAt = issuedAt
        self.state = state
        self.code = code
    }

    public var lane: Lane { number.lane }
}
