import Foundation

/// A change of state, kept in the event log in the same transaction as the change.
///
/// Events carry the instants the rules need, so replaying the log rebuilds the state
/// exactly (`DayState.replaying`). An instant is the wall clock (for people and the hub);
/// where a window is measured from it, the monotonic reading goes with it (`steady`,
/// absent in events stored before it was kept).
public enum DomainEvent: Hashable, Codable, Sendable {
    /// The business day begins: people still inside and the tickets still in play the day
    /// before carry over into it, so a store open across the day's start neither forgets who
    /// is inside nor anyone's place in the queue.
    case dayOpened(businessDay: BusinessDay, after: BusinessDay?, inside: [String: Int], tickets: [Ticket], at: Date)
    case ticketIssued(Ticket)
    /// cupsd accepted the ticket's print job.
    case ticketSubmitted(TicketNumber, businessDay: BusinessDay, job: Int)
    case ticketPrinted(TicketNumber, businessDay: BusinessDay, job: Int)
    case ticketPrintFailed(TicketNumber, businessDay: BusinessDay, reason: String)
    case ticketCalled(TicketNumber, businessDay: BusinessDay, at: Date, reason: String, steady: SteadyTime? = nil)
    case ticketNoShow(TicketNumber, businessDay: BusinessDay, at: Date)
    case ticketAdmitted(TicketNumber, businessDay: BusinessDay, at: Date, steady: SteadyTime? = nil)
    /// Nobody passed the released turnstile in time: the ticket is called again.
    case admissionLapsed(TicketNumber, businessDay: BusinessDay, at: Date)
    /// Staff asked for a ticket the printer failed to be printed again.
    case ticketReprinted(TicketNumber, businessDay: BusinessDay, by: String)
    /// A technician skipped a called ticket whose holder did not come: it is a no-show at
    /// once, and its place is free (without waiting for the presentation window to end).
    case ticketSkipped(TicketNumber, businessDay: BusinessDay, at: Date, by: String)
    /// A technician voided a ticket waiting, called or failed by the printer, saying why: it
    /// leaves the queue, holds nothing, and its code no longer opens the door.
    case ticketVoided(TicketNumber, businessDay: BusinessDay, at: Date, by: String, reason: String)
    /// A turnstile pulse; `ticket` is the admitted ticket whose holder it was, if any.
    case passage(direction: PassageDirection, door: String, businessDay: BusinessDay, at: Date, ticket: TicketNumber?,
                 steady: SteadyTime? = nil)
    /// A technician's correction of the count of people inside.
    case occupancyCorrected(door: String, businessDay: BusinessDay, delta: Int, by: String, reason: String, at: Date)
    /// The hub's store settings (capacity, shares) put in force at this totem.
    case storeSettingsApplied(StoreSettingsDocument, businessDay: BusinessDay, at: Date)
    /// The door's part of the store's capacity from its line (`DoorLine.doorLimit`) put in
    /// force at this totem.
    case doorLimitApplied(DoorLimit, businessDay: BusinessDay, at: Date)
    /// A ticket another door of the store called was read at this door: it joins this
    /// door's day as called (and is admitted by the next event).
    case ticketFromOtherDoor(Ticket, at: Date)
    /// A ticket that came in was scanned on the way out: its time in store is known.
    case ticketLeft(TicketNumber, businessDay: BusinessDay, at: Date)
    /// What a member of staff did at the totem (`AuditEntry`); it changes nothing of the day.
    case audited(AuditEntry, businessDay: BusinessDay, at: Date)

    /// The stable name stored in the event log's `type` column.
    public var type: String {
        switch self {
        case .dayOpened: "day.opened"
        case .ticketIssued: "ticket.issued"
        case .ticketSubmitted: "ticket.submitted"
        case .ticketPrinted: "ticket.printed"
        case .ticketPrintFailed: "ticket.print-failed"
        case .ticketCalled: "ticket.called"
        case .ticketNoShow: "ticket.no-show"
        case .ticketAdmitted: "ticket.admitted"
        case .admissionLapsed: "ticket.admission-lapsed"
        case .ticketReprinted: "ticket.reprinted"
        case .ticketSkipped: "ticket.skipped"
        case .ticketVoided: "ticket.voided"
        case .passage: "occupancy.passage"
        case .occupancyCorrected: "occupancy.corrected"
        case .storeSettingsApplied: "store.settings-applied"
        case .doorLimitApplied: "store.door-limit-applied"
        case .ticketFromOtherDoor: "ticket.from-other-door"
        case .ticketLeft: "ticket.left"
        case .audited: "staff.audit"
        }
    }

    /// The business day the event belongs to.
    public var businessDay: BusinessDay {
        switch self {
        case let .dayOpened(day, _, _, _, _): day
        case let .ticketIssued(ticket), let .ticketFromOtherDoor(ticket, _): ticket.businessDay
        case let .ticketSubmitted(_, day, _), let .ticketPrinted(_, day, _), let .ticketPrintFailed(_, day, _),
             let .ticketCalled(_, day, _, _, _), let .ticketNoShow(_, day, _), let .ticketAdmitted(_, day, _, _),
             let .admissionLapsed(_, day, _), let .ticketReprinted(_, day, _), let .ticketLeft(_, day, _),
             let .ticketSkipped(_, day, _, _), let .ticketVoided(_, day, _, _, _),
             let .passage(_, _, day, _, _, _), let .occupancyCorrected(_, day, _, _, _, _),
             let .storeSettingsApplied(_, day, _), let .doorLimitApplied(_, day, _), let .audited(_, day, _):
            day
        }
    }
}
