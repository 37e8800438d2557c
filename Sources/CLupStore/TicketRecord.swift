import CLupCore
import Foundation
import GRDB

/// A ticket as stored in the `ticket` table.
struct TicketRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "ticket"

    var businessDay: String
    var number: String
    var lane: String
    var sequence: Int
    var issuedAt: Date
    var state: String
    var code: String
    var printJob: Int?
    var failureReason: String?

    enum CodingKeys: String, CodingKey {
        case businessDay = "business_day", number, lane, sequence, issuedAt = "issued_at", state,
             code, printJob = "print_job", failureReason = "failure_reason"
    }

    init(_ ticket: Ticket) {
        businessDay = ticket.businessDay.date
        number = ticket.number.description
        lane = ticket.lane.rawValue
        sequence = ticket.number.sequence
        issuedAt = ticket.issuedAt
        state = ticket.state.rawValue
        code = ticket.code
    }

    func ticket() throws -> Ticket {
        guard let number = TicketNumber(number), let state = TicketState(rawValue: state) else {
            throw StoreError.corruptRow(table: "ticket", key: "\(businessDay)/\(number)")
        }
        return Ticket(number: number, businessDay: BusinessDay(businessDay), issuedAt: issuedAt,
                      state: state, code: code)
    }
}
