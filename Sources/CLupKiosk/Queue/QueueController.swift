import Logging
import CLupCore
import CLupProtocol
import Foundation

/// The queue's and the door's commands on the control socket (tickets, calls, skips and
/// voids, reprints, priority tickets, the occupancy ledger) and the reports they answer with.
struct QueueController {
    let kiosk: Kiosk

    private var desk: QueueDesk { kiosk.desk }
    private var config: KioskConfiguration { kiosk.config }
    private var clock: any Clock { kiosk.clock }
    private var logger: Logger { kiosk.logger }

    func addRoutes(to router: ControlRouter) {
        router.on(Control.Tickets.self) { _, _ in
            let day = desk.day
            let lines = day.tickets.values.sorted(by: Self.issueOrder).map { ticket in
                TicketLine(number: ticket.number.description, lane: ticket.lane.rawValue,
                           state: ticket.state.rawValue, issuedAt: ticket.issuedAt, code: ticket.code)
            }
            return TicketsReport(businessDay: day.businessDay.date, tickets: lines)
        }
        router.on(Control.Queue.self) { _, _ in queueReport() }
        router.on(Control.CallNext.self) { _, context in
            let events = try desk.perform { day, now in try day.callNext(at: now, policy: config.queue) }
            guard case let .ticketCalled(number, _, _, reason, _)? = events.first else {
                throw CodedError(.nobodyCalled, "no ticket was called")
            }
            logger.info("ticket called by hand", metadata: ["number": "\(number)", "by": "\(context.who)"])
            return CallReply(number: number.description, reason: reason)
        }
        router.on(Control.Skip.self) { command, context in try skip(command.number, by: context.who) }
        router.on(Control.VoidTicket.self) { command, context in
            try void(command.number, reason: command.reason, by: context.who)
        }
        router.on(Control.IssuePriority.self) { command, context in
            let outcome = kiosk.issueTicket(.priority(command.reason))
            if let number = outcome.ticket {
                logger.notice("priority ticket issued", metadata: ["number": "\(number)", "reason": "\(command.reason.rawValue)",
                                                                    "by": "\(context.who)"])
            }
            return try outcome.reply(screen: kiosk.screens.flow.screen.name)
        }
        router.on(Control.Reprint.self) { command, context in
            let number = try ticketNumber(command.number)
            let outcome = try kiosk.reprint(number, by: context.who)
            logger.notice("ticket reprinted", metadata: ["number": "\(number)", "by": "\(context.who)"])
            return try outcome.reply(screen: kiosk.screens.flow.screen.name)
        }
        router.on(Control.Ledger.self) { _, _ in try ledgerReport() }
        router.on(Control.CorrectLedger.self) { command, context in
            try desk.perform { day, now in
                try day.correct(door: config.totem.door, delta: command.delta, by: context.who, reason: command.reason, at: now)
            }
            logger.notice("occupancy corrected", metadata: ["delta": "\(command.delta)", "by": "\(context.who)",
                                                            "reason": "\(command.reason)"])
            return try ledgerReport()
        }
        router.on(Control.SetOccupancy.self) { command, context in
            try desk.perform { day, now in
                try day.correct(door: config.totem.door, toCount: command.count, by: context.who, reason: command.reason, at: now)
            }
            logger.notice("occupancy set", metadata: ["count": "\(command.count)", "by": "\(context.who)",
                                                      "reason": "\(command.reason)"])
            return try ledgerReport()
        }
    }

    /// A called ticket whose customer did not come: its place goes to the next one now.
    func skip(_ text: String, by who: String) throws -> TicketCareReply {
        let number = try ticketNumber(text)
        try desk.perform { day, now in try day.skip(number: number, by: who, at: now) }
        logger.notice("ticket skipped", metadata: ["number": "\(number)", "by": "\(who)"])
        let next = desk.day.tickets.values.filter { $0.state == .called }.map(\.number.description).sorted()
        return TicketCareReply(number: number.description, state: desk.day.tickets[number]?.state.rawValue ?? "no-show",
                               outcome: "\(number) skipped; its place is free"
                                   + (next.isEmpty ? "" : " (called now: \(next.joined(separator: ", ")))"))
    }

