import Foundation

/// A private PostgreSQL 15 cluster for the test process, started with the project's
/// `scripts/private-postgres` (own folder, Unix socket only) and stopped when the process
/// exits. Each test gets a database of its own, copied from a template the hub's
/// migrations were applied to once.
final class PrivatePostgres: Sendable {
    /// Started on first use.
    static let shared: Result<PrivatePostgres, PostgresFixtureError> = {
        let started = Result { () throws(PostgresFixtureError) in try PrivatePostgres() }
        atexit { if case let .success(postgres) = PrivatePostgres.shared { postgres.stop() } }
        return started
    }()

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    let directory: String
    /// The folder of the cluster's socket (as `psql -h` takes it).
    let socketDirectory: String

    private init() throws(PostgresFixtureError) {
        var template = Array("/tmp/clup-hub-tests-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw PostgresFixtureError("cannot make a folder for PostgreSQL") }
        directory = String(cString: made)
        // The cluster runs as the user postgres when the tests run as root: it must reach the folder.
        chmod(directory, 0o755)
        let output = try Self.run(Self.repositoryRoot.appendingPathComponent("scripts/private-postgres").path, ["start", directory])
        guard let host = output.split(separator: " ").first(where: { $0.hasPrefix("PGHOST=") }) else {
            throw PostgresFixtureError("scripts/private-postgres printed no PGHOST: \(output)")
        }
        socketDirectory = String(host.dropFirst("PGHOST=".count))
    }

    func stop() {
        _ = try? Self.run(Self.repositoryRoot.appendingPathComponent("scripts/private-postgres").path, ["stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Stops PostgreSQL at once, as a crash would, and starts it again (crash recovery).
    func restartImmediately() throws(PostgresFixtureError) {
        let script = Self.repositoryRoot.appendingPathComponent("scripts/private-postgres").path
        _ = try Self.run(script, ["crash", directory])
        _ = try Self.run(script, ["start", directory])
    }

    /// Runs SQL through psql on database `database`; returns what it printed (unaligned, tuples only).
    @discardableResult
    func psql(_ sql: String, database: String = "postgres") throws(PostgresFixtureError) -> String {
        try Self.run("/usr/bin/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", socketDirectory, "-U", "clup",
                                       "-d", database, "-c", sql])
    }

    /// Runs `executable` and waits for it; returns what it printed.
    ///
    /// By `posix_spawn` and `waitpid`, not Foundation's `Process`: its `waitUntilExit` was
    /// seen never to return here when called from a test's async context (the child
    /// reaped by nobody, the test hung until CI's limit).
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws(PostgresFixtureError) -> String {
        var output: [Int32] = [0, 0], errors: [Int32] = [0, 0]
        guard pipe(&output) == 0, pipe(&errors) == 0 else { throw PostgresFixtureError("no pipe for \(executable)") }
        let spawned = spawn([executable] + arguments, stdin: nil, stdout: output[1], stderr: errors[1], closing: output + errors)
        close(output[1])
        close(errors[1])
        defer { close(output[0]); close(errors[0]) }
        guard case let .success(pid) = spawned else { throw PostgresFixtureError("\(executable) could not run: \(spawned)") }
        // Output first, then errors: what these tools print fits a pipe's buffer many times over.
        let printed = readAll(output[0]), complaint = readAll(errors[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else {
            throw PostgresFixtureError("\(executable) \(arguments.joined(separator: " ")) failed: \(complaint)")
        }
        return printed.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func readAll(_ fd: Int32) -> String {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count > 0 { data += buffer[0..<count] } else if count == 0 || errno != EINTR { break }
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Starts `arguments[0]` with `arguments`, its standard input, output and error on the
/// descriptors given (nil: /dev/null), the descriptors `closing` closed in the child.
func spawn(_ arguments: [String], stdin: Int32?, stdout: Int32?, stderr: Int32?, closing: [Int32]) -> Result<pid_t, Errno> {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (fd, target, mode) in [(stdin, Int32(0), O_RDONLY), (stdout, 1, O_WRONLY), (stderr, 2, O_WRONLY)] {
        if let fd { posix_spawn_file_actions_adddup2(&actions, fd, target) } else {
            posix_spawn_file_actions_addopen(&actions, target, "/dev/null", mode, 0)
        }
    }
    for fd in closing { posix_spawn_file_actions_addclose(&actions, fd) }
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
    return status == 0 ? .success(pid) : .failure(Errno(code: status))
}

/// An errno from a call that returns it.
struct Errno: Error, CustomStringConvertible {
    let code: Int32
    var description: String { String(cString: strerror(code)) }
}

struct PostgresFixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
