import CLupCore
import CLupPrinting
import Foundation

/// Issuing and printing tickets. A ticket is committed before it is printed, and counts
/// in the queue only once the printer has finished it.
extension KioskController {
    /// Issues a ticket and sends it to the printer; returns its number. A ticket that
    /// cannot be recorded is never printed: the screen says so.
    @discardableResult
    func issueTicket(_ request: TicketRequest) throws -> TicketNumber {
        let tapped = clock.monotonic()
        let wait = estimatedWait(for: request.lane)
        let events: [DomainEvent]
        do {
            events = try perform { day, now in try day.issue(request, issuer: issuer, at: now, policy: config.policy) }
        } catch {
            logger.error("could not record a ticket", metadata: ["error": "\(error)"])
            showOrLog(.printFailed(reason: "E-KSK-001 the ticket could not be recorded"))
            let failure = ControlFailure(code: "E-KSK-001", message: "no ticket: \(error)")
            report(failure: failure)
            throw failure
        }
        guard case let .ticketIssued(ticket)? = events.first else {
            throw ControlFailure(code: "E-KSK-001", message: "no ticket was issued")
        }
        logger.info("ticket issued", metadata: ["number": "\(ticket.number)", "day": "\(ticket.businessDay)"])
        showOrLog(.printing(number: ticket.number.description))
        report("ticket \(ticket.number) recorded and sent to the printer", issued: ticket.number)
        submit(ticket, wait: wait, since: tapped)
        return ticket.number
    }

    /// Staff send a ticket the printer failed to the printer again.
    func reprint(_ number: TicketNumber, by who: String) throws {
        try perform { day, _ in try day.reprint(number, by: who) }
        guard let ticket = day.tickets[number] else { return }
        showOrLog(.printing(number: number.description))
        report("ticket \(number) sent to the printer again", issued: number)
        submit(ticket, wait: estimatedWait(for: ticket.lane), since: clock.monotonic())
    }

    /// Lays out `ticket` and creates its job off the loop, records the job id, then sends
    /// the document and follows the job. A crash before the id is recorded leaves an empty
    /// job that prints nothing; after, the restart follows it (`resumeInterruptedPrints`).
    func submit(_ ticket: Ticket, wait: WaitEstimate, since start: Double) {
        let content = ticketContent(ticket, wait: wait)
        let title = "\(ticket.number)-\(ticket.businessDay)"
        let job = printJob
        loop.background({ job.prepare(content, title: title) }) { [unowned self] result in
            switch result {
            case let .success(prepared):
                do {
                    try perform { day, _ in day.recordSubmitted(ticket.number, job: prepared.job) }
                } catch {
                    logger.error("could not record the print job; not printing", metadata: ["error": "\(error)"])
                    loop.background({ job.printer.cancel(job: prepared.job) }) { _ in }
                    printFinished(ticket.number, outcome: .failed(job: prepared.job, reason: .documentFailed("E-KSK-004 job not recorded")), wait: wait)
                    return
                }
                loop.background({ job.send(prepared) }) { [unowned self] sent in
                    if case let .failure(reason) = sent {
                        return printFinished(ticket.number, outcome: .failed(job: prepared.job, reason: reason), wait: wait)
                    }
                    // How long the customer waited from the tap until cupsd had the ticket
                    // (scripts/bench reads this line).
                    let milliseconds = (clock.monotonic() - start) * 1000
                    logger.info("print job accepted", metadata: ["number": "\(ticket.number)", "job": "\(prepared.job)",
                                                                  "ms_since_tap": "\(String(format: "%.1f", milliseconds))"])
                    loop.background({ job.follow(job: prepared.job) }) { [unowned self] outcome in
                        printFinished(ticket.number, outcome: outcome, wait: wait)
                    }
                }
            case let .failure(reason):
                printFinished(ticket.number, outcome: .failed(job: nil, reason: reason), wait: wait)
            }
        }
    }

    private func printFinished(_ number: TicketNumber, outcome: JobOutcome, wait: WaitEstimate) {
        do {
            switch outcome {
            case let .completed(job):
                try perform { day, _ in day.recordPrinted(number, job: job) }
                logger.info("ticket printed", metadata: ["number": "\(number)", "job": "\(job)"])
                showOrLog(.ticketReady(number: number.description, wait: "Estimated wait: \(wait)"))
            case let .failed(job, reason):
                try perform { day, _ in day.recordPrintFailed(number, reason: reason.description) }
                logger.error("ticket not printed", metadata: ["number": "\(number)", "job": "\(job.map(String.init) ?? "-")",
                                                              "reason": "\(reason)"])
                showOrLog(.printFailed(reason: reason.description))
            }
        } catch {
            logger.error("could not record the print outcome", metadata: ["error": "\(error)"])
        }
        loop.cancel(resultTimer)
        resultTimer = loop.schedule(after: config.resultScreenSeconds) { [unowned self] in
            resultTimer = nil
            showOrLog(someonePresent ? .welcome : .asleep)
        }
    }

    /// After a restart: a ticket cupsd had accepted is followed again; one that never
    /// reached cupsd is marked failed (its customer saw the printing screen end with the
    /// restart and holds nothing).
    func resumeInterruptedPrints() {
        for ticket in day.tickets.values where ticket.state == .printing {
            if let job = ticket.printJob {
                logger.info("following a print job from before the restart",
                            metadata: ["number": "\(ticket.number)", "job": "\(job)"])
                let number = ticket.number
                let printJob = self.printJob
                loop.background({ printJob.follow(job: job) }) { [unowned self] outcome in
                    do {
                        switch outcome {
                        case let .completed(job): try perform { day, _ in day.recordPrinted(number, job: job) }
                        case let .failed(_, reason): try perform { day, _ in day.recordPrintFailed(number, reason: reason.description) }
                        }
                    } catch {
                        logger.error("could not record the print outcome", metadata: ["error": "\(error)"])
                    }
                }
            } else {
                do {
                    try perform { day, _ in
                        day.recordPrintFailed(ticket.number, reason: "E-KSK-003 clupd restarted before the ticket reached the printer")
                    }
                } catch {
                    logger.error("could not record an interrupted ticket", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    func ticketContent(_ ticket: Ticket, wait: WaitEstimate) -> TicketContent {
        let formatter = DateFormatter()
        formatter.timeZone = config.timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let texts = config.languages.map(CustomerTexts.init(language:))
        let first = texts[0]
        return TicketContent(storeName: config.storeName, number: ticket.number.description,
                             laneLabel: first.laneLabel(ticket.lane), issuedAt: formatter.string(from: ticket.issuedAt),
                             estimatedWait: first.estimatedWait(wait), code: ticket.code,
                             instructions: texts.map(\.scanInstruction))
    }
}
