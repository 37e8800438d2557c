import Foundation

/// A psql session of its own that takes a row lock in an open transaction and holds it
/// until `release()`: what a slow transaction of another hub process, or an administrator's
/// session, would do to the batch waiting behind it.
final class LockHolder: @unchecked Sendable {
    private let pid: pid_t
    private let input: Int32
    private let lock = NSLock()
    private var released = false

    /// Opens a transaction on `database` and runs `lockingStatement` in it; returns once the
    /// lock is held.
    init(_ postgres: PrivatePostgres, database: String, lockingStatement: String) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw PostgresFixtureError("no pipe for psql") }
        let spawned = spawn(["/usr/bin/psql", "-X", "-q", "-h", postgres.socketDirectory, "-U", "clup", "-d", database],
                            stdin: fds[0], stdout: nil, stderr: nil, closing: fds)
        close(fds[0])
        guard case let .success(pid) = spawned else { close(fds[1]); throw PostgresFixtureError("psql could not run: \(spawned)") }
        self.pid = pid
        input = fds[1]
        send("SET application_name = 'lock-holder';\nBEGIN;\n\(lockingStatement);\n")
        try waitUntil("the lock is held") {
            try postgres.psql("""
                SELECT count(*) FROM pg_stat_activity WHERE application_name = 'lock-holder' AND state = 'idle in transaction'
                """, database: database) == "1"
        }
    }

    /// Runs `statement` in the open transaction too, without waiting for it: `state(after:)`
    /// tells when it has run.
    func then(_ statement: String) { send("\(statement);\n") }

    /// The session's state as PostgreSQL shows it, once its last statement is the one
    /// containing `statement` ("" before): "active" while it runs (or waits for a lock),
    /// "idle in transaction" once it has run, "idle in transaction (aborted)" if it failed.
    static func state(_ postgres: PrivatePostgres, database: String, after statement: String) throws -> String {
        try postgres.psql("""
            SELECT state FROM pg_stat_activity WHERE application_name = 'lock-holder' AND position(\(quoted(statement)) IN query) > 0
            """, database: database)
    }

    private static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    private func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
    }

    /// Ends the transaction: whatever waits on the lock goes on.
    func release() {
        lock.lock()
        defer { lock.unlock() }
        guard !released else { return }
        released = true
        send("ROLLBACK;\n")
        close(input)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }

    deinit { release() }
}

/// Polls `condition` every 50 ms until it holds; fails after `seconds` (a safety net, not a
/// measurement: it is met in milliseconds when all goes well).
func waitUntil(_ what: String, seconds: Double = 60, _ condition: () throws -> Bool) throws {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if try condition() { return }
        usleep(50_000)
    }
    throw PostgresFixtureError("waited \(Int(seconds)) s for \(what)")
}
