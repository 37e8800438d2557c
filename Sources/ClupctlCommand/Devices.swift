import CLupCore
import ArgumentParser
import CLupProtocol
import Foundation

/// `clupctl devices`: USB devices and the known models they match; the kiosk's devices.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List what is connected on USB and which known device each is, and the kiosk's devices.")

    @OptionGroup var connection: Connection
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let report = try connection.client.send(Control.Devices())
        if json { return try printJSON(report) }
        if let problem = report.usbProblem {
            print("usb: \(shown(problem))")
        } else {
            print("usb: \(report.usb.count) devices (\(shown(report.profiles)))")
            for device in report.usb {
                let known = device.role.map { "\(column(shown($0), 12)) \(shown(device.name ?? ""))" } ?? "-"
                print("  \(String(format: "%03d:%03d", device.bus, device.address))  \(shown(device.id))  \(known)")
            }
        }
        print("kiosk devices")
        for device in report.devices {
            print("  \(column(shown(device.role), 12)) \(column(shown(device.backend), 10)) \(column(device.state.rawValue, 8)) \(shown(device.detail))")
        }
    }
}
