import ArgumentParser
import CLupProtocol
import Foundation

/// `clupctl queue`: the waiting and called tickets, and what the rule would do next.
struct QueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue", abstract: "Show waiting and called tickets and the next call.")

    @OptionGroup var connection: Connection
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let report = try connection.client.send(Control.Queue())
        if json { return try printJSON(report) }
        print("business day \(shown(report.businessDay)): \(report.inside) inside + \(report.promised) called "
              + "of \(report.capacity) places, \(report.priorityReserve) kept for priority")
        print("called (\(report.called.count))")
        for line in report.called {
            let deadline = line.deadline.map { ", no-show at \(clockTime($0))" } ?? ""
            print("  \(column(shown(line.number), 8)) \(column(shown(line.lane), 9)) \(column(shown(line.state), 9)) "
                  + "called \(line.calledAt.map(clockTime) ?? "-")\(deadline) — \(shown(line.reason ?? ""))")
        }
        print("waiting (\(report.waiting.count))")
        for line in report.waiting {
            print("  \(column(shown(line.number), 8)) \(column(shown(line.lane), 9)) since \(clockTime(line.issuedAt))")
        }
        print("next call: \(report.nextCall.map(shown) ?? "none (no room, or nobody waiting)")")
        print("estimated wait for a new ticket: \(shown(report.estimatedWait))")
    }
}

/// `clupctl call-next`: calls one ticket now, if there is room.
struct CallNext: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Call the next ticket by the queue rule.")

    @OptionGroup var connection: Connection

    func run() throws {
        let reply = try connection.client.send(Control.CallNext())
        print("called \(shown(reply.number)): \(shown(reply.reason))")
    }
}
