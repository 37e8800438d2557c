import CLupCore
import Foundation

/// Talks to `clupd` over its control socket: one request, one reply.
public struct ControlClient: Sendable {
    /// The default socket, as the systemd unit's `RuntimeDirectory=clup` creates it.
    public static let defaultSocketPath = "/run/clup/control.sock"

    /// Why a request got no answer.
    public enum ConnectionError: Error, CodedErrorConvertible, Equatable {
        case daemonNotRunning(path: String, detail: String)
        case permissionDenied(path: String)
        case badReply(String)

        public var coded: CodedError {
            switch self {
            case let .daemonNotRunning(path, detail):
                CodedError(.daemonNotRunning, "clupd is not running (no answer on \(path): \(detail))")
            case let .permissionDenied(path):
                CodedError(.permissionDenied, "permission denied on \(path): run as root, clupd's user or a member of its control group")
            case let .badReply(detail):
                CodedError(.replyNotUnderstood, "clupd sent a reply this clupctl does not understand: \(detail)")
            }
        }
    }

    public let socketPath: String
    /// The technician's session, sent with every request.
    public var session: String?
    /// How long to wait for the reply (a self-test step waits for the device).
    public var timeoutSeconds: Int

    public init(socketPath: String = Self.defaultSocketPath, session: String? = nil, timeoutSeconds: Int = 30) {
        self.socketPath = socketPath
        self.session = session
        self.timeoutSeconds = timeoutSeconds
    }

    /// Sends `command` and returns its reply; a refusal throws its `CodedError`.
    /// `quiet`: the shell's own request (prompt, completion), not audited.
    public func send<Command: ControlCommand>(_ command: Command, quiet: Bool = false) throws -> Command.Reply {
        let data = try exchange(try ControlCoding.request(command, session: session, quiet: quiet, caller: .current) + Data("\n".utf8))
        let reply: ReplyEnvelope<Command.Reply>
        do {
            reply = try ControlCoding.decoder().decode(ReplyEnvelope<Command.Reply>.self, from: data)
        } catch {
            throw ConnectionError.badReply(String(describing: error))
        }
        if let failure = reply.error { throw failure }
        guard reply.ok, let result = reply.result else { throw ConnectionError.badReply("no result") }
        return result
    }

    /// Whether a daemon accepts connections on `path`.
    public static func isAnswering(_ path: String) -> Bool {
        guard let fd = try? connected(path) else { return false }
        close(fd)
        return true
    }

    private func exchange(_ request: Data) throws -> Data {
        let fd = try Self.connected(socketPath)
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let sent = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { throw ConnectionError.daemonNotRunning(path: socketPath, detail: String(cString: strerror(errno))) }
        var reply = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count < 0 {
                let code = errno
                if code == EAGAIN || code == EWOULDBLOCK {
                    throw ConnectionError.badReply("no reply within \(timeoutSeconds) s")
                }
                throw ConnectionError.badReply("reading: \(String(cString: strerror(code)))")
            }
            if count == 0 { break }
            reply.append(contentsOf: buffer[0..<count])
        }
        return reply
    }

    private static func connected(_ path: String) throws -> Int32 {
        let address = try UnixSocketAddress(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ConnectionError.daemonNotRunning(path: path, detail: String(cString: strerror(errno))) }
        guard address.withSockaddr({ connect(fd, $0, $1) }) == 0 else {
            let code = errno
            close(fd)
            if code == EACCES || code == EPERM { throw ConnectionError.permissionDenied(path: path) }
            throw ConnectionError.daemonNotRunning(path: path, detail: String(cString: strerror(code)))
        }
        return fd
    }
}
