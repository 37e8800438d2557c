import ArgumentParser
import CLupHub
import Foundation

/// `clup-hub retention`: how long the chain keeps the totems' events.
struct RetentionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "How many days of totem events the hub keeps; older days are retired (the panel's statistics stay).",
        subcommands: [Show.self, Set.self, Retire.self], defaultSubcommand: Show.self)

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The days kept and the daily partitions held.")
        @OptionGroup var options: ConfigOption

        func run() async throws {
            try await refusing {
                let window = try await withDatabase(try options.load()) { try await Retention(database: $0).window() }
                print("retention: events kept \(window.days) days (from \(window.firstDay)); \(window.partitions) days held"
                    + (window.oldestPartition.map { ", the oldest \($0)" } ?? ""))
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the days of events the chain keeps (30 to 3660); serving hubs retire older days within 10 minutes.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "Days.") var days: Int

        func run() async throws {
            try await refusing {
                let before = try await changing(try options.load(), "retention") {
                    try await Retention(database: $0).setEventDays(days, by: .shell)
                }
                print("retention: events kept \(days) days (before: \(before))")
            }
        }
    }

    struct Retire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Retire the days older than the chain keeps, now.")
        @OptionGroup var options: ConfigOption

        func run() async throws {
            try await refusing {
                let retired = try await withDatabase(try options.load()) { try await Retention(database: $0).retire() }
                print(retired.isEmpty ? "retention: no day to retire"
                    : "retention: retired \(retired.count) days, \(retired.first!) to \(retired.last!)")
            }
        }
    }
}
