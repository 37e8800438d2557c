import ArgumentParser
import CLupProtocol
import Foundation

/// `clupctl paper`: the paper on the roll; `clupctl paper new-roll` when a roll goes in.
struct PaperCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paper", abstract: "Show the paper left on the printer's roll; say when a new roll goes in.",
        subcommands: [Show.self, NewRoll.self], defaultSubcommand: Show.self)

    static func show(_ report: PaperReport) {
        print("paper    \(report.low ? "LOW" : "ok") (\(report.source == "sensor" ? "the printer's sensor" : report.source == "count" ? "the count" : "not known"))")
        print("detail   \(shown(report.detail))")
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the paper left on the roll, by the count and the printer's sensor.")
        @OptionGroup var connection: Connection
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let report = try connection.client.send(Control.Paper())
            if json { return try printJSON(report) }
            PaperCommand.show(report)
        }
    }

    struct NewRoll: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new-roll", abstract: "Say a full roll was just put in: the count of tickets left starts again (audited).")
        @OptionGroup var connection: Connection

        func run() throws {
            PaperCommand.show(try connection.client.send(Control.PaperNewRoll()))
        }
    }
}
