import Logging
import CLupCore
import CLupPrinting
import Foundation

/// Issuing and printing tickets. A ticket is committed before anything reaches the printer
/// (its layout runs meanwhile), and joins the queue only once the printer has finished it.
extension Kiosk {
    /// Issues a ticket and starts it on its way to the printer. A ticket that cannot be
    /// recorded is never printed, and the screen says so. `askedAt` is when the tap or the
    /// request arrived (monotonic seconds; now if nil).
    /// `language` is the one the customer chose (nil: the ticket's first configured one).
    func issueTicket(_ request: TicketRequest, askedAt: Double? = nil, language: String? = nil, by employee: String? = nil)
        -> KioskOutcome {
        let wait = desk.estimatedWait(for: request.lane, defaultMinutes: config.tickets.defaultWaitMinutes)
        let promised = request.lane == .booking ? nil : wait
        return recordAndPrint(wait: wait, askedAt: askedAt) { day, now in
            try day.issue(request, issuer: authority.issuer, at: now, policy: config.queue, promisedWait: promised, language: language,
                          issuedBy: employee)
        }
    }

    /// Why no ticket can come out now, as the printer's port says (no paper, off line, an
    /// error); nil when it says nothing against it, or there is no port to read.
    var printerStopsTickets: CodedError? {
        guard let lines = devices.printerPort?.stopsTickets else { return nil }
        return lines.paperOut ? CodedError(.outOfPaper, "the printer's port says it has no paper")
            : CodedError(.printerNotReady, "the printer's port says \(lines.words)")
    }

    /// Records the ticket `command` issues, then starts it on its way to the printer; refused
    /// while the printer's port says no ticket can come out, unless `whateverThePrinter`
    /// (a place the hub already booked: recorded, so that staff can reprint it).
    func recordAndPrint(wait: WaitEstimate, askedAt: Double?, whateverThePrinter: Bool = false,
                        _ command: (inout DayState, Moment) throws -> [DomainEvent]) -> KioskOutcome {
        do {
            // The printer's port says nothing can come out: no ticket is recorded to fail.
            if !whateverThePrinter, let refusal = printerStopsTickets { throw refusal }
            let pending = try desk.prepare(command)
            guard case let .ticketIssued(ticket)? = pending.events.first else {
                throw CodedError(.internalError, "no ticket was issued")
            }
            spooler.start(ticket, content: ticketContent(ticket, wait: wait), committed: false, askedAt: askedAt)
            do {
                try desk.commit(pending)
            } catch {
                spooler.abandon(ticket.number)
                throw error
            }
            spooler.committed(ticket.number)
            screens.readyLines[ticket.number] = readyLine(ticket, wait: wait)
            logger.info("ticket issued", metadata: ["number": "\(ticket.number)", "day": "\(ticket.businessDay)"])
            handle(.ticketRecorded(number: ticket.number.description))
            return KioskOutcome("ticket \(ticket.number) recorded and sent to the printer", ticket: ticket.number)
        } catch {
            logger.error("could not record a ticket", metadata: ["error": "\(error)"])
            let refusal = CodedError(.ticketNotRecorded, "no ticket: \(error)")
            handle(.ticketNotRecorded(reason: refusal.description))
            return KioskOutcome(refused: refusal)
        }
    }

    /// Staff send a ticket the printer failed to the printer again.
    func reprint(_ number: TicketNumber, by who: String) throws -> KioskOutcome {
        try desk.perform { day, _ in try day.reprint(number, by: who) }
        guard let ticket = desk.day.tickets[number] else { throw CodedError(.unknownTicket, "unknown ticket \(number)") }
        let wait = desk.estimatedWait(for: ticket.lane, defaultMinutes: config.tickets.defaultWaitMinutes)
        screens.readyLines[number] = readyLine(ticket, wait: wait)
        spooler.start(ticket, content: ticketContent(ticket, wait: wait), committed: true)
        handle(.ticketRecorded(number: number.description))
        return KioskOutcome("ticket \(number) sent to the printer again", ticket: number)
    }