    /// A ticket made invalid: out of the queue, its code refused at the door.
    func void(_ text: String, reason: String, by who: String) throws -> TicketCareReply {
        let number = try ticketNumber(text)
        try desk.perform { day, now in try day.void(number: number, by: who, reason: reason, at: now) }
        logger.notice("ticket voided", metadata: ["number": "\(number)", "by": "\(who)", "reason": "\(reason.prefix(80))"])
        return TicketCareReply(number: number.description, state: desk.day.tickets[number]?.state.rawValue ?? "voided",
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

    func queueReport() -> QueueReport {
        let day = desk.day
        let now = clock.moment()
        let policy = config.queue
        func line(_ ticket: Ticket) -> QueueLine {
            // The window runs on the monotonic clock; the deadline is shown on the wall clock.
            let left = ticket.state == .called ? ticket.secondsSinceCall(at: now).map { policy.presentationWindow - $0 } : nil
            return QueueLine(number: ticket.number.description, lane: ticket.lane.rawValue, state: ticket.state.rawValue,
                             issuedAt: ticket.issuedAt, calledAt: ticket.calledAt,
                             deadline: left.map { now.wall.addingTimeInterval($0) }, reason: ticket.callReason)
        }
        let waiting = (day.waiting(in: .priority) + day.line + day.waiting(in: .booking)).map(line)
        let called = day.tickets.values.filter(\.state.holdsAPlace)
            .sorted { ($0.calledAt ?? $0.issuedAt) < ($1.calledAt ?? $1.issuedAt) }.map(line)
        let next = day.nextCall(at: now, policy: policy).map { "\($0.ticket.number): \($0.reason)" }
        return QueueReport(businessDay: day.businessDay.date, capacity: policy.capacity, inside: day.inside,
                           promised: day.promised, priorityReserve: day.priorityReserve(policy), waiting: waiting,
                           called: called, nextCall: next,
                           estimatedWait: desk.estimatedWait(for: .regular, defaultMinutes: config.tickets.defaultWaitMinutes).description)
    }

    func ledgerReport() throws -> LedgerReport {
        let day = desk.day
        // The ledgers depend on what the day carried over, passages and corrections alone: the
        // day's, read by the log's index. An event that cannot be read is left out (and named
        // in `status`, from `openDay`).
        let events = try desk.store.events(ofTypes: ["day.opened", "occupancy.passage", "occupancy.corrected"],
                                           openedOn: day.businessDay)
            .compactMap { try? $0.decoded() }
        let corrections = events.compactMap { event -> CorrectionLine? in
            guard case let .occupancyCorrected(door, eventDay, delta, by, reason, at) = event,
                  eventDay == day.businessDay else { return nil }
            // Bounded as a correction is now: one stored by an older clupd may be long.
            return CorrectionLine(at: at, door: door, delta: delta, by: String(by.prefix(DayState.maximumStaffName)),
                                  reason: String(reason.prefix(DayState.maximumReason)))
        }
        let replayed = DayState.replaying(events, businessDay: day.businessDay)
        let doors = day.ledgers.values.sorted { $0.door < $1.door }.map {
            DoorLedger(door: $0.door, carried: $0.carried, entries: $0.entries, exits: $0.exits, corrections: $0.corrections,
                       inside: $0.inside)
        }
        return LedgerReport(businessDay: day.businessDay.date, inside: day.inside, doors: doors,
                            corrections: corrections, matchesEventLog: replayed.ledgers == day.ledgers)
    }

    /// Tickets in the order they were issued (lanes apart at the same instant).
    static func issueOrder(_ a: Ticket, _ b: Ticket) -> Bool {
        (a.issuedAt, a.lane.rawValue, a.number.sequence) < (b.issuedAt, b.lane.rawValue, b.number.sequence)
    }
}
