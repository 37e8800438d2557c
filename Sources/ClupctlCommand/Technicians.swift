import ArgumentParser
import CLupCore
import CLupProtocol
import Foundation

/// Where a technician's session token is kept between commands: `CLUP_SESSION_FILE`, else
/// `$XDG_RUNTIME_DIR/clupctl/session` (gone at logout or reboot), else
/// `~/.local/state/clupctl/session`. Readable by its owner alone.
enum SessionFile {
    static var path: String {
        let environment = ProcessInfo.processInfo.environment
        if let file = environment["CLUP_SESSION_FILE"], !file.isEmpty { return file }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/clupctl/session" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state/clupctl/session"
    }

    static func token() -> String? {
        guard let data = FileManager.default.contents(atPath: path), data.count < 200 else { return nil }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }

    static func save(_ token: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data((token + "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]),
              rename(temporary, path) == 0 else {
            throw CodedError(.internalError, "cannot keep the session in \(path): \(String(cString: strerror(errno)))")
        }
    }

    static func remove() { unlink(path) }
}

/// Logs `name` in with the secret typed (without echo), and keeps the session; shared by
/// `clupctl login` and the shell's prompt for a login.
func logInTechnician(_ name: String, client: ControlClient) throws -> LoginReply {
    let secret = try Terminal.readHidden("secret for \(quoted(name)): ", failure: .wrongSecret)
    let reply = try client.send(Control.Login(name: name, secret: secret))
    try SessionFile.save(reply.token)
    return reply
}

/// `clupctl login NAME`: opens a technician's session for the commands that follow.
struct Login: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Log in as a technician: commands that change the totem need it.",
        discussion: "The secret is asked without echo (or read from stdin). The session ends after "
            + "control.session_idle_seconds without a command, at logout, or when clupd restarts.")
    @OptionGroup var connection: Connection
    @Argument(help: "Your technician name.", completion: .custom { _, _, _ in Completions.technicians() }) var name: String

    func run() throws {
        let reply = try logInTechnician(name, client: connection.client)
        print("logged in as \(shown(reply.name)); the session ends after \(reply.idleSeconds) s without a command")
    }
}

/// `clupctl logout`.
struct Logout: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "End the technician's session.")
    @OptionGroup var connection: Connection

    func run() throws {
        defer { SessionFile.remove() }
        print(shown(try connection.client.send(Control.Logout()).message))
    }
}

/// `clupctl technician list|add|secret|remove`: who may log in.
struct TechnicianCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "technician", abstract: "List, add or remove technicians, or set one's secret.",
        discussion: "root adds the first technician without logging in; after that, a logged-in technician manages them.",
        subcommands: [List.self, Add.self, Secret.self, Remove.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the technicians.")
        @OptionGroup var connection: Connection
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let report = try connection.client.send(Control.Technicians())
            if json { return try printJSON(report) }
            if report.technicians.isEmpty { print("no technicians (root adds one: clupctl technician add NAME)") }
            for technician in report.technicians {
                let state = technician.lockedUntil.map { "LOCKED until \(clockTime($0))" } ?? (technician.loggedIn ? "logged in" : "")
                print("\(column(shown(technician.name), 20)) changed \(technician.changedAt.formatted(.iso8601))  \(state)")
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a technician; their secret is asked twice.")
        @OptionGroup var connection: Connection
        @Argument(help: "2 to 32 lower-case letters, digits, dot, dash or underscore.") var name: String

        func run() throws { try put(name, replacing: false, connection) }
    }

    struct Secret: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a technician's secret (their sessions end).")
        @OptionGroup var connection: Connection
        @Argument(help: "The technician.", completion: .custom { _, _, _ in Completions.technicians() }) var name: String

        func run() throws { try put(name, replacing: true, connection) }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a technician (their sessions end).")
        @OptionGroup var connection: Connection
        @Argument(help: "The technician.", completion: .custom { _, _, _ in Completions.technicians() }) var name: String

        func run() throws {
            _ = try connection.client.send(Control.RemoveTechnician(name: name))
            print("\(shown(name)) removed")
        }
    }

    /// Checks the name and the secret here, hashes the secret, and sends only the hash.
    static func put(_ name: String, replacing: Bool, _ connection: Connection) throws {
        if let problem = TechnicianSecret.problem(name: name) { throw CodedError(.badTechnician, problem) }
        let secret = try TechnicianSecret.readNew()
        if let problem = TechnicianSecret.problem(secret: secret, name: name) { throw CodedError(.badTechnician, problem) }
        let hash = try PinHash.make(pin: secret)
        _ = try connection.client.send(Control.PutTechnician(name: name, secret: hash, replacing: replacing))
        print(replacing ? "\(shown(name)) has a new secret" : "\(shown(name)) added; they log in with clupctl login \(shown(name))")
    }
}

/// `clupctl skip NUMBER`: a called ticket whose customer did not come.
struct Skip: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Skip a called ticket whose customer did not come: its place goes to the next one now.")
    @OptionGroup var connection: Connection
    @Argument(help: "The called ticket, like A-017.", completion: .custom { _, _, _ in Completions.tickets(["called"]) })
    var number: String
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let reply = try connection.client.send(Control.Skip(number: number))
        if json { return try printJSON(reply) }
        print(shown(reply.outcome))
    }
}

/// `clupctl void NUMBER --reason …`.
struct VoidTicket: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "void",
        abstract: "Void a ticket: it leaves the queue and its code no longer opens the door.")
    @OptionGroup var connection: Connection
    @Argument(help: "The ticket, like A-017.", completion: .custom { _, _, _ in Completions.tickets(["waiting", "called", "print-failed"]) })
    var number: String
    @Option(help: "Why, for the audit trail.") var reason: String
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let reply = try connection.client.send(Control.VoidTicket(number: number, reason: reason))
        if json { return try printJSON(reply) }
        print(shown(reply.outcome))
    }
}