    /// cupsd accepted the ticket's job: its id is recorded, so a restart follows it by id.
    func recordAccepted(_ number: TicketNumber, job: Int) {
        do {
            try desk.perform { day, _ in day.recordSubmitted(number, job: job) }
        } catch {
            // Not needed for safety: a restart finds the job by its title.
            logger.error("could not record the print job's id", metadata: ["number": "\(number)", "error": "\(error)"])
        }
    }

    /// The customer is told what the printer did, and it is recorded.
    func printEnded(_ number: TicketNumber, _ outcome: JobOutcome) {
        switch outcome {
        case let .completed(job):
            logger.info("ticket printed", metadata: ["number": "\(number)", "job": "\(job)"])
            handle(.ticketPrinted(number: number.description, wait: screens.readyLines[number] ?? ""))
            record(.printed(job: job), of: number)
        case let .failed(job, reason):
            logger.error("ticket not printed", metadata: ["number": "\(number)", "job": "\(job.map(String.init) ?? "-")",
                                                          "reason": "\(reason)"])
            handle(.ticketNotPrinted(reason: reason.description))
            record(.failed(reason: reason.description), of: number)
        }
        screens.readyLines[number] = nil
    }

    /// What the "take your ticket" screen says under the number: the wait, or a booking's time.
    func readyLine(_ ticket: Ticket, wait: WaitEstimate) -> String {
        let texts = CustomerTexts(language: caller.language(of: ticket))
        guard let slot = ticket.slotStart else { return texts.catalog(.readyWait, ["wait": texts.catalog.wait(wait)]) }
        return texts.bookedTime(clockTime(slot), from: clockTime(slot.addingTimeInterval(-config.queue.bookingEarly)),
                                to: clockTime(slot.addingTimeInterval(config.queue.bookingLate)))
    }

    /// "14:30" on the store's clock.
    func clockTime(_ date: Date) -> String {
        String(Self.issueTime(date, config.store.timeZone).suffix(5))
    }

    /// How a ticket's print job ended, as recorded.
    enum PrintResult {
        case printed(job: Int)
        case failed(reason: String)
    }

    /// Records how a ticket's print job ended. If the store cannot take it now (a full
    /// disk), it is tried again every 5 seconds until it can: a ticket in a customer's hand
    /// must join the queue.
    func record(_ result: PrintResult, of number: TicketNumber) {
        do {
            switch result {
            case let .printed(job):
                try desk.perform { day, _ in day.recordPrinted(number, job: job) }
                paper?.printed(.ticket)
            case let .failed(reason): try desk.perform { day, _ in day.recordPrintFailed(number, reason: reason) }
            }
        } catch {
            logger.error("could not record the print outcome; trying again in 5 s",
                         metadata: ["number": "\(number)", "outcome": "\(result)", "error": "\(error)"])
            loop.schedule(after: 5) { [unowned self] in record(result, of: number) }
        }
    }

    /// What the ticket says, in the configured languages.
    func ticketContent(_ ticket: Ticket, wait: WaitEstimate) -> TicketContent {
        // The customer's language first, then the store's others for the instruction.
        let languages = [caller.language(of: ticket)] + config.tickets.languages.filter { $0 != caller.language(of: ticket) }
        let texts = languages.map(CustomerTexts.init(language:))
        let first = texts[0]
        let when = ticket.slotStart.map { slot in
            first.bookedTime(clockTime(slot), from: clockTime(slot.addingTimeInterval(-config.queue.bookingEarly)),
                             to: clockTime(slot.addingTimeInterval(config.queue.bookingLate)))
        }
        return TicketContent(storeName: config.store.name, number: ticket.number.description,
                             laneLabel: first.laneLabel(ticket.lane), issuedAt: Self.issueTime(ticket.issuedAt, config.store.timeZone),
                             estimatedWait: when ?? first.estimatedWait(wait), code: ticket.code,
                             instructions: texts.map { ticket.slotStart == nil ? $0.scanInstruction : $0.bookingScanInstruction })
    }

