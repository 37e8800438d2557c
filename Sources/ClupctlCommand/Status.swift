import CLupCore
import ArgumentParser
import CLupProtocol
import Foundation

/// `clupctl status`: devices, queue, occupancy and printer.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show devices, queue, occupancy and printer.")

    @OptionGroup var connection: Connection
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let report = try connection.client.send(Control.Status())
        if json { return try printJSON(report) }
        print("\(shown(report.store)) — \(shown(report.deviceID)) — business day \(shown(report.businessDay))")
        print("screen     \(shown(report.screen))")
        print("queue      \(report.waiting) waiting, \(report.promised) called or at the door")
        let occupancy = report.occupancy
        print("occupancy  \(occupancy.inside) inside of \(occupancy.capacity) (\(occupancy.entries) in, \(occupancy.exits) out)")
        let printer = report.printer
        let reasons = printer.reasons.isEmpty ? "" : " (\(printer.reasons.map(shown).joined(separator: ", ")))"
        let message = printer.message.isEmpty ? "" : " — \(shown(printer.message))"
        print("printer    \(shown(printer.queue)): \(printer.ready ? "ready" : "NOT READY"), \(shown(printer.state))\(reasons)\(message)")
        if let settings = report.settings { print("settings   \(shown(settings))") }
        if let sync = report.sync { print("sync       \(shown(sync))") }
        print("ticket key \(shown(report.ticketKey))")
        print("config     \(shown(report.configuration))")
        for problem in report.problems { print("PROBLEM    \(shown(problem))") }
        print("devices")
        for device in report.devices {
            let role = shown(device.role).padding(toLength: 12, withPad: " ", startingAt: 0)
            let backend = shown(device.backend).padding(toLength: 10, withPad: " ", startingAt: 0)
            let state = device.state.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
            print("  \(role) \(backend) \(state) \(shown(device.detail))")
        }
    }
}
