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
        return SimulationReply(outcome: outcome.sentence, screen: kiosk.flow.screen.name, ticket: outcome.ticket?.description)
    }
}
