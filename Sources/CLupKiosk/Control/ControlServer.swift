import Foundation
import Logging

/// Listens on `clupd`'s Unix control socket and answers one request per connection.
///
/// Who may call is checked with the kernel's peer credentials (`SO_PEERCRED`): root,
/// clupd's own user, or members of the configured control group.
final class ControlServer {
    /// Why the socket could not be opened.
    enum ListenError: Error, CustomStringConvertible {
        case inUse(path: String)
        case failed(path: String, step: String, detail: String)

        var description: String {
            switch self {
            case let .inUse(path):
                "E-CTL-001 another clupd is already answering on \(path); not taking it over"
            case let .failed(path, step, detail):
                "E-CTL-002 cannot listen on \(path): \(step): \(detail)"
            }
        }
    }

    /// The process at the other end of a connection, as the kernel vouches for it.
    struct Peer {
        let pid: Int32
        let uid: UInt32
        let gid: UInt32

        /// The caller's login name, or `uid N` when it has none; recorded with corrections.
        var userName: String {
            guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
            return String(cString: name)
        }
    }

    static let maxRequestBytes = 64 * 1024

    let path: String
    private let fd: Int32
    private let allowedGroup: gid_t?
    private let logger: Logger

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
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
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
        guard listen(fd, 16) == 0 else {
            let detail = systemError()
            Glibc.close(fd)
            throw ListenError.failed(path: path, step: "listen", detail: detail)
        }
    }

    /// Serves connections on `loop`; `handle` returns the JSON of a successful result.
    func start(on loop: EventLoop, handle: @escaping (ControlRequest, Peer) throws -> Data) {
        loop.watch(fd) { [unowned self] in
            self.acceptOne(handle: handle)
        }
    }

    /// Stops listening and removes the socket file.
    func stopListening() {
        Glibc.close(fd)
        unlink(path)
    }

    private func acceptOne(handle: (ControlRequest, Peer) throws -> Data) {
        let client = accept(fd, nil, nil)
        guard client >= 0 else { return }
        defer { Glibc.close(client) }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        // A client that connects and says nothing, or trickles, must not hold up the kiosk:
        // each read waits half a second at most, a whole request two seconds.
        var timeout = timeval(tv_sec: 0, tv_usec: 500_000)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        let reply: Data
        if let peer = Self.peer(of: client), isAllowed(peer) {
            reply = answer(readRequest(client), peer: peer, handle: handle)
        } else {
            logger.warning("control: refused a caller without permission", metadata: ["peer": "\(String(describing: Self.peer(of: client)))"])
            reply = Self.failure(ControlFailure(code: "E-CTL-003", message: "permission denied: not root, clupd's user or the control group"))
        }
        _ = reply.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    private func answer(_ body: Data?, peer: Peer, handle: (ControlRequest, Peer) throws -> Data) -> Data {
        guard let body else {
            return Self.failure(ControlFailure(code: "E-CTL-004", message: "no request, or a request over \(Self.maxRequestBytes) bytes"))
        }
        let request: ControlRequest
        do {
            request = try JSONDecoder().decode(ControlRequest.self, from: body)
        } catch {
            return Self.failure(ControlFailure(code: "E-CTL-005", message: "not a control request this clupd understands"))
        }
        logger.info("control: \(request)", metadata: ["uid": "\(peer.uid)", "pid": "\(peer.pid)"])
        do {
            return Data(#"{"ok":true,"result":"#.utf8) + (try handle(request, peer)) + Data("}\n".utf8)
        } catch {
            return Self.failure(ControlFailure(error))
        }
    }

    /// Reads up to the first newline (or the end of the stream).
    private func readRequest(_ client: Int32) -> Data? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(2)
        while data.count <= Self.maxRequestBytes, Date() < deadline {
            let count = recv(client, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
            if let newline = data.firstIndex(of: 0x0A) { return data[..<newline] }
        }
        return data.isEmpty || data.count > Self.maxRequestBytes ? nil : data
    }

    private func isAllowed(_ peer: Peer) -> Bool {
        if peer.uid == 0 || peer.uid == getuid() { return true }
        guard let allowedGroup else { return false }
        return peer.gid == allowedGroup || Self.supplementaryGroups(of: peer.pid).contains(allowedGroup)
    }

    static func peer(of client: Int32) -> Peer? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }
        var credentials = [Int32](repeating: 0, count: 3)
        var length = socklen_t(MemoryLayout<Int32>.size * 3)
        guard getsockopt(client, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return Peer(pid: credentials[0], uid: UInt32(bitPattern: credentials[1]), gid: UInt32(bitPattern: credentials[2]))
    }

    /// The caller's supplementary groups, from `/proc/PID/status` (the kernel gives only
    /// the primary group with the credentials).
    static func supplementaryGroups(of pid: Int32) -> [gid_t] {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Groups:") })
        else { return [] }
        return line.dropFirst("Groups:".count).split(whereSeparator: \.isWhitespace).compactMap { gid_t($0) }
    }

    static func failure(_ failure: ControlFailure) -> Data {
        let encoded = (try? JSONEncoder().encode(failure)) ?? Data("{}".utf8)
        return Data(#"{"ok":false,"error":"#.utf8) + encoded + Data("}\n".utf8)
    }
}
