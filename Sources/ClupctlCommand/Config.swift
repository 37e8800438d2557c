import ArgumentParser
import CLupProtocol

/// `clupctl config show`: the configuration clupd runs with.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Show the configuration in force.", subcommands: [Show.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the configuration as TOML.")
        @OptionGroup var connection: Connection
        @Flag(help: "Print JSON: where the configuration comes from, and its TOML.") var json = false

        func run() throws {
            let report = try connection.client.send(Control.Configuration())
            if json { return try printJSON(report) }
            print("# from \(shown(report.source))")
            print(shownLines(report.toml), terminator: "")
        }
    }
}
