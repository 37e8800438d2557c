import CLupPrinting
import Foundation

/// One ticket through the printer, in steps that run on worker threads: lay the ticket out
/// and create its job, send the document, follow the job until it completes, fails or
/// times out. The kiosk records the job id between the first two steps.
struct TicketPrintJob: Sendable {
    let printer: CUPSPrinter
    /// The printer model: PDF through a driver, or ESC/POS bytes through a raw queue.
    let profile: PrinterProfile
    /// Where the document waits until cupsd has taken it.
    let spoolDirectory: String
    let timeout: Double

    /// A laid-out ticket with its (still empty) print job.
    struct Prepared: Sendable {
        let job: Int
        let file: String
        let title: String
        let format: String
    }

    /// Lays the ticket out and creates its job at cupsd.
    func prepare(_ content: TicketContent, title: String) -> Result<Prepared, PrintError> {
        let path: String
        let format: String
        do {
            switch profile.language {
            case .pdf:
                path = "\(spoolDirectory)/\(title).pdf"
                format = "application/pdf"
                try TicketLayout(paper: profile.paper).writePDF(content, to: path)
            case .escpos:
                path = "\(spoolDirectory)/\(title).escpos"
                format = "application/vnd.cups-raw"
                try Data(EscPosTicket(profile: profile).encode(content)).write(to: URL(fileURLWithPath: path))
            }
        } catch {
            return .failure(.documentFailed(String(describing: error)))
        }
        do {
            return .success(Prepared(job: try printer.createJob(title: title), file: path, title: title, format: format))
        } catch {
            unlink(path)
            return .failure(error)
        }
    }

    /// Sends the document of a prepared job; cupsd has accepted the job when this succeeds.
    func send(_ prepared: Prepared) -> Result<Void, PrintError> {
        defer { unlink(prepared.file) }
        return Result { () throws(PrintError) in
            try printer.sendDocument(job: prepared.job, file: prepared.file, title: prepared.title, format: prepared.format)
        }
    }

    /// Waits for job `id` to end.
    func follow(job id: Int) -> JobOutcome {
        printer.follow(job: id, timeout: timeout)
    }
}
