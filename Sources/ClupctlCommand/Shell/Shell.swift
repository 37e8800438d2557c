import ArgumentParser
import CLupCore
import CLupProtocol
import Foundation

/// `clupctl shell` (or `clupctl` alone): the maintenance shell. The prompt names the totem
/// and its state; every clupctl command works the same in it, with line editing, history
/// across sessions and Tab completion of commands, options, ticket numbers and devices.
/// It opens with clupd down too, when a technician needs it most: the prompt says DOWN, the
/// commands that need clupd say E-CTL-014, and every command tries clupd again.
struct Shell: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open the interactive maintenance shell (what clupctl does with no command).",
        discussion: "Reads commands from the terminal with line editing, history and Tab completion; from a pipe, one per line. "
            + "Opens with clupd down too: logs, diagnostics and errors work without it.")
    @OptionGroup var connection: Connection

    func run() throws {
        if ShellContext.current != nil { throw ValidationError("already in the shell") }
        setenv("CLUP_SOCKET", connection.socket, 1)
        let interactive = isatty(STDIN_FILENO) == 1
        let shell = ShellContext(connection: connection, interactive: interactive)
        // The socket is asked first: a caller without permission is refused before any login.
        try shell.connect()
        ShellContext.current = shell
        defer { shell.finish() }
        if interactive {
            LineEditor.complete = { before, word in ShellCompleter.candidates(before: before, word: word) }
            LineEditor.setUp()
            print("clupctl \(ClupVersion.current)" + (shell.hello.map { ", \(Self.greeting($0))" } ?? "")
                + ". help lists the commands; Tab completes; exit or Ctrl-D leaves.")
        }
        if shell.hello == nil { shell.say(shell.downHelp) }
        var status: Int32 = 0
        while true {
            let line: String
            if interactive {
                switch LineEditor.read(prompt: shell.prompt) {
                case .end:
                    print("")
                    throw ExitCode(status)
                case .interrupted:
                    continue
                case let .text(text):
                    line = text
                    LineEditor.remember(text)
                }
            } else {
                guard let text = readLine(strippingNewline: true) else { throw ExitCode(status) }
                line = text
            }
            switch shell.run(line) {
            case .leave: return
            case let .ran(code):
                status = code
                if code != 0, interactive { print("[exit \(code)]") }
            }
            fflush(nil)
            // The prompt follows the totem: a printer that ran out of paper, or clupd gone or back.
            shell.refresh()
        }
    }

    /// `clupd 1.4.0 at store 7, totem A`: what answers on the socket.
    static func greeting(_ hello: HelloReply) -> String {
        "clupd \(shown(hello.clupdVersion)) at store \(hello.storeID), totem \(shown(hello.letter))"
    }

    /// `tess@store-7/A ok> `, `store-7/A PRINTER FAULT> `; with clupd down, `store-7/A DOWN> `
    /// (the totem it last answered for) or `clupd DOWN> `.
    static func prompt(_ hello: HelloReply?, lastKnown: HelloReply?) -> String {
        guard let hello else { return lastKnown.map { "store-\($0.storeID)/\(shown($0.letter)) DOWN> " } ?? "clupd DOWN> " }
        return (hello.technician.map { "\(shown($0))@" } ?? "") + "store-\(hello.storeID)/\(shown(hello.letter)) \(shown(hello.state))> "
    }
}

/// The shell while it runs: the commands it passes to clupctl use its socket, and a command
/// refused for want of a login asks for one there and then.
final class ShellContext {
    nonisolated(unsafe) static var current: ShellContext?

    let connection: Connection
    let interactive: Bool
    /// Whether this shell logged in (it logs out when it ends).
    private var loggedIn = false
    /// clupd's last answer; nil while it does not answer.
    private(set) var hello: HelloReply?
    /// The last answer there ever was, for the prompt while clupd is down.
    private(set) var lastKnown: HelloReply?
    /// Where clupd logs, as it said while it answered: `logs` reads it with clupd down.
    private(set) var logSource: LogSourceReply?
    /// Why clupd last did not answer.
    private var downReason = ""

    init(connection: Connection, interactive: Bool) {
        self.connection = connection
        self.interactive = interactive
    }

    var prompt: String { Shell.prompt(hello, lastKnown: lastKnown) }

    /// Asks clupd who it is. No answer leaves the shell open and DOWN; any other failure
    /// (permission denied, a reply not understood) is thrown.
    func connect() throws {
        do {
            let fresh = try connection.client.send(Control.Hello(), quiet: true)
            if hello == nil {
                logSource = (try? connection.client.send(Control.LogSource(), quiet: true)) ?? logSource
            }
            hello = fresh
            lastKnown = fresh
        } catch let error as ControlClient.ConnectionError {
            guard case .daemonNotRunning = error else { throw error }
            hello = nil
            downReason = shown(error.coded.message)
        }
    }

    /// After each command: asks clupd again, and says so when it went away or came back.
    func refresh() {
        let wasUp = hello != nil
        guard (try? connect()) != nil else { return }
        if let hello, !wasUp {
            say("clupd answers again: \(Shell.greeting(hello)).")
        } else if hello == nil, wasUp {
            say(downHelp)
        }
    }

