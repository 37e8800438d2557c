import CLupCore
import CLupProtocol
import Foundation
import Logging

/// Listens on `clupd`'s Unix control socket and answers one request per connection.
///
/// Who may call is checked with the kernel's peer credentials (`SO_PEERCRED`): root,
/// clupd's own user, or members of the configured control group. Nothing here blocks the
/// event loop: connections are read and written without blocking as they become ready, a
/// client that says nothing is dropped after `requestSeconds`, and when `maxConnections`
/// are open the oldest one still waiting for its request makes room for a new one.
final class ControlServer {
    /// Why the socket could not be opened.
    enum ListenError: Error, CodedErrorConvertible {
        case inUse(path: String)
        case failed(path: String, step: String, detail: String)

        var coded: CodedError {
            switch self {
            case let .inUse(path):
                CodedError(.socketInUse, "another clupd is already answering on \(path); not taking it over")
            case let .failed(path, step, detail):
                CodedError(.cannotListen, "cannot listen on \(path): \(step): \(detail)")
            }
        }
    }

    /// The process at the other end of a connection, as the kernel vouches for it.
    struct Peer {
        let pid: Int32
        let uid: UInt32
        let gid: UInt32
        /// Its supplementary groups when it connected.
        let groups: [gid_t]

        /// The caller's login name, or `uid N` when it has none; recorded with corrections.
        var userName: String {
            guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
            return String(cString: name)
        }

        /// What the caller says of itself with the request (`CallerClaim`), set by the router.
        var claim: CallerClaim?

        /// Where the call came from, for the audit trail: what the kernel vouches for, then
        /// what the caller says ("pid 4711, uid 0 (root); says clupctl on pts/1, login tess
        /// (uid 1000)"). Under clupd's unit /proc shows nothing of other users' processes and
        /// their uids come through as nobody's, so the caller's own say is what names them.
        var origin: String {
            let vouched = "pid \(pid), uid \(uid) (\(userName))"
            guard let said = claim?.description, !said.isEmpty else { return vouched }
            return vouched + "; says " + said
        }
    }

    static let maxRequestBytes = 64 * 1024
    /// How long a client has to send its whole request.
    static let requestSeconds = 2.0
    /// How long a client has to read its whole reply.
    static let replySeconds = 10.0
    static let maxConnections = 64

    let path: String
    private let fd: Int32
    private let allowedGroup: gid_t?
    private let logger: Logger
    private var connections: [Int32: ControlConnection] = [:]
    /// Numbers connections in the order they were accepted.
    private var accepted = 0
    /// Connections dropped to make room and not yet logged: a flood of connections is
    /// logged once every `floodLogSeconds`, not once per connection.
    private var droppedSinceLog = 0
    private var floodLogTimer: EventLoop.TimerID?
    static let floodLogSeconds = 10.0
    private var loop: EventLoop?
    private var handle: ((Data, Peer) -> ControlAnswer)?
    /// Told of each caller refused for want of permission (for the audit trail).
    var onRefused: ((Peer?) -> Void)?

