import CLupCore
import CLupPrinting
import Foundation
import Logging

/// Runs the tickets' print jobs: each a `PrintJob` state machine, its slow steps (layout,
/// sending, looking at the job) on the loop's workers, the looks on the loop's timers. No
/// worker waits for a printer.
final class PrintSpooler {
    private let loop: EventLoop
    private let clock: any Clock
    private let logger: Logger
    /// Where documents wait until cupsd has them.
    let spool: String
    /// The printer, its model and how long it has for a ticket (a reload may change them).
    var printer: any TicketPrinter
    var model: PrinterProfile
    var timeout: Double
    /// Called on the loop when a job was accepted, to record its id with the ticket.
    var onAccepted: ((TicketNumber, Int) -> Void)?
    /// Called on the loop when a job ended.
    var onEnded: ((TicketNumber, JobOutcome) -> Void)?
    /// Called on the loop when a job starts (or is followed again after a restart).
    var onStarted: (() -> Void)?
    private var jobs: [TicketNumber: PrintJob] = [:]
    /// When each job was asked for (the tap), and when its document (laid out, the ticket
    /// committed) went to cupsd, for the log line `scripts/bench` reads.
    private var times: [TicketNumber: (tap: Double, sent: Double?)] = [:]

    init(printer: any TicketPrinter, model: PrinterProfile, timeout: Double, spool: String, loop: EventLoop,
         clock: any Clock, logger: Logger) {
        self.printer = printer
        self.model = model
        self.timeout = timeout
        self.spool = spool
        self.loop = loop
        self.clock = clock
        self.logger = logger
    }

    /// Whether a ticket is on its way to the printer.
    var isBusy: Bool { !jobs.isEmpty }

    /// The title of a ticket's print job, by which cupsd's jobs are matched to tickets.
    static func title(of ticket: Ticket) -> String {
        "\(ticket.number)-\(ticket.businessDay)"
    }

    /// Starts laying `ticket` out. Unless `committed`, nothing is sent until `committed(_:)`;
    /// `abandon(_:)` drops it. `askedAt` is when the customer asked (monotonic; now if nil).
    func start(_ ticket: Ticket, content: TicketContent, committed: Bool, askedAt: Double? = nil) {
        let number = ticket.number
        let now = clock.monotonic()
        jobs[number] = PrintJob(committed: committed, now: now, timeout: timeout)
        times[number] = (tap: min(askedAt ?? now, now), sent: nil)
        onStarted?()
        let (model, spool, title) = (self.model, self.spool, Self.title(of: ticket))
        run(number, { TicketDocument.layOut(content, title: title, model: model, spool: spool) }) { result in
            switch result {
            case let .success(document): .laidOut(document)
            case let .failure(error): .layoutFailed(error)
            }
        }
    }

    /// The ticket is in the database: its document may go.
    func committed(_ number: TicketNumber) {
        handle(number, .committed)
    }

    /// The ticket could not be committed: it never goes to the printer.
    func abandon(_ number: TicketNumber) {
        jobs[number] = nil
        times[number] = nil
    }

    /// Follows job `job` of a ticket from before a restart until it ends.
    func follow(_ number: TicketNumber, job: Int) {
        jobs[number] = PrintJob(following: job, now: clock.monotonic(), timeout: timeout)
        onStarted?()
        perform([.look(after: 0)], for: number)
    }

    private func handle(_ number: TicketNumber, _ event: PrintJob.Event) {
        guard var job = jobs[number] else {
            // A ticket abandoned while its layout ran: its file is not wanted.
            if case let .laidOut(document) = event { unlink(document.path) }
            return
        }
        let actions = job.handle(event, now: clock.monotonic())
        jobs[number] = job
        perform(actions, for: number)
    }

    private func perform(_ actions: [PrintJob.Action], for number: TicketNumber) {
        let printer = self.printer
        for action in actions {
            switch action {
            case let .send(document):
                times[number]?.sent = clock.monotonic()
                run(number, { document.send(to: printer) }) { result in
                    switch result {
                    case let .success(job): .sent(job: job)
                    case let .failure(error): .sendFailed(error)
                    }
                }
            case let .record(job):
                // How long the customer waited from the tap until cupsd had the ticket, and
                // of it until the document went to cupsd (scripts/bench reads this line).
                let now = clock.monotonic(), tap = times[number]?.tap ?? now
                let milliseconds = (now - tap) * 1000, toSend = ((times[number]?.sent ?? now) - tap) * 1000
                logger.info("print job accepted", metadata: ["number": "\(number)", "job": "\(job)",
                                                              "ms_since_tap": "\(String(format: "%.1f", milliseconds))",
                                                              "ms_to_send": "\(String(format: "%.1f", toSend))"])
                onAccepted?(number, job)
            case let .look(seconds):
                loop.schedule(after: seconds) { [unowned self] in
                    guard case let .printing(job)? = jobs[number]?.state else { return }
                    run(number, { Result { () throws(PrintError) in try Self.look(at: job, on: printer) } }) { result in
                        switch result {
                        case let .success(report): .looked(report)
                        case let .failure(error): .lookFailed(error)
                        }
                    }
                }
            case let .cancel(job):
                loop.background({ printer.cancel(job: job) }) { _ in }
            case let .finish(outcome):
                jobs[number] = nil
                times[number] = nil
                onEnded?(number, outcome)
            }
        }
    }

    /// Job `id` as cupsd reports it. Why a job ended without printing is often the
    /// printer's (`media-empty-error`): its reasons join the job's then.
    private static func look(at id: Int, on printer: any TicketPrinter) throws(PrintError) -> QueuedJob {
        let report = try printer.job(id)
        guard [.aborted, .canceled, .stopped].contains(report.state) else { return report }
        let printerReasons = (try? printer.status().reasons) ?? []
        return QueuedJob(id: report.id, name: report.name, state: report.state, reasons: report.reasons + printerReasons,
                         documents: report.documents)
    }

    /// Runs `work` on a worker, then hands what it returned, as an event, to `number`'s job.
    private func run<Output: Sendable>(_ number: TicketNumber, _ work: @escaping @Sendable () -> Output,
                                       as event: @escaping (Output) -> PrintJob.Event) {
        loop.background(work) { [unowned self] output in handle(number, event(output)) }
    }
}
