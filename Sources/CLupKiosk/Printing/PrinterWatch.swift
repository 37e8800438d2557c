import CLupCore
import CLupHardware
import CLupPrinting
import CLupProtocol
import Foundation

/// The printer as cupsd last described it. cupsd is asked off the loop, so `status` never
/// waits on a slow print server: every few seconds while a ticket is on its way or the
/// printer is in trouble, else once a minute.
final class PrinterWatch {
    /// Seconds between looks: while a ticket is on its way or the printer is in trouble, and
    /// while it is ready with nothing to print.
    static let checkSeconds = (close: 5.0, calm: 60.0)

    private let spooler: PrintSpooler
    private let runtime: KioskRuntime
    /// The last answer (or the last error, beside the last answer there was), and when it came.
    private var last: (status: PrinterStatus?, error: PrintError?, at: Double)?
    /// The next look, and whether it is the slow one (nil: a look is under way).
    private var next: (timer: EventLoop.TimerID, calm: Bool)?
    /// Told after each look (the hub hears the printer's health).
    var onLooked: (() -> Void)?
    /// The USB printer's port, where one is named: what its lines say joins cupsd's word.
    var port: PrinterPortWatch?

    /// The printer the tickets go to (a reload may change its queue).
    var printer: any TicketPrinter { spooler.printer }

    init(spooler: PrintSpooler, runtime: KioskRuntime) {
        self.spooler = spooler
        self.runtime = runtime
    }

    /// Looks now, and from then on by itself; a ticket sent to a calm printer brings the next look closer.
    func start() {
        spooler.onStarted = { [unowned self] in watchClosely() }
        look()
    }

    /// A ticket on its way to a printer that looked calm, or another queue: the printer is
    /// looked at every few seconds again (a look under way schedules the next itself).
    func watchClosely() {
        guard next?.calm == true else { return }
        schedule(calm: false)
    }

    /// Whether the printer was ready at the last look, and its port (if any) says nothing against it.
    var isReady: Bool { cupsReady && port?.stopsTickets == nil }

    private var cupsReady: Bool { last?.status?.isReady == true && last?.error == nil }

    /// The printer as `clupctl printer` and `status` show it: cupsd's word, and its port's
    /// lines where one is named (no paper there makes it not ready, whatever cupsd says).
    func report() -> PrinterReport {
        let report = cupsReport()
        guard let lines = port?.stopsTickets else { return report }
        return PrinterReport(queue: report.queue, ready: false, state: report.state,
                             reasons: report.reasons.filter { $0 != "none" && !lines.reasons.contains($0) } + lines.reasons,
                             message: (report.message.isEmpty ? "" : report.message + "; ") + "its port says \(lines.words)",
                             checkedSecondsAgo: report.checkedSecondsAgo)
    }

    private func cupsReport() -> PrinterReport {
        let age = last.flatMap { $0.at >= 0 ? runtime.clock.monotonic() - $0.at : nil }
        if let error = last?.error {
            return PrinterReport(queue: printer.queue, ready: false, state: "unreachable", reasons: [],
                                 message: error.description, checkedSecondsAgo: age)
        }
        guard let status = last?.status else {
            return PrinterReport(queue: printer.queue, ready: false, state: "unknown", reasons: [],
                                 message: "not checked yet", checkedSecondsAgo: nil)
        }
        return PrinterReport(queue: status.queue, ready: status.isReady, state: status.state, reasons: status.reasons,
                             message: status.message, checkedSecondsAgo: age)
    }

    private func look() {
        next = nil
        let printer = self.printer
        runtime.loop.background({ () -> Result<PrinterStatus, PrintError> in
            Result { () throws(PrintError) in try printer.status() }
        }) { [unowned self] result in
            switch result {
            case let .success(status): last = (status, nil, runtime.clock.monotonic())
            case let .failure(error): last = (last?.status, error, last?.at ?? -1)
            }
            onLooked?()
            schedule(calm: cupsReady && !spooler.isBusy)
        }
    }

    private func schedule(calm: Bool) {
        runtime.loop.cancel(next?.timer)
        let seconds = calm ? Self.checkSeconds.calm : Self.checkSeconds.close
        next = (runtime.loop.schedule(after: seconds) { [unowned self] in look() }, calm)
    }
}