    /// Binds `path`. A stale socket file left by a dead daemon is replaced; one a live
    /// daemon answers on is not.
    init(path: String, allowedGroup: gid_t?, logger: Logger) throws {
        self.path = path
        self.allowedGroup = allowedGroup
        self.logger = logger
        let address = try UnixSocketAddress(path)
        if ControlClient.isAnswering(path) { throw ListenError.inUse(path: path) }
        if FileManager.default.fileExists(atPath: path) {
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else {
                throw ListenError.failed(path: path, step: "checking the old file",
                                         detail: "it exists and is not a socket")
            }
            unlink(path)
        }
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw ListenError.failed(path: path, step: "socket", detail: systemError()) }
        let bound = address.withSockaddr { bind(fd, $0, $1) }
        guard bound == 0 else {
            let detail = systemError()
            Glibc.close(fd)
            throw ListenError.failed(path: path, step: "bind", detail: detail)
        }
        // Access is decided per connection by peer credentials; the file mode keeps out
        // everyone who is neither owner nor group.
        chmod(path, allowedGroup == nil ? 0o600 : 0o660)
        if let allowedGroup, allowedGroup != getegid() { chown(path, getuid(), allowedGroup) }
        guard listen(fd, 128) == 0 else {
            let detail = systemError()
            Glibc.close(fd)
            throw ListenError.failed(path: path, step: "listen", detail: detail)
        }
    }

    /// Serves connections on `loop`; `handle` answers a request's bytes (see `ControlRouter`).
    func start(on loop: EventLoop, handle: @escaping (Data, Peer) -> ControlAnswer) {
        self.loop = loop
        self.handle = handle
        loop.watch(fd) { [unowned self] in self.acceptAll() }
    }

    /// Stops listening, drops the open connections and removes the socket file.
    func stopListening() {
        loop?.unwatch(fd)
        for fd in Array(connections.keys) { drop(fd) }
        Glibc.close(fd)
        unlink(path)
    }

    private func acceptAll() {
        while true {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }   // EAGAIN: none left; anything else: the client is gone
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            if connections.count >= Self.maxConnections { dropOldestWaiting() }
            open(client)
        }
    }

    private func open(_ client: Int32) {
        guard let loop else { Glibc.close(client); return }
        accepted += 1
        let connection = ControlConnection(fd: client, peer: Self.peer(of: client), serial: accepted)
        connections[client] = connection
        connection.deadline = loop.schedule(after: Self.requestSeconds) { [unowned self] in
            self.timedOut(client)
        }
        loop.watch(client) { [unowned self] in self.readable(client) }
        // A client usually sends its request as soon as it connects: read it now, so that
        // a burst of connections cannot push it out before it is served.
        readable(client)
    }

    private func readable(_ client: Int32) {
        guard let connection = connections[client] else { return }
        switch connection.read(limit: Self.maxRequestBytes) {
        case .needMore:
            return
        case let .request(body):
            loop?.unwatch(client)
            switch answer(body, connection: connection) {
            case let .now(data): reply(to: connection, with: data)
            case let .later(pending): wait(for: pending, on: connection)
            }
        case .tooLong:
            loop?.unwatch(client)
            reply(to: connection, with: ControlCoding.failure(CodedError(.noRequest, "a request over \(Self.maxRequestBytes) bytes")))
        case .closed:
            drop(client)
        }
    }

    private func timedOut(_ client: Int32) {
        guard let connection = connections[client] else { return }
        connection.deadline = nil
        if connection.isReplying {
            logger.warning("control: a client did not read its reply in time", metadata: ["pid": "\(connection.peer?.pid ?? 0)"])
            drop(client)
        } else {
            loop?.unwatch(client)
            reply(to: connection, with: ControlCoding.failure(CodedError(.noRequest, "no request within \(Int(Self.requestSeconds)) s")))
        }
    }

    private func answer(_ body: Data, connection: ControlConnection) -> ControlAnswer {
        guard let peer = connection.peer, isAllowed(peer) else {
            logger.warning("control: refused a caller without permission", metadata: ["peer": "\(String(describing: connection.peer))"])
            onRefused?(connection.peer)
            return .now(ControlCoding.failure(CodedError(.permissionDenied, "permission denied: not root, clupd's user or the control group")))
        }
        guard let handle else { return .now(ControlCoding.failure(CodedError(.stopping, "clupd is stopping"))) }
        return handle(body, peer)
    }

    /// Keeps the connection while slow work goes on: the reply is sent when it is done; if
    /// the client goes away or the work overruns its time first, the work is cancelled.
    private func wait(for pending: any PendingWork, on connection: ControlConnection) {
        guard let loop else { return }
        connection.pending = pending
        loop.cancel(connection.deadline)
        connection.deadline = loop.schedule(after: pending.seconds) { [unowned self] in
            guard connections[connection.fd] === connection, connection.pending != nil else { return }
            connection.deadline = nil
            pending.fail(CodedError(.workTimedOut, "clupd did not finish \(pending.what) within \(Int(pending.seconds)) s"))
        }
        // The client says nothing more; end of file means it went away.
        loop.watch(connection.fd) { [unowned self] in
            if connection.peerClosed() { drop(connection.fd) }
        }
        pending.whenDone { [unowned self] reply in
            guard connections[connection.fd] === connection else { return }
            connection.pending = nil
            loop.unwatch(connection.fd)
            self.reply(to: connection, with: reply)
        }
    }

    /// Writes `reply` as the client takes it, then closes the connection.
    private func reply(to connection: ControlConnection, with reply: Data) {
        guard let loop else { return }
        connection.startReply(reply)
        loop.cancel(connection.deadline)
        connection.deadline = loop.schedule(after: Self.replySeconds) { [unowned self] in self.timedOut(connection.fd) }
        writable(connection.fd)
        if connections[connection.fd] != nil {
            loop.watchWritable(connection.fd) { [unowned self] in self.writable(connection.fd) }
        }
    }

    private func writable(_ client: Int32) {
        guard let connection = connections[client] else { return }
        switch connection.write() {
        case .needMore: return
        case .done, .closed: drop(client)
        }
    }

    private func dropOldestWaiting() {
        let waiting = connections.values.filter { !$0.isReplying && $0.pending == nil }
        guard let oldest = (waiting.isEmpty ? Array(connections.values) : waiting).min(by: { $0.serial < $1.serial }) else { return }
        droppedSinceLog += 1
        if floodLogTimer == nil {
            logFlood()
        }
        if !oldest.isReplying {
            oldest.startReply(ControlCoding.failure(CodedError(.tooManyConnections, "too many open connections; try again")))
            _ = oldest.write()
        }
        drop(oldest.fd)
    }

    /// Logs the connections dropped since the last time, then again after a while if more were.
    private func logFlood() {
        guard droppedSinceLog > 0 else {
            floodLogTimer = nil
            return
        }
        logger.warning("control: too many open connections; dropped the oldest", metadata: ["dropped": "\(droppedSinceLog)"])
        droppedSinceLog = 0
        floodLogTimer = loop?.schedule(after: Self.floodLogSeconds) { [unowned self] in self.logFlood() }
    }

    private func drop(_ client: Int32) {
        guard let connection = connections.removeValue(forKey: client) else { return }
        if let pending = connection.pending {
            connection.pending = nil
            pending.cancel()
        }
        loop?.unwatch(client)
        loop?.cancel(connection.deadline)
        Glibc.close(client)
    }

    private func isAllowed(_ peer: Peer) -> Bool {
        if peer.uid == 0 || peer.uid == getuid() { return true }
        guard let allowedGroup else { return false }
        return peer.gid == allowedGroup || peer.groups.contains(allowedGroup)
    }

    static func peer(of client: Int32) -> Peer? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }
        var credentials = [Int32](repeating: 0, count: 3)
        var length = socklen_t(MemoryLayout<Int32>.size * 3)
        guard getsockopt(client, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return Peer(pid: credentials[0], uid: UInt32(bitPattern: credentials[1]), gid: UInt32(bitPattern: credentials[2]),
                    groups: supplementaryGroups(of: client))
    }

    /// The caller's supplementary groups, as the kernel recorded them when it connected
    /// (SO_PEERGROUPS, Linux 4.13): not read from `/proc/PID/status`, which the unit's
    /// ProtectProc=invisible hides and whose pid may be another process by then.
    static func supplementaryGroups(of client: Int32) -> [gid_t] {
        let SO_PEERGROUPS: Int32 = 59
        var groups = [gid_t](repeating: 0, count: 64)
        var length = socklen_t(MemoryLayout<gid_t>.size * groups.count)
        if getsockopt(client, SOL_SOCKET, SO_PEERGROUPS, &groups, &length) != 0 {
            // ERANGE: more groups than room; length now says how many bytes they take.
            guard errno == ERANGE, Int(length) <= MemoryLayout<gid_t>.size * 65536 else { return [] }
            groups = [gid_t](repeating: 0, count: Int(length) / MemoryLayout<gid_t>.size)
            guard getsockopt(client, SOL_SOCKET, SO_PEERGROUPS, &groups, &length) == 0 else { return [] }
        }
        return Array(groups.prefix(Int(length) / MemoryLayout<gid_t>.size))
    }

}

