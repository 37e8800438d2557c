import ArgumentParser
import CLupProtocol
import Foundation

/// `clupctl ledger`: today's occupancy ledger; `ledger correct` fixes the count.
struct LedgerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ledger", abstract: "Show or correct today's occupancy ledger.",
        subcommands: [Show.self, Correct.self], defaultSubcommand: Show.self)

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show entries, exits and corrections per door.")
        @OptionGroup var connection: Connection
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let report = try connection.client.send(Control.Ledger())
            if json { return try printJSON(report) }
            printLedger(report)
        }
    }

    struct Correct: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Correct the count of people inside, with a reason (audited).",
            discussion: "Give either --delta (people to add or remove) or --set (the number of people you counted inside).")
        @OptionGroup var connection: Connection
        @Option(parsing: .unconditional, help: "People to add (negative to remove).") var delta: Int?
        @Option(name: .customLong("set"), help: "The number of people you counted inside.") var count: Int?
        @Option(help: "Why, for the audit log.") var reason: String

        func validate() throws {
            guard (delta == nil) != (count == nil) else { throw ValidationError("give either --delta or --set") }
        }

        func run() throws {
            if let count {
                let report = try connection.client.send(Control.SetOccupancy(count: count, reason: reason))
                print("set to \(count) inside")
                printLedger(report)
            } else if let delta {
                let report = try connection.client.send(Control.CorrectLedger(delta: delta, reason: reason))
                print("corrected by \(delta > 0 ? "+" : "")\(delta)")
                printLedger(report)
            }
        }
    }
}

private func printLedger(_ report: LedgerReport) {
    for line in ledgerLines(report) { print(line) }
}

/// The ledger as lines; the doors' names, who corrected and why are escaped (a reason is
/// typed by a person, and must not start a line of its own).
func ledgerLines(_ report: LedgerReport) -> [String] {
    var lines = ["business day \(shown(report.businessDay)): \(report.inside) inside"]
    for door in report.doors {
        let carried = door.carried == 0 ? "" : "\(door.carried) carried over from the day before, "
        lines.append("  door \(column(shown(door.door), 8)) \(carried)\(door.entries) in, \(door.exits) out, "
                     + "corrections \(door.corrections), inside \(door.inside)")
    }
    for correction in report.corrections {
        lines.append("  correction \(clockTime(correction.at)) \(shown(correction.door)) \(correction.delta > 0 ? "+" : "")"
                     + "\(correction.delta) by \(shown(correction.by)): \(shown(correction.reason))")
    }
    lines.append("event log: \(report.matchesEventLog ? "agrees with the ledger" : "DISAGREES with the ledger")")
    return lines
}
