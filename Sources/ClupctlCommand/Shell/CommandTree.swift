import ArgumentParser
import Foundation

/// clupctl's commands, their options and what completes their arguments, read from the
/// argument parser's own description of them (`_dumpHelp`), so the shell's Tab knows every
/// command the moment it exists.
struct CommandTree: Equatable {
    var name: String
    var subcommands: [CommandTree] = []
    /// `--long` names of the options and flags.
    var options: [String] = []
    /// Whether an option takes a value (so the next word is its value, not an argument).
    var takesValue: Set<String> = []
    /// Fixed values of the positional arguments, in order (a closed list, like in/out).
    var positionalValues: [[String]] = []

    func child(_ name: String) -> CommandTree? { subcommands.first { $0.name == name } }

    /// The tree of `clupctl`, without `help` (the shell has its own).
    static let clupctl: CommandTree = {
        guard let data = Clupctl._dumpHelp().data(using: .utf8),
              let info = try? JSONDecoder().decode(ToolInfo.self, from: data) else {
            // The dump is an underscored API: should it change, the names still complete.
            return fallback(Clupctl.self)
        }
        return tree(info.command)
    }()

    private static func tree(_ command: ToolInfo.Command) -> CommandTree {
        var node = CommandTree(name: command.commandName)
        node.subcommands = (command.subcommands ?? []).filter { $0.commandName != "help" && $0.shouldDisplay ?? true }.map(tree)
        for argument in command.arguments ?? [] where argument.shouldDisplay ?? true {
            let long = (argument.names ?? []).filter { $0.kind == "long" }.map { "--" + $0.name }
            switch argument.kind {
            case "option":
                node.options += long
                node.takesValue.formUnion(long)
            case "flag":
                node.options += long
            default:
                node.positionalValues.append(argument.allValues ?? [])
            }
        }
        node.options = node.options.filter { $0 != "--help" && $0 != "--version" } + ["--help"]
        return node
    }

    private static func fallback(_ command: ParsableCommand.Type) -> CommandTree {
        CommandTree(name: command._commandName, subcommands: command.configuration.subcommands.map(fallback), options: ["--help"])
    }

    /// The parts of the parser's JSON (ToolInfoV0) the shell reads.
    private struct ToolInfo: Decodable {
        struct Name: Decodable {
            let kind: String
            let name: String
        }
        struct Argument: Decodable {
            let kind: String
            let shouldDisplay: Bool?
            let names: [Name]?
            let allValues: [String]?
        }
        final class Command: Decodable {
            let commandName: String
            let shouldDisplay: Bool?
            let subcommands: [Command]?
            let arguments: [Argument]?
        }
        let command: Command
    }
}
