import CLupPrinting

/// One ticket through the printer, as an explicit state machine. Pure: it is told what
/// happened (the layout is done, the ticket is committed, cupsd answered, time passed) and
/// says what to do next; `PrintSpooler` does it. Every way a print goes (paper out, a
/// printer that never answers, cupsd refusing the job) is tested without a printer.
///
/// The document is sent only once the ticket is both laid out and committed: a ticket is
/// recorded before anything reaches the printer, while the layout runs meanwhile.
struct PrintJob: Equatable {
    enum State: Equatable {
        /// Being laid out; `committed` once the ticket is in the database.
        case layingOut(committed: Bool)
        /// Laid out, waiting for the ticket to be committed.
        case laidOut(TicketDocument)
        case sending
        /// cupsd accepted job `id`; it is looked at until it ends.
        case printing(job: Int)
        case ended(JobOutcome)
    }

    /// What happened.
    enum Event: Equatable {
        case committed
        case laidOut(TicketDocument)
        case layoutFailed(PrintError)
        case sent(job: Int)
        case sendFailed(PrintError)
        /// How cupsd reported the job when it was looked at.
        case looked(QueuedJob)
        /// cupsd did not answer when the job was looked at.
        case lookFailed(PrintError)
    }

    /// What to do next.
    enum Action: Equatable {
        case send(TicketDocument)
        /// Record the job id with the ticket (a restart finds the job by it, or by its title).
        case record(job: Int)
        /// Look at the job again in `seconds`.
        case look(after: Double)
        case cancel(job: Int)
        case finish(JobOutcome)
    }

    /// How often a job is looked at while it prints.
    static let lookInterval = 0.1

    private(set) var state: State
    /// When the printer must have finished, on the monotonic clock.
    let deadline: Double
    /// How long the printer had, for the refusal's sentence.
    let timeout: Double

    /// A ticket starting on its way: `committed` when it is already in the database (a reprint).
    init(committed: Bool, now: Double, timeout: Double) {
        state = .layingOut(committed: committed)
        self.timeout = timeout
        deadline = now + timeout
    }

    /// A job from before a restart, already at cupsd.
    init(following job: Int, now: Double, timeout: Double) {
        state = .printing(job: job)
        self.timeout = timeout
        deadline = now + timeout
    }

    /// Takes in what happened at monotonic time `now`; returns what to do.
    mutating func handle(_ event: Event, now: Double) -> [Action] {
        switch (state, event) {
        case (.layingOut, .committed):
            state = .layingOut(committed: true)
            return []
        case let (.layingOut(committed), .laidOut(document)):
            guard committed else {
                state = .laidOut(document)
                return []
            }
            state = .sending
            return [.send(document)]
        case let (.laidOut(document), .committed):
            state = .sending
            return [.send(document)]
        case let (.layingOut, .layoutFailed(error)), let (.sending, .sendFailed(error)):
            return end(.failed(job: nil, reason: error))
        case let (.sending, .sent(job)):
            state = .printing(job: job)
            return [.record(job: job), .look(after: Self.lookInterval)]
        case let (.printing(job), .looked(report)):
            switch report.state {
            case .completed:
                return end(.completed(job: job))
            case .aborted, .canceled:
                return end(.failed(job: job, reason: .from(state: report.state, reasons: report.reasons)))
            case .stopped:
                // The printer stopped under the job (paper out, door open): it will not
                // finish by itself, and the customer is waiting now.
                return [.cancel(job: job)] + end(.failed(job: job, reason: .from(state: report.state, reasons: report.reasons)))
            case .pending, .held, .processing:
                return lookAgainOrGiveUp(job, now: now)
            }
        case let (.printing(job), .lookFailed):
            return lookAgainOrGiveUp(job, now: now)
        default:
            // A late answer for a job that has already ended, or out of order: nothing to do.
            return []
        }
    }

    private mutating func lookAgainOrGiveUp(_ job: Int, now: Double) -> [Action] {
        guard now >= deadline else { return [.look(after: Self.lookInterval)] }
        return [.cancel(job: job)] + end(.failed(job: job, reason: .timedOut(seconds: timeout)))
    }

    private mutating func end(_ outcome: JobOutcome) -> [Action] {
        state = .ended(outcome)
        return [.finish(outcome)]
    }
}
