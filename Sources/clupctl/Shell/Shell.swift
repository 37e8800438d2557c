import ArgumentParser
import CLupCore
import CLupProtocol
import Foundation

/// `clupctl shell` (or `clupctl` alone): the maintenance shell. The prompt names the totem
/// and its state; every clupctl command works the same in it, with line editing, history
/// across sessions and Tab completion of commands, options, ticket numbers and devices.
struct Shell: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open the interactive maintenance shell (what clupctl does with no command).",
        discussion: "Reads commands from the terminal with line editing, history and Tab completion; from a pipe, one per line.")
    @OptionGroup var connection: Connection

    func run() throws {
        if ShellContext.current != nil { throw ValidationError("already in the shell") }
        // The socket is asked first: a caller without permission is refused before any login.
        setenv("CLUP_SOCKET", connection.socket, 1)
        var hello = try connection.client.send(.hello, expecting: HelloReply.self, quiet: true)
        let interactive = isatty(STDIN_FILENO) == 1
        let shell = ShellContext(connection: connection, interactive: interactive)
        ShellContext.current = shell
        defer { shell.finish() }
        if interactive {
            LineEditor.complete = { before, word in ShellCompleter.candidates(before: before, word: word) }
            LineEditor.setUp()
            print("clupctl \(ClupVersion.current), clupd \(hello.clupdVersion) at store \(hello.storeID), totem \(hello.letter). "
                + "help lists the commands; Tab completes; exit or Ctrl-D leaves.")
        }
        var status: Int32 = 0
        while true {
            let line: String
            if interactive {
                switch LineEditor.read(prompt: Self.prompt(hello)) {
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
            // The prompt follows the totem: a printer that ran out of paper shows in it.
            if let fresh = try? connection.client.send(.hello, expecting: HelloReply.self, quiet: true) { hello = fresh }
        }
    }

    /// `tess@store-7/A ok> `, `store-7/A PRINTER FAULT> `.
    static func prompt(_ hello: HelloReply) -> String {
        (hello.technician.map { "\($0)@" } ?? "") + "store-\(hello.storeID)/\(hello.letter) \(hello.state)> "
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

    init(connection: Connection, interactive: Bool) {
        self.connection = connection
        self.interactive = interactive
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
            FileHandle.standardError.write(Data("clupctl: \(error)\n".utf8))
            return .ran(2)
        }
        guard let first = words.first else { return .ran(0) }
        switch first {
        case "exit", "quit":
            return .leave
        case "help", "?":
            if words.count == 1 {
                print(Self.builtinHelp)
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
            print("logged in as \(reply.name)")
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
            _ = try? connection.client.send(.logout, expecting: MessageReply.self)
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
