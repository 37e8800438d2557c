import CLupPrinting
import Foundation

/// One ticket through the printer: lay it out as PDF, submit it to the CUPS queue and follow
/// the job until it completes, fails or times out. Blocking; runs on a worker thread.
struct TicketPrintJob: Sendable {
    let printer: CUPSPrinter
    let layout: TicketLayout
    /// Where the PDF waits until cupsd has taken it.
    let spoolDirectory: String
    let timeout: Double

    func run(_ content: TicketContent, title: String) -> JobOutcome {
        let path = "\(spoolDirectory)/\(title).pdf"
        do {
            try layout.writePDF(content, to: path)
        } catch {
            return .failed(job: nil, reason: .documentFailed(String(describing: error)))
        }
        defer { unlink(path) }
        let job: Int
        do {
            job = try printer.submit(file: path, title: title)
        } catch {
            return .failed(job: nil, reason: error)
        }
        return printer.follow(job: job, timeout: timeout)
    }
}