    /// "2026-11-22 15:04" in the store's time zone.
    static func issueTime(_ date: Date, _ timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                      parts.hour ?? 0, parts.minute ?? 0)
    }
}

/// After a restart, every ticket still printing is settled with cupsd at once, from one
/// list of the queue's jobs (ended ones included), matched to tickets by id or by title:
/// - a job still printing is followed; one that ended is recorded as it ended;
/// - a job created but never given its document (by a clupd before Print-Job was used) is
///   cancelled, and its ticket failed;
/// - a ticket cupsd has no job for never reached it: failed (its customer saw the printing
///   screen end with the restart);
/// - any other unfinished job with one of this totem's ticket titles is an orphan: cancelled.
/// If cupsd does not answer, it is asked again every 5 seconds; the tickets hold no place
/// meanwhile.
extension Kiosk {
    func settleInterruptedPrints() {
        let printing = desk.day.tickets.values.filter { $0.state == .printing }
        let printer = spooler.printer
        loop.background({ Result { () throws(PrintError) in try printer.jobs(includingEnded: true) } }) { [unowned self] result in
            switch result {
            case let .success(jobs): settle(printing.map(\.number), jobs: jobs)
            case let .failure(error):
                logger.error("cannot settle interrupted print jobs; asking cupsd again in 5 s", metadata: ["error": "\(error)"])
                loop.schedule(after: 5) { [unowned self] in settleInterruptedPrints() }
            }
        }
    }

    private func settle(_ numbers: [TicketNumber], jobs: [QueuedJob]) {
        var claimed: Set<Int> = []
        var cancel: [Int] = []
        for number in numbers {
            guard let ticket = desk.day.tickets[number], ticket.state == .printing else { continue }
            let title = PrintSpooler.title(of: ticket)
            // The recorded job, else the newest job of that title (sent just before the stop).
            let job = ticket.printJob.flatMap { id in jobs.first { $0.id == id } }
                ?? jobs.filter { $0.name == title }.max { $0.id < $1.id }
            guard let job else {
                let reason = ticket.printJob.map { CodedError(.printJobForgotten, "cupsd no longer knows print job \($0)") }
                    ?? CodedError(.restartedBeforePrinting, "clupd restarted before the ticket reached the printer")
                record(.failed(reason: reason.description), of: number)
                continue
            }
            claimed.insert(job.id)
            switch job.state {
            case .completed:
                record(.printed(job: job.id), of: number)
            case .aborted, .canceled:
                record(.failed(reason: PrintError.from(state: job.state, reasons: job.reasons).description), of: number)
            case .pending, .held, .processing, .stopped:
                if job.isAwaitingDocument {
                    cancel.append(job.id)
                    record(.failed(reason: CodedError(.restartedBeforePrinting,
                                                      "clupd restarted before the ticket reached the printer").description), of: number)
                } else {
                    logger.info("following a print job from before the restart", metadata: ["number": "\(number)", "job": "\(job.id)"])
                    spooler.follow(number, job: job.id)
                }
            }
        }
        let ours = "^\(config.totem.letter)[PB]?-[0-9]+-[0-9]{4}-[0-9]{2}-[0-9]{2}$"
        let orphans = jobs.filter { job in
            !claimed.contains(job.id) && ![.completed, .canceled, .aborted].contains(job.state)
                && job.name.range(of: ours, options: .regularExpression) != nil
        }
        for orphan in orphans {
            logger.notice("cancelling a print job no ticket was recorded for", metadata: ["job": "\(orphan.id)", "name": "\(orphan.name)"])
        }
        cancel += orphans.map(\.id)
        guard !cancel.isEmpty else { return }
        let printer = spooler.printer
        let ids = cancel
        loop.background({ for id in ids { printer.cancel(job: id) } }) { _ in }
    }
}
