import ArgumentParser
import CLupKiosk
import Foundation

/// `clupctl tickets`: today's tickets.
struct Tickets: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List today's tickets with their state and QR code text.")

    @OptionGroup var connection: Connection
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let report = try connection.client.send(.tickets, expecting: TicketsReport.self)
        if json { return try printJSON(report) }
        print("business day \(report.businessDay): \(report.tickets.count) tickets")
        let time = DateFormatter()
        time.dateFormat = "HH:mm:ss"
        for ticket in report.tickets {
            let number = ticket.number.padding(toLength: 8, withPad: " ", startingAt: 0)
            let lane = ticket.lane.padding(toLength: 9, withPad: " ", startingAt: 0)
            let state = ticket.state.padding(toLength: 13, withPad: " ", startingAt: 0)
            print("\(number) \(lane) \(state) \(time.string(from: ticket.issuedAt))  \(ticket.code)")
        }
    }
}
