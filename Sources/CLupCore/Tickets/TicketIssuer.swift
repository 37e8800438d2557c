import Crypto
import Foundation

/// Issues tickets: the next number of a lane for a business day, and the ticket's code.
///
/// Pure: the caller passes the highest sequence already used and the instant.
public struct TicketIssuer {
    public let store: UInt32
    public let totem: Character
    public let validMinutes: UInt16
    /// The totem's signing key; its public half goes to the store's other totems.
    public let key: Curve25519.Signing.PrivateKey

    public init(store: UInt32, totem: Character, validMinutes: UInt16, key: Curve25519.Signing.PrivateKey) {
        self.store = store
        self.totem = totem
        self.validMinutes = validMinutes
        self.key = key
    }

    /// A new ticket as `request` asks, numbered `sequence` in its lane, and the event that
    /// records it.
    public func issue(_ request: TicketRequest, sequence: Int, businessDay: BusinessDay,
                      at instant: Moment) -> (Ticket, DomainEvent) {
        let number = TicketNumber(totem: totem, lane: request.lane, sequence: sequence)
        // Whole seconds, so the ticket as stored equals the ticket as its code says.
        let issuedAt = Date(timeIntervalSince1970: instant.wall.timeIntervalSince1970.rounded(.down))
        let payload = TicketPayload(store: store, number: number, issuedAt: issuedAt,
                                    validMinutes: validMinutes)
        var ticket = Ticket(number: number, businessDay: businessDay, issuedAt: issuedAt, issuedSteady: instant.steady,
                            state: .printing, code: TicketCode.make(payload, signedWith: key),
                            slotStart: { if case let .booking(slot) = request { slot } else { nil } }(),
                            priorityReason: { if case let .priority(reason) = request { reason } else { nil } }())
        ticket.takenAt = LineOrder.instant(instant.onHubClock)
        return (ticket, .ticketIssued(ticket))
    }
}
