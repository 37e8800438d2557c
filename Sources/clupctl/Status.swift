import ArgumentParser
import CLupProtocol
import Foundation

/// `clupctl status`: devices, queue, occupancy and printer.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show devices, queue, occupancy and printer.")

    @OptionGroup var connection: Connection
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let report = try connection.client.send(.status, expecting: StatusReport.self)
        if json { return try printJSON(report) }
        print("\(report.store) — \(report.deviceID) — business day \(report.businessDay)")
        print("screen     \(report.screen)")
        print("queue      \(report.waiting) waiting, \(report.promised) called or at the door")
        let occupancy = report.occupancy
        print("occupancy  \(occupancy.inside) inside of \(occupancy.capacity) (\(occupancy.entries) in, \(occupancy.exits) out)")
        let printer = report.printer
        let reasons = printer.reasons.isEmpty ? "" : " (\(printer.reasons.joined(separator: ", ")))"
        let message = printer.message.isEmpty ? "" : " — \(printer.message)"
        print("printer    \(printer.queue): \(printer.ready ? "ready" : "NOT READY"), \(printer.state)\(reasons)\(message)")
        if let settings = report.settings { print("settings   \(settings)") }
        if let sync = report.sync { print("sync       \(sync)") }
        print("ticket key \(report.ticketKey)")
        print("config     \(report.configuration)")
        for problem in report.problems { print("PROBLEM    \(problem)") }
        print("devices")
        for device in report.devices {
            let role = device.role.padding(toLength: 12, withPad: " ", startingAt: 0)
            let backend = device.backend.padding(toLength: 10, withPad: " ", startingAt: 0)
            let state = device.state.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
            print("  \(role) \(backend) \(state) \(device.detail)")
        }
    }
}
