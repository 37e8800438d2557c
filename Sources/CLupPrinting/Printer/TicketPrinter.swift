/// The ticket printer as the kiosk drives it: one request per step, none of them waiting
/// for the paper to come out. `CUPSPrinter` is the real one; tests use a fake behind it.
public protocol TicketPrinter: Sendable {
    /// The queue's name, for reports.
    var queue: String { get }
    /// Sends the document at `path` as a job named `title`; returns the job's id once the
    /// print server has accepted it.
    func printFile(_ path: String, title: String, format: String) throws(PrintError) -> Int
    /// Job `id` as the print server reports it now.
    func job(_ id: Int) throws(PrintError) -> QueuedJob
    /// The queue's jobs not ended, and with `includingEnded` the ended ones the server keeps,
    /// each with its name, by which a restart finds a ticket's job.
    func jobs(includingEnded: Bool) throws(PrintError) -> [QueuedJob]
    /// Cancels job `id`; one that already ended is left as it is.
    func cancel(job id: Int)
    /// The printer's state and its reasons (`media-empty-error`, …).
    func status() throws(PrintError) -> PrinterStatus
}

extension CUPSPrinter: TicketPrinter {}
