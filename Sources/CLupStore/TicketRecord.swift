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
    /// The latest business day it was carried over into, for a ticket still in play when
    /// its own day ended.
    var carriedInto: String?
    var issuedSteady: String?
    var calledSteady: String?
    var admittedSteady: String?
    var leftAt: Double?
    var takenAt: Double?
    var language: String?
    var voidedBy: String?

    enum CodingKeys: String, CodingKey {
        case businessDay = "business_day", number, lane, sequence, issuedAt = "issued_at", state,
             code, printJob = "print_job", failureReason = "failure_reason", slotStart = "slot_start",
             calledAt = "called_at", callReason = "call_reason", admittedAt = "admitted_at", enteredAt = "entered_at",
             priorityReason = "priority_reason", carriedInto = "carried_into", issuedSteady = "issued_steady",
             calledSteady = "called_steady", admittedSteady = "admitted_steady", leftAt = "left_at", takenAt = "taken_at",
             language, voidedBy = "voided_by"
    }

    /// `ticket` as the day `heldBy` holds it (a later day, for a ticket carried over).
    init(_ ticket: Ticket, heldBy day: BusinessDay) {
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
        carriedInto = day == ticket.businessDay ? nil : day.date
        issuedSteady = ticket.issuedSteady?.storedValue
        calledSteady = ticket.calledSteady?.storedValue
        admittedSteady = ticket.admittedSteady?.storedValue
        leftAt = ticket.leftAt?.storedValue
        takenAt = ticket.takenAt?.storedValue
        language = ticket.language
        voidedBy = ticket.voidedBy
    }

    /// The ticket this row holds; a row no version of clupd could have written is refused.
    func ticket() throws -> Ticket {
        let reason = priorityReason.flatMap(PriorityReason.init(rawValue:))
        let corrupt = StoreError.corruptRow(table: "ticket", key: "\(businessDay)/\(number)")
        let times = [issuedAt] + [slotStart, calledAt, admittedAt, enteredAt, leftAt, takenAt].compactMap { $0 }
        let steady = [issuedSteady, calledSteady, admittedSteady].map { $0.map(SteadyTime.init(stored:)) }
        guard let number = TicketNumber(number), let state = TicketState(rawValue: state),
              (priorityReason == nil) == (reason == nil), times.allSatisfy(Date.isStorable),
              !steady.contains(where: { $0 == .some(nil) })
        else { throw corrupt }
        var ticket = Ticket(number: number, businessDay: BusinessDay(businessDay), issuedAt: Date(stored: issuedAt),
                            issuedSteady: steady[0] ?? nil, state: state, code: code,
                            slotStart: slotStart.map(Date.init(stored:)), priorityReason: reason)
        ticket.printJob = printJob
        ticket.failureReason = failureReason
        ticket.calledAt = calledAt.map(Date.init(stored:))
        ticket.calledSteady = steady[1] ?? nil
        ticket.callReason = callReason
        ticket.admittedAt = admittedAt.map(Date.init(stored:))
        ticket.admittedSteady = steady[2] ?? nil
        ticket.enteredAt = enteredAt.map(Date.init(stored:))
        ticket.leftAt = leftAt.map(Date.init(stored:))
        ticket.takenAt = takenAt.map(Date.init(stored:))
        ticket.language = language.map { String($0.prefix(8)) }
        ticket.voidedBy = voidedBy.map { String($0.prefix(DayState.maximumStaffName)) }
        return ticket
    }
}

extension SteadyTime {
    /// "BOOT SECONDS", as stored.
    var storedValue: String { "\(boot) \(seconds)" }

    /// nil when `text` is not what `storedValue` writes.
    init?(stored text: String) {
        guard let space = text.lastIndex(of: " "), let seconds = Double(text[text.index(after: space)...]),
              seconds.isFinite else { return nil }
        self.init(boot: String(text[..<space]), seconds: seconds)
    }
}

extension Date {
    /// The exact Double a `Date` holds, as stored in the database.
    var storedValue: Double { timeIntervalSinceReferenceDate }

    init(stored value: Double) {
        self.init(timeIntervalSinceReferenceDate: value)
    }

    /// Whether a stored instant is one a clock could have read: finite, and within ten
    /// thousand years of 2001.
    static func isStorable(_ value: Double) -> Bool {
        value.isFinite && abs(value) < 3.2e11
    }
}