/// What the router answers: the reply's line now, or later when slow work is done.
enum ControlAnswer {
    case now(Data)
    case later(any PendingWork)
}

/// Slow work the server waits for on a connection, whatever its reply's type.
protocol PendingWork: AnyObject {
    /// What is being done, for the timeout's message ("the self-test of the turnstile").
    var what: String { get }
    /// How long the work may take before the client is told it timed out.
    var seconds: Double { get }
    /// `deliver` gets the reply's line once the work is done (at once if it is already).
    func whenDone(_ deliver: @escaping (Data) -> Void)
    /// The work overran: the client is told why.
    func fail(_ error: Error)
    /// The client went away before the reply (or the server stops).
    func cancel()
}

/// A reply of type `Reply` still being worked out (a secret checked on a worker, a device
/// waited for). The work calls `finish` once; if the client goes away first, `onCancel` is
/// called instead, so the work can stop and give back what it holds.
final class PendingReply<Reply: Encodable>: PendingWork {
    let what: String
    let seconds: Double
    /// Called once, when the client went away before the reply (or the server stops).
    var onCancel: (() -> Void)?
    /// Observers of the outcome (the audit trail), called before the reply is sent.
    private var observers: [(Result<Reply, Error>) -> Void] = []
    private var deliver: ((Data) -> Void)?
    /// A reply that came before the server was waiting for it.
    private var early: Data?
    private(set) var isDone = false

    init(_ what: String, seconds: Double) {
        self.what = what
        self.seconds = seconds
    }

    func observe(_ observer: @escaping (Result<Reply, Error>) -> Void) { observers.append(observer) }

    /// The work is done: the client gets `result` (if it is still there).
    func finish(_ result: Result<Reply, Error>) {
        guard !isDone else { return }
        isDone = true
        for observer in observers { observer(result) }
        onCancel = nil
        let line: Data
        switch result {
        case let .success(reply):
            line = (try? ControlCoding.success(reply))
                ?? ControlCoding.failure(CodedError(.internalError, "the reply to \(what) could not be written"))
        case let .failure(error):
            line = ControlCoding.failure(CodedError(describing: error))
        }
        if let deliver {
            self.deliver = nil
            deliver(line)
        } else {
            early = line
        }
    }

    func whenDone(_ deliver: @escaping (Data) -> Void) {
        if let early {
            self.early = nil
            deliver(early)
        } else {
            self.deliver = deliver
        }
    }

    func fail(_ error: Error) { finish(.failure(error)) }

    func cancel() {
        guard !isDone else { return }
        isDone = true
        let cancelled = onCancel
        onCancel = nil
        deliver = nil
        cancelled?()
        for observer in observers { observer(.failure(CodedError(.noRequest, "the client went away before the reply"))) }
    }
}
