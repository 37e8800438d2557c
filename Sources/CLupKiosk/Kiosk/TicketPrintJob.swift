import CLupPrinting
import Foundation

/// One ticket through the printer: lay it out as PDF and submit it to the CUPS queue, then
/// follow the job until it completes, fails or times out. Blocking; runs on worker threads.
struct TicketPrintJob: Sendable {
    let printer: CUPSPrinter
    let layout: TicketLayout
    /// Where the PDF waits until cupsd has taken it.
    let spoolDirectory: String
    let timeout: Double

    /// Lays the ticket out and hands it to cupsd; returns the job id.
    func submit(_ content: TicketContent, title: String) -> Result<Int, PrintError> {
        let path = "\(spoolDirectory)/\(title).pdf"
        do {
            try layout.writePDF(content, to: path)
        } catch {
            return .failure(.documentFailed(String(describing: error)))
        }
        defer { unlink(path) }
        return Result { () throws(PrintError) in try printer.submit(file: path, title: title) }
    }

    /// Waits for job `id` to end.
    func follow(job id: Int) -> JobOutcome {
        printer.follow(job: id, timeout: timeout)
    }
}
