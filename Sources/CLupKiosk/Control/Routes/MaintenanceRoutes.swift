import CLupPrinting
import CLupCore
import CLupProtocol
import Foundation

/// Maintenance: the printer, the devices, the screen, self-tests, calibration, logs and
/// diagnostics.
extension Daemon {
    func routeMaintenance(_ router: ControlRouter) {
        let selfTests = SelfTests(kiosk: kiosk, printerWatch: printerWatch, spoolPath: state.spoolPath, runtime: runtime)
        router.on(Control.Printer.self) { [unowned self] _, _ in
            let failures = kiosk.desk.day.tickets.values.filter { $0.state == .printFailed }.sorted(by: QueueController.issueOrder).map {
                PrintFailure(number: $0.number.description, issuedAt: $0.issuedAt, reason: $0.failureReason ?? "")
            }
            return PrinterDetails(printer: printerWatch.report(), profile: config.printer.model.name, failures: failures,
                                  paper: paperReport())
        }
        router.on(Control.Paper.self) { [unowned self] _, _ in paperReport() }
        router.on(Control.PaperNewRoll.self) { [unowned self] _, context in
            try kiosk.paper?.newRoll(at: clock.now(), by: context.who)
            return paperReport()
        }
        router.on(Control.Devices.self) { [unowned self] _, _ in devicesReport() }
        router.on(Control.Screenshot.self) { [unowned self] ask, _ in
            ScreenshotReply(png: Data(ask.doorScreen == true ? try kiosk.caller.boardScreenshot() : try kiosk.screenshot()))
        }
        router.on(Control.Screen.self) { [unowned self] _, _ in kiosk.screenReport }
        router.later(Control.SelfTest.self) { command, context in
            .later(try selfTests.run(command.step, timeoutSeconds: command.timeoutSeconds, force: command.force, by: context.who))
        }
        router.later(Control.CalibrationTarget.self) { [calibration] command, _ in
            .later(try calibration.target(command.index, timeoutSeconds: command.timeoutSeconds, force: command.force))
        }
        router.on(Control.CalibrationEnd.self) { [calibration] command, context in try calibration.end(command.matrix, by: context.who, from: context.peer.origin) }
        router.on(Control.LogSource.self) { _, _ in ClupdLog.source() }
        router.on(Control.LogRead.self) { command, _ in try ClupdLog.read(offset: command.offset, maxBytes: command.maxBytes) }
        router.later(Control.Diagnostics.self) { [unowned self] _, _ in .later(diagnostics()) }
    }
}
