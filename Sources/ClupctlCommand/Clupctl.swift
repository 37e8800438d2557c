import ArgumentParser
import CLupCore
import CLupProtocol
import Foundation

/// `clupctl`: the field technician's shell for a running `clupd`. With no command it opens
/// the interactive shell (`clupctl shell`); every command works the same in both.
struct Clupctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clupctl",
        abstract: "Maintenance shell for the CLup totem daemon.",
        discussion: "With no command, opens the interactive shell. Commands that change the totem need a technician "
            + "logged in (clupctl login NAME).",
        subcommands: [Shell.self, Login.self, Logout.self, TechnicianCommand.self,
                      Status.self, Tickets.self, QueueCommand.self, CallNext.self, Skip.self, VoidTicket.self, LedgerCommand.self,
                      ConfigCommand.self, PrinterCommand.self, PaperCommand.self, Reprint.self, Issue.self, EmployeeCommand.self, Audit.self,
                      Devices.self, SelfTest.self, Calibrate.self, Logs.self, Diagnostics.self, Screenshot.self, ScreenCommand.self,
                      Sim.self, SyncCommand.self, Metrics.self, Errors.self])
}

/// The socket option every command takes.
struct Connection: ParsableArguments {
    @Option(help: "clupd's control socket (or set CLUP_SOCKET).")
    var socket = ProcessInfo.processInfo.environment["CLUP_SOCKET"] ?? ControlClient.defaultSocketPath

    /// A client carrying the technician's session, if there is one.
    var client: ControlClient { ControlClient(socketPath: socket, session: SessionFile.token()) }

    /// The same, waiting up to `seconds` for the reply (a self-test waits for the device).
    func client(waiting seconds: Int) -> ControlClient {
        ControlClient(socketPath: socket, session: SessionFile.token(), timeoutSeconds: seconds)
    }
}

/// Local time of day for people reading the shell.
func clockTime(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.dateFormat = "HH:mm:ss"
    return formatter.string(from: date)
}

/// Pads `text` with spaces to `width` characters.
func column(_ text: String, _ width: Int) -> String {
    text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0)
}

/// Prints `value` as pretty JSON on stdout.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// Runs the command line; maps failures to the exit statuses scripts rely on. Started by
/// the `clupctl` executable of a development build, and by `clupd` when it is started as
/// `clupctl` (the package's `/usr/bin/clupctl` is a link to clupd: one binary, one copy of
/// the Swift runtime, Foundation and its ICU data, for both commands).
public enum ClupctlMain {
    public static func main() -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        exit(execute(arguments.isEmpty ? ["shell"] : arguments))
    }

    /// Whether a process started as `argument0` (its `argv[0]`) is clupctl: the link's name,
    /// or a login shell's (`-clupctl`, as login starts a shell). The name is read the way the
    /// audit reads it (`CallerClaim.programName`), so what runs and what is recorded agree.
    public static func isInvoked(as argument0: String?) -> Bool {
        CallerClaim.programName(argument0) == "clupctl"
    }

    /// Runs one command line (from the shell, or the process's), prints what it says and
    /// returns its exit status: 0 done, 1 refused, 2 usage, 69 no clupd, 76 a reply not
    /// understood, 77 permission denied.
    static func execute(_ arguments: [String]) -> Int32 {
        do {
            var command = try Clupctl.parseAsRoot(arguments)
            try command.run()
            return 0
        } catch let error as ControlClient.ConnectionError {
            fail(error.coded)
            switch error {
            case .daemonNotRunning: return 69
            case .permissionDenied: return 77
            case .badReply: return 76
            }
        } catch let refusal as CodedError {
            fail(refusal)
            if let shell = ShellContext.current, shell.canLogIn,
               refusal.errorCode == .loginRequired || refusal.errorCode == .sessionEnded, shell.logIn() {
                return execute(arguments)
            }
            return refusal.errorCode == .permissionDenied ? 77 : 1
        } catch let code as ExitCode {
            return code.rawValue
        } catch {
            return commandLineFailed(error, arguments: arguments)
        }
    }

    /// Prints a refusal: its code and message, then what to do. Both escaped: a message from
    /// clupd may quote what someone typed (a ticket "number" with a newline in it).
    static func fail(_ error: CodedError) {
        FileHandle.standardError.write(Data("clupctl: \(shown(error.description))\n  what to do: \(shown(error.action))\n".utf8))
    }

    /// Help asked for (`--help`, `help COMMAND`: the parser hands these back as errors, some
    /// from `parseAsRoot` and some from the help command's `run`) exits 0; a usage error
    /// exits 2 with the command's usage, or the list of commands for an unknown one.
    static func commandLineFailed(_ error: Error, arguments: [String]) -> Int32 {
        let code = Clupctl.exitCode(for: error)
        if code == .success {
            print(Clupctl.fullMessage(for: error))
            return 0
        }
        // The parser's message quotes what was typed (an unknown option, a bad value): each of
        // its lines escaped, so that what was typed cannot act on the terminal.
        var message = shownLines(Clupctl.fullMessage(for: error))
        if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
        guard code == .validationFailure else {
            FileHandle.standardError.write(Data("clupctl: \(message)\n".utf8))
            return 1
        }
        let names = Clupctl.configuration.subcommands.map { $0._commandName }
        let known = arguments.first.map(names.contains) ?? false
        let help = known ? "" : "\n\n" + Clupctl.helpMessage()
        FileHandle.standardError.write(Data("clupctl: \(message)\(help)\n".utf8))
        return 2
    }
}
