import CLupPrinting
import Foundation

/// A ticket laid out for the printer model, as a file in the spool directory: PDF through
/// a driver, or ESC/POS bytes through a raw queue.
struct TicketDocument: Sendable, Equatable {
    let path: String
    let format: String
    /// The print job's name: the ticket's (`PrintSpooler.title(of:)`).
    let title: String

    /// Lays `content` out for `model` as `spool/title.pdf` (or `.escpos`).
    static func layOut(_ content: TicketContent, title: String, model: PrinterProfile,
                       spool: String) -> Result<TicketDocument, PrintError> {
        do {
            switch model.language {
            case .pdf:
                let path = "\(spool)/\(title).pdf"
                try TicketLayout(paper: model.paper).writePDF(content, to: path)
                return .success(TicketDocument(path: path, format: "application/pdf", title: title))
            case .escpos:
                let path = "\(spool)/\(title).escpos"
                try Data(EscPosTicket(profile: model).encode(content)).write(to: URL(fileURLWithPath: path))
                return .success(TicketDocument(path: path, format: "application/vnd.cups-raw", title: title))
            }
        } catch {
            return .failure(.documentFailed(String(describing: error)))
        }
    }

    /// Sends the document as a job named after the ticket, then deletes the file (cupsd
    /// keeps its copy).
    func send(to printer: any TicketPrinter) -> Result<Int, PrintError> {
        defer { unlink(path) }
        return Result { () throws(PrintError) in try printer.printFile(path, title: title, format: format) }
    }
}