    /// What works with clupd down, and how to start it.
    var downHelp: String {
        """
        \(downReason): the shell is open without it (\(ErrorCode.daemonNotRunning.rawValue) for what needs it).
          works now: logs [--file PATH] (the journal, or clupd's log file), diagnostics FILE (what clupctl finds alone),
                     errors [CODE], help
          start it:  systemctl start clupd (or: clupd --state-dir DIR --socket \(shown(connection.socket))); then any
                     command tries it again
        """
    }

    /// A line for the technician: on the terminal, or on standard error when commands come
    /// from a pipe (its standard output is the commands' own).
    func say(_ text: String) {
        if interactive { print(text) } else { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }

    var canLogIn: Bool { interactive }

    enum Outcome: Equatable {
        case ran(Int32)
        case leave
    }

    /// Runs one line: the shell's own words (exit, help, login, logout) or a clupctl command.
    func run(_ line: String) -> Outcome {
        let words: [String]
        do {
            words = try ShellWords.split(line)
        } catch {
            FileHandle.standardError.write(Data("clupctl: \(shown(error.description))\n".utf8))
            return .ran(2)
        }
        guard let first = words.first else { return .ran(0) }
        switch first {
        case "exit", "quit":
            return .leave
        case "help", "?":
            if words.count == 1 {
                print(Self.builtinHelp)
                if hello == nil { print(downHelp + "\n") }
                print(Clupctl.helpMessage())
                return .ran(0)
            }
            return .ran(ClupctlMain.execute(["help"] + words.dropFirst()))
        case "shell":
            FileHandle.standardError.write(Data("clupctl: already in the shell\n".utf8))
            return .ran(2)
        case "login":
            let code = ClupctlMain.execute(words)
            if code == 0 { loggedIn = true }
            return .ran(code)
        case "logout":
            loggedIn = false
            return .ran(ClupctlMain.execute(words))
        default:
            return .ran(ClupctlMain.execute(words))
        }
    }

    /// Asks for a name and a secret after a refusal for want of a login; true once logged in.
    func logIn() -> Bool {
        guard interactive, let name = Terminal.readVisible("log in to go on; technician name (empty: no): "),
              !name.trimmingCharacters(in: .whitespaces).isEmpty else { return false }
        do {
            let reply = try logInTechnician(name.trimmingCharacters(in: .whitespaces), client: connection.client)
            loggedIn = true
            print("logged in as \(shown(reply.name))")
            return true
        } catch let refusal as CodedError {
            ClupctlMain.fail(refusal)
        } catch let error as ControlClient.ConnectionError {
            ClupctlMain.fail(error.coded)
        } catch {
            FileHandle.standardError.write(Data("clupctl: \(error)\n".utf8))
        }
        return false
    }

    /// The shell ends: a session it opened is closed.
    func finish() {
        if loggedIn {
            _ = try? connection.client.send(Control.Logout())
            SessionFile.remove()
        }
        ShellContext.current = nil
    }

    static let builtinHelp = """
        In the shell: help [COMMAND…], login NAME, logout, exit (or Ctrl-D). Tab completes commands, options,
        ticket numbers, self-test steps and button names; Up and Down go through the history.

        """
}

/// What Tab offers in the shell.
enum ShellCompleter {
    static let builtins = ["exit", "help", "quit"]

    /// The candidates for `word`, given the words before it on the line.
    static func candidates(before: String, word: String, tree: CommandTree = .clupctl,
                           dynamic: ([String], Int) -> [String] = dynamicValues) -> [String] {
        var words = (try? ShellWords.split(before)) ?? before.split(separator: " ").map(String.init)
        var all: [String]
        if words.first == "help" || words.first == "?" { words.removeFirst() }
        var node = tree
        var path: [String] = []
        var index = 0
        while index < words.count, let child = node.child(words[index]) {
            node = child
            path.append(child.name)
            index += 1
        }
        let rest = Array(words[index...])
        if word.hasPrefix("-") {
            all = node.options
        } else if !node.subcommands.isEmpty, rest.isEmpty {
            all = node.subcommands.map(\.name) + (path.isEmpty && before.trimmingCharacters(in: .whitespaces).isEmpty ? builtins : [])
        } else if let last = rest.last, node.takesValue.contains(last) {
            all = []
        } else {
            var position = 0
            var skipValue = false
            for item in rest {
                if skipValue { skipValue = false; continue }
                if item.hasPrefix("-") { skipValue = node.takesValue.contains(item); continue }
                position += 1
            }
            let fixed = position < node.positionalValues.count ? node.positionalValues[position] : []
            all = fixed.isEmpty ? dynamic(path, position) : fixed
        }
        return Array(Set(all.filter { $0.hasPrefix(word) })).sorted()
    }

    /// Values clupd knows: tickets in the right state, technicians, employees, buttons.
    static func dynamicValues(_ path: [String], _ position: Int) -> [String] {
        guard position == 0 else { return [] }
        switch path.joined(separator: " ") {
        case "reprint": return Completions.tickets(["print-failed"])
        case "skip": return Completions.tickets(["called"])
        case "void": return Completions.tickets(["waiting", "called", "print-failed"])
        case "selftest": return Completions.selfTestSteps()
        case "errors": return Completions.errorCodes()
        case "sim press": return Completions.buttons()
        case "login", "technician secret", "technician remove": return Completions.technicians()
        case "employee pin", "employee remove": return Completions.employees()
        default: return []
        }
    }
}
