import CLupCore
import Foundation
import GRDB

/// A ticket as stored in the `ticket` table. Instants are stored as
/// `timeIntervalSinceReferenceDate`, the Double a `Date` holds, so they read back exactly.
struct TicketRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "ticket"

    var businessDay: String
    var number: String
    var lane: String
    var sequence: Int
    var issuedAt: Double
    var state: String
    var code: String
    var printJob: Int?
    var failureReason: String?
    var slotStart: Double?
    var calledAt: Double?
    var callReason: String?
    var admittedAt: Double?
    var enteredAt: Double?
    var priorityReason: String?

    enum CodingKeys: String, CodingKey {
        case businessDay = "business_day", number, lane, sequence, issuedAt = "issued_at", state,
             code, printJob = "print_job", failureReason = "failure_reason", slotStart = "slot_start",
             calledAt = "called_at", callReason = "call_reason", admittedAt = "admitted_at", enteredAt = "entered_at",
             priorityReason = "priority_reason"
    }

    init(_ ticket: Ticket) {
        businessDay = ticket.businessDay.date
        number = ticket.number.description
        lane = ticket.lane.rawValue
        sequence = ticket.number.sequence
        issuedAt = ticket.issuedAt.storedValue
        state = ticket.state.rawValue
        code = ticket.code
        printJob = ticket.printJob
        failureReason = ticket.failureReason
        slotStart = ticket.slotStart?.storedValue
        calledAt = ticket.calledAt?.storedValue
        callReason = ticket.callReason
        admittedAt = ticket.admittedAt?.storedValue
        enteredAt = ticket.enteredAt?.storedValue
        priorityReason = ticket.priorityReason?.rawValue
    }

    func ticket() throws -> Ticket {
        let reason = priorityReason.flatMap(PriorityReason.init(rawValue:))
        guard let number = TicketNumber(number), let state = TicketState(rawValue: state),
              (priorityReason == nil) == (reason == nil) else {
            throw StoreError.corruptRow(table: "ticket", key: "\(businessDay)/\(number)")
        }
        var ticket = Ticket(number: number, businessDay: BusinessDay(businessDay), issuedAt: Date(stored: issuedAt),
                            state: state, code: code, slotStart: slotStart.map(Date.init(stored:)), priorityReason: reason)
        ticket.printJob = printJob
        ticket.failureReason = failureReason
        ticket.calledAt = calledAt.map(Date.init(stored:))
        ticket.callReason = callReason
        ticket.admittedAt = admittedAt.map(Date.init(stored:))
        ticket.enteredAt = enteredAt.map(Date.init(stored:))
        return ticket
    }
}

extension Date {
    /// The exact Double a `Date` holds, as stored in the database.
    var storedValue: Double { timeIntervalSinceReferenceDate }

    init(stored value: Double) {
        self.init(timeIntervalSinceReferenceDate: value)
    }
}
