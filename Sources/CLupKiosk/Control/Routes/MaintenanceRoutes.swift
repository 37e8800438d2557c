import CLupCore
import CLupProtocol
import Foundation

/// Maintenance: the printer, the devices, the screen, self-tests, calibration, logs and
/// diagnostics.
extension Daemon {
    func routeMaintenance(_ router: ControlRouter) {
        router.on(Control.Printer.self) { [unowned self] _, _ in
            let failures = kiosk.desk.day.tickets.values.filter { $0.state == .printFailed }.sorted(by: issueOrder).map {
                PrintFailure(number: $0.number.description, issuedAt: $0.issuedAt, reason: $0.failureReason ?? "")
            }
            return PrinterDetails(printer: printerReport(), profile: config.printer.model.name, failures: failures)
        }
        router.on(Control.Devices.self) { [unowned self] _, _ in devicesReport() }
        router.on(Control.Screenshot.self) { [unowned self] _, _ in ScreenshotReply(png: Data(try kiosk.screenshot())) }
        router.on(Control.Screen.self) { [unowned self] _, _ in kiosk.screenReport }
        router.later(Control.SelfTest.self) { [unowned self] command, context in
            .later(try selfTest(command.step, timeoutSeconds: command.timeoutSeconds, force: command.force, by: context.who))
        }
        router.later(Control.CalibrationTarget.self) { [unowned self] command, _ in
            .later(try calibrationTarget(command.index, timeoutSeconds: command.timeoutSeconds, force: command.force))
        }
        router.on(Control.CalibrationEnd.self) { [unowned self] command, context in try calibrationEnd(command.matrix, by: context.who) }
        router.on(Control.LogSource.self) { [unowned self] _, _ in logSource() }
        router.on(Control.LogRead.self) { [unowned self] command, _ in try logRead(offset: command.offset, maxBytes: command.maxBytes) }
        router.later(Control.Diagnostics.self) { [unowned self] _, _ in .later(diagnostics()) }
    }
}
