import Foundation

/// A change of state, kept in the event log in the same transaction as the change.
public enum DomainEvent: Hashable, Codable, Sendable {
    case ticketIssued(Ticket)
    case ticketPrinted(TicketNumber, businessDay: BusinessDay, job: Int)
    case ticketPrintFailed(TicketNumber, businessDay: BusinessDay, reason: String)
    case passage(direction: PassageDirection, door: String, businessDay: BusinessDay)

    /// The stable name stored in the event log's `type` column.
    public var type: String {
        switch self {
        case .ticketIssued: "ticket.issued"
        case .ticketPrinted: "ticket.printed"
        case .ticketPrintFailed: "ticket.print-failed"
        case .passage: "occupancy.passage"
        }
    }
}
