import ArgumentParser
import CLupCore
import CLupProtocol

/// `clupctl issue --priority REASON`: an employee's priority ticket.
struct Issue: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Issue a priority ticket for a customer (pregnant, disability, elderly, other).")

    @OptionGroup var connection: Connection
    @Option(help: "Why: \(PriorityReason.allCases.map(\.rawValue).joined(separator: ", ")).")
    var priority: PriorityReason

    func run() throws {
        let reply = try connection.client.send(Control.IssuePriority(priority))
        print(shown(reply.outcome))
    }
}

extension PriorityReason: ExpressibleByArgument {}
