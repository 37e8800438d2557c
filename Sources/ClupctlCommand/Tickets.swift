import ArgumentParser
import CLupProtocol
import Foundation

/// `clupctl tickets`: today's tickets.
struct Tickets: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List today's tickets with their state and QR code text.")

    @OptionGroup var connection: Connection
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let report = try connection.client.send(Control.Tickets())
        if json { return try printJSON(report) }
        print("business day \(shown(report.businessDay)): \(report.tickets.count) tickets")
        for ticket in report.tickets {
            print("\(column(shown(ticket.number), 8)) \(column(shown(ticket.lane), 9)) \(column(shown(ticket.state), 13)) "
                  + "\(clockTime(ticket.issuedAt))  \(shown(ticket.code))")
        }
    }
}
