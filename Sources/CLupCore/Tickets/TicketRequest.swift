import Foundation

/// Why an employee gave a priority ticket. Only the category is kept: nothing personal.
public enum PriorityReason: String, Codable, Sendable, CaseIterable {
    case pregnant
    case disability
    case elderly
    case other
}

/// What kind of ticket someone asks for.
public enum TicketRequest: Hashable, Sendable {
    /// A walk-in customer's ticket from the totem's screen.
    case regular
    /// A ticket an employee issues, with the reason.
    case priority(PriorityReason)
    /// A visit booked for the slot starting at `slotStart`.
    case booking(slotStart: Date)

    public var lane: Lane {
        switch self {
        case .regular: .regular
        case .priority: .priority
        case .booking: .booking
        }
    }
}
