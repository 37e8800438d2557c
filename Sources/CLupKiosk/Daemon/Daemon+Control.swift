import CLupCore
import CLupHardware
import CLupPrinting
import Foundation

extension Daemon {
    /// Answers one control request; the result is encoded as JSON.
    func handle(_ request: ControlRequest) throws -> Data {
        if request.isSimulation && simulated == nil {
            throw ControlFailure(code: "E-CTL-006", message: "sim commands need clupd --simulate; this totem drives real devices")
        }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        switch request {
        case .status:
            return try encoder.encode(statusReport())
        case .tickets:
            let day = controller.businessDay
            let lines = try store.tickets(on: day).map { ticket in
                TicketLine(number: ticket.number.description, lane: ticket.lane.rawValue,
                           state: ticket.state.rawValue, issuedAt: ticket.issuedAt, code: ticket.code)
            }
            return try encoder.encode(TicketsReport(businessDay: day.date, tickets: lines))
        case .screenshot:
            guard let frame = controller.currentFrame else {
                throw ControlFailure(code: "E-CTL-007", message: "nothing has been drawn yet")
            }
            return try encoder.encode(ScreenshotReply(png: Data(try frame.pngData())))
        case .simApproach:
            simulated?.presence.simulate(present: true)
        case .simLeave:
            simulated?.presence.simulate(present: false)
        case let .simTap(x, y):
            try simulated?.touchscreen.simulateTap(x: x, y: y)
        case let .simPass(direction):
            simulated?.turnstile.simulatePassage(direction)
        }
        return try encoder.encode(SimulationReply(outcome: controller.lastOutcome, screen: controller.screen.name,
                                                  ticket: controller.lastIssued?.description))
    }

    func statusReport() throws -> StatusReport {
        let day = controller.businessDay
        let ledger = try store.ledger(on: day)
        var devices = [controller.display.health, controller.touchscreen.health, controller.presence.health,
                       controller.turnstile.health]
        devices.append(usbHealth())
        return StatusReport(
            store: config.storeName, deviceID: config.deviceID, businessDay: day.date, screen: controller.screen.name,
            devices: devices, printer: printerReport(), waiting: try store.waitingCount(on: day),
            occupancy: OccupancyReport(inside: ledger.inside, entries: ledger.entries, exits: ledger.exits))
    }

    private func printerReport() -> PrinterReport {
        let age = printerStatus.flatMap { $0.at >= 0 ? clock.monotonic() - $0.at : nil }
        if let error = printerStatus?.error {
            return PrinterReport(queue: printer.queue, ready: false, state: "unreachable", reasons: [],
                                 message: error.description, checkedSecondsAgo: age)
        }
        guard let status = printerStatus?.status else {
            return PrinterReport(queue: printer.queue, ready: false, state: "unknown", reasons: [],
                                 message: "not checked yet", checkedSecondsAgo: nil)
        }
        return PrinterReport(queue: status.queue, ready: status.isReady, state: status.state, reasons: status.reasons,
                             message: status.message, checkedSecondsAgo: age)
    }

    private func usbHealth() -> DeviceHealth {
        do {
            let devices = try USBBus.devices()
            return DeviceHealth(role: "usb", backend: "libusb", state: .ok, detail: "\(devices.count) devices")
        } catch {
            return DeviceHealth(role: "usb", backend: "libusb", state: .missing, detail: error.description)
        }
    }
}
