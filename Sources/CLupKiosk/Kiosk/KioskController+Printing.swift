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
            let failure = CodedError(.ticketNotRecorded, "no ticket: \(error)")
            showResult(.printFailed(reason: failure.description))
            report(failure: failure)
            throw failure
        }
        guard case let .ticketIssued(ticket)? = events.first else {
            throw CodedError(.ticketNotRecorded, "no ticket was issued")
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
    /// job that prints nothing; either way the restart settles it (`settleInterruptedPrints`).
    func submit(_ ticket: Ticket, wait: WaitEstimate, since start: Double) {
        let content = ticketContent(ticket, wait: wait)
        let title = Self.printTitle(ticket)
        let job = printJob
        loop.background({ job.prepare(content, title: title) }) { [unowned self] result in
            switch result {
            case let .success(prepared):
                do {
                    try perform { day, _ in day.recordSubmitted(ticket.number, job: prepared.job) }
                } catch {
                    logger.error("could not record the print job; not printing", metadata: ["error": "\(error)"])
                    loop.background({ job.printer.cancel(job: prepared.job) }) { _ in }
                    printFinished(ticket.number, outcome: .failed(job: prepared.job, reason: .documentFailed(CodedError(.printJobNotRecorded, "job not recorded").description)), wait: wait)
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

    /// The customer is told what the printer did, and it is recorded.
    private func printFinished(_ number: TicketNumber, outcome: JobOutcome, wait: WaitEstimate) {
        switch outcome {
        case let .completed(job):
            logger.info("ticket printed", metadata: ["number": "\(number)", "job": "\(job)"])
            showResult(.ticketReady(number: number.description, wait: "Estimated wait: \(wait)"))
            record(.printed(job: job), of: number)
        case let .failed(job, reason):
            logger.error("ticket not printed", metadata: ["number": "\(number)", "job": "\(job.map(String.init) ?? "-")",
                                                          "reason": "\(reason)"])
            showResult(.printFailed(reason: reason.description))
            record(.failed(reason: reason.description), of: number)
        }
    }

    /// Shows the outcome of a customer's tap for `resultScreenSeconds`, then the start again.
    func showResult(_ result: Screen) {
        showOrLog(result)
        loop.cancel(resultTimer)
        resultTimer = loop.schedule(after: config.resultScreenSeconds) { [unowned self] in
            resultTimer = nil
            showOrLog(someonePresent ? .welcome : .asleep)
        }
    }

    /// After a restart, every ticket still printing is settled with cupsd at once, in one
    /// question for the queue (and one per recorded job it no longer holds):
    /// - a job whose document arrived is followed as before; one that ended, recorded;
    /// - a job created but whose document never arrived (clupd stopped in between) is
    ///   cancelled, and its ticket failed: its customer saw the printing screen end;
    /// - a ticket without a recorded job never reached cupsd: failed, and a job carrying
    ///   its title (created just before the stop) cancelled;
    /// - any other unfinished job with one of this totem's ticket titles is an orphan
    ///   (created, then the stop came before its id was recorded): cancelled.
    /// If cupsd does not answer, it is asked again every few seconds; the tickets hold no
    /// place meanwhile.
    func settleInterruptedPrints() {
        let printing = day.tickets.values.filter { $0.state == .printing }
        let recorded = printing.compactMap(\.printJob)
        let printer = printJob.printer
        loop.background({ () -> Result<(unfinished: [QueuedJob], ended: [Int: QueuedJob]), PrintError> in
            Result { () throws(PrintError) in
                let unfinished = try printer.unfinishedJobs()
                var ended: [Int: QueuedJob] = [:]
                for id in recorded where !unfinished.contains(where: { $0.id == id }) {
                    ended[id] = try? printer.job(id)
                }
                return (unfinished, ended)
            }
        }) { [unowned self] result in
            switch result {
            case let .success(jobs): settle(printing.map(\.number), unfinished: jobs.unfinished, ended: jobs.ended)
            case let .failure(error):
                logger.error("cannot settle interrupted print jobs; asking cupsd again in 5 s", metadata: ["error": "\(error)"])
                loop.schedule(after: 5) { [unowned self] in settleInterruptedPrints() }
            }
        }
    }

    private func settle(_ numbers: [TicketNumber], unfinished: [QueuedJob], ended: [Int: QueuedJob]) {
        var claimed: Set<Int> = []
        var cancel: [Int] = []
        for number in numbers {
            guard let ticket = day.tickets[number], ticket.state == .printing else { continue }
            let title = Self.printTitle(ticket)
            guard let id = ticket.printJob else {
                let created = unfinished.filter { $0.name == title }.map(\.id)
                claimed.formUnion(created)
                cancel += created
                record(.failed(reason: Self.restartedBeforePrinting), of: number)
                continue
            }
            claimed.insert(id)
            if let job = unfinished.first(where: { $0.id == id }) {
                if job.isAwaitingDocument {
                    cancel.append(id)
                    record(.failed(reason: Self.restartedBeforePrinting), of: number)
                } else {
                    logger.info("following a print job from before the restart", metadata: ["number": "\(number)", "job": "\(id)"])
                    let printJob = self.printJob
                    loop.background({ printJob.follow(job: id) }) { [unowned self] outcome in record(PrintResult(outcome), of: number) }
                }
            } else if let job = ended[id] {
                record(job.state == .completed ? .printed(job: id)
                       : .failed(reason: PrintError.from(state: job.state, reasons: job.reasons).description), of: number)
            } else {
                record(.failed(reason: CodedError(.printJobForgotten, "cupsd no longer knows print job \(id)").description), of: number)
            }
        }
        let ours = "^\(config.totemLetter)[PB]?-[0-9]+-[0-9]{4}-[0-9]{2}-[0-9]{2}$"
        let orphans = unfinished.filter { !claimed.contains($0.id) && $0.name.range(of: ours, options: .regularExpression) != nil }
        for orphan in orphans {
            logger.notice("cancelling a print job no ticket was recorded for", metadata: ["job": "\(orphan.id)", "name": "\(orphan.name)"])
        }
        cancel += orphans.map(\.id)
        guard !cancel.isEmpty else { return }
        let printer = printJob.printer
        let jobs = cancel
        loop.background({ for id in jobs { printer.cancel(job: id) } }) { _ in }
    }

    static let restartedBeforePrinting = CodedError(.restartedBeforePrinting,
                                                    "clupd restarted before the ticket reached the printer").description

    /// The title of a ticket's print job, by which cupsd's jobs are matched to tickets.
    static func printTitle(_ ticket: Ticket) -> String {
        "\(ticket.number)-\(ticket.businessDay)"
    }

    /// How a ticket's print job ended, as recorded.
    enum PrintResult {
        case printed(job: Int)
        case failed(reason: String)

        init(_ outcome: JobOutcome) {
            switch outcome {
            case let .completed(job): self = .printed(job: job)
            case let .failed(_, reason): self = .failed(reason: reason.description)
            }
        }
    }

    /// Records how a ticket's print job ended. If the store cannot take it now (a full
    /// disk), it is tried again every 5 seconds until it can: a ticket in a customer's hand
    /// must join the queue.
    func record(_ result: PrintResult, of number: TicketNumber) {
        do {
            switch result {
            case let .printed(job): try perform { day, _ in day.recordPrinted(number, job: job) }
            case let .failed(reason): try perform { day, _ in day.recordPrintFailed(number, reason: reason) }
            }
        } catch {
            logger.error("could not record the print outcome; trying again in 5 s",
                         metadata: ["number": "\(number)", "outcome": "\(result)", "error": "\(error)"])
            loop.schedule(after: 5) { [unowned self] in record(result, of: number) }
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
