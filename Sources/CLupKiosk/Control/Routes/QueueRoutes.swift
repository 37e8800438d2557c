import Logging
import CLupCore
import CLupProtocol
import Foundation

/// The queue and the door: tickets, calls, skips and voids, reprints, priority tickets and
/// the occupancy ledger.
extension Daemon {
    func routeQueue(_ router: ControlRouter) {
        router.on(Control.Tickets.self) { [unowned self] _, _ in
            let day = kiosk.desk.day
            let lines = day.tickets.values.sorted(by: issueOrder).map { ticket in
                TicketLine(number: ticket.number.description, lane: ticket.lane.rawValue,
                           state: ticket.state.rawValue, issuedAt: ticket.issuedAt, code: ticket.code)
            }
            return TicketsReport(businessDay: day.businessDay.date, tickets: lines)
        }
        router.on(Control.Queue.self) { [unowned self] _, _ in queueReport() }
        router.on(Control.CallNext.self) { [unowned self] _, context in
            let events = try kiosk.desk.perform { day, now in try day.callNext(at: now, policy: config.queue) }
            guard case let .ticketCalled(number, _, _, reason, _)? = events.first else {
                throw CodedError(.nobodyCalled, "no ticket was called")
            }
            logger.info("ticket called by hand", metadata: ["number": "\(number)", "by": "\(context.who)"])
            return CallReply(number: number.description, reason: reason)
        }
        router.on(Control.Skip.self) { [unowned self] command, context in try skip(command.number, by: context.who) }
        router.on(Control.VoidTicket.self) { [unowned self] command, context in
            try void(command.number, reason: command.reason, by: context.who)
        }
        router.on(Control.IssuePriority.self) { [unowned self] command, context in
            let outcome = kiosk.issueTicket(.priority(command.reason))
            if let number = outcome.ticket {
                logger.notice("priority ticket issued", metadata: ["number": "\(number)", "reason": "\(command.reason.rawValue)",
                                                                    "by": "\(context.who)"])
            }
            return try reply(outcome)
        }
        router.on(Control.Reprint.self) { [unowned self] command, context in
            let number = try ticketNumber(command.number)
            let outcome = try kiosk.reprint(number, by: context.who)
            logger.notice("ticket reprinted", metadata: ["number": "\(number)", "by": "\(context.who)"])
            return try reply(outcome)
        }
        router.on(Control.Ledger.self) { [unowned self] _, _ in try ledgerReport() }
        router.on(Control.CorrectLedger.self) { [unowned self] command, context in
            try kiosk.desk.perform { day, now in
                try day.correct(door: config.totem.door, delta: command.delta, by: context.who, reason: command.reason, at: now)
            }
            logger.notice("occupancy corrected", metadata: ["delta": "\(command.delta)", "by": "\(context.who)",
                                                            "reason": "\(command.reason)"])
            return try ledgerReport()
        }
        router.on(Control.SetOccupancy.self) { [unowned self] command, context in
            try kiosk.desk.perform { day, now in
                try day.correct(door: config.totem.door, toCount: command.count, by: context.who, reason: command.reason, at: now)
            }
            logger.notice("occupancy set", metadata: ["count": "\(command.count)", "by": "\(context.who)",
                                                      "reason": "\(command.reason)"])
            return try ledgerReport()
        }
    }

    /// What a simulated device's event or a staff request did, or why it was refused.
    func reply(_ outcome: KioskOutcome) throws -> SimulationReply {
        if let refusal = outcome.refusal { throw refusal }
        return SimulationReply(outcome: outcome.sentence, screen: kiosk.screens.flow.screen.name, ticket: outcome.ticket?.description)
    }

    /// A called ticket whose customer did not come: its place goes to the next one now.
    func skip(_ text: String, by who: String) throws -> TicketCareReply {
        let number = try ticketNumber(text)
        try kiosk.desk.perform { day, now in try day.skip(number: number, by: who, at: now) }
        logger.notice("ticket skipped", metadata: ["number": "\(number)", "by": "\(who)"])
        let next = kiosk.desk.day.tickets.values.filter { $0.state == .called }.map(\.number.description).sorted()
        return TicketCareReply(number: number.description, state: kiosk.desk.day.tickets[number]?.state.rawValue ?? "no-show",
                               outcome: "\(number) skipped; its place is free"
                                   + (next.isEmpty ? "" : " (called now: \(next.joined(separator: ", ")))"))
    }

    /// A ticket made invalid: out of the queue, its code refused at the door.
    func void(_ text: String, reason: String, by who: String) throws -> TicketCareReply {
        let number = try ticketNumber(text)
        try kiosk.desk.perform { day, now in try day.void(number: number, by: who, reason: reason, at: now) }
        logger.notice("ticket voided", metadata: ["number": "\(number)", "by": "\(who)", "reason": "\(reason.prefix(80))"])
        return TicketCareReply(number: number.description, state: kiosk.desk.day.tickets[number]?.state.rawValue ?? "voided",
                               outcome: "\(number) voided: its code no longer opens the door")
    }

    /// The ticket number typed, or why it is not one (quoting it escaped: the message goes to
    /// the audit trail and the log).
    func ticketNumber(_ text: String) throws -> TicketNumber {
        guard let number = TicketNumber(text) else {
            throw CodedError(.notATicketNumber, "\(TypedText.inMessage(text)) is not a ticket number (like A-017)")
        }
        return number
    }
}
