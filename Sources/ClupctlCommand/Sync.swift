import CLupCore
import ArgumentParser
import CLupProtocol
import Foundation

/// `clupctl sync`: how the totem's sync with the hub stands; `clupctl sync now` tries at once.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Show the sync with the hub: state, outbox, last success, clock skew, dead letters.",
        subcommands: [Show.self, Now.self], defaultSubcommand: Show.self)

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the sync with the hub.")
        @OptionGroup var connection: Connection
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let report = try connection.client.send(Control.Sync())
            if json { return try printJSON(report) }
            printSync(report)
        }
    }

    struct Now: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "now", abstract: "Try the hub now instead of after the current wait.")
        @OptionGroup var connection: Connection
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let report = try connection.client.send(Control.SyncNow())
            if json { return try printJSON(report) }
            print("the hub was tried now:")
            printSync(report)
        }
    }
}

private func printSync(_ report: SyncReport) {
    print("state        \(report.state.rawValue)" + (report.hub.map { " (\(shown($0)))" } ?? ""))
    print("device       \(shown(report.deviceID))")
    let acknowledged = report.acknowledgedSeq.map(String.init) ?? "not known yet"
    let depth = report.outboxDepth.map { "\($0) events waiting" } ?? "not known yet"
    print("events       \(report.lastSeq) recorded, \(acknowledged) held by the hub: \(depth)")
    print("last success \(report.lastSuccess.map { $0.formatted(.iso8601) } ?? "never")")
    if let skew = report.clockSkew { print("clock skew   \(String(format: "%+.3f", skew)) s (the totem's clock minus the hub's)") }
    if report.deadLettered > 0 { print("dead letters \(report.deadLettered) events the hub could not apply (kept there with the reason)") }
    if let error = report.lastError {
        print("last error   \(shown(error.code)) \(shown(error.message)) (\(shown(error.action)))")
        print("retrying     after \(report.consecutiveFailures) failures, next in \(String(format: "%.1f", report.nextAttemptIn ?? 0)) s")
    }
}
