import ArgumentParser
import CLupProtocol
import Foundation

/// `clupctl printer`: the printer's state and today's tickets it failed.
struct PrinterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "printer", abstract: "Show the ticket printer's state and today's print failures.")

    @OptionGroup var connection: Connection
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let details = try connection.client.send(Control.Printer())
        if json { return try printJSON(details) }
        let printer = details.printer
        print("queue    \(shown(printer.queue)) (\(shown(details.profile)))")
        print("state    \(printer.ready ? "ready" : "NOT READY"), \(shown(printer.state))"
              + (printer.message.isEmpty ? "" : " — \(shown(printer.message))"))
        print("reasons  \(printer.reasons.isEmpty ? "none" : printer.reasons.map(shown).joined(separator: ", "))")
        if let age = printer.checkedSecondsAgo { print("checked  \(Int(age)) s ago") }
        if let paper = details.paper { print("paper    \(paper.low ? "LOW: " : "")\(shown(paper.detail))") }
        print("failed today (\(details.failures.count))")
        for failure in details.failures {
            print("  \(column(shown(failure.number), 8)) \(clockTime(failure.issuedAt))  \(shown(failure.reason))")
        }
        if !details.failures.isEmpty { print("reprint one with: clupctl reprint NUMBER") }
    }
}

/// `clupctl reprint NUMBER`: sends a ticket the printer failed to the printer again.
struct Reprint: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print again a ticket the printer failed.")

    @OptionGroup var connection: Connection
    @Argument(help: "The ticket's number, like A-017.", completion: .custom { _, _, _ in Completions.tickets(["print-failed"]) })
    var number: String

    func run() throws {
        let reply = try connection.client.send(Control.Reprint(number: number))
        print(shown(reply.outcome))
    }
}
