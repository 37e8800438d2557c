#if canImport(Glibc)
import Glibc
#endif

/// Where cupsd listens.
public enum IPPServerAddress: Sendable, Equatable, CustomStringConvertible {
    case unix(path: String)
    case tcp(host: String, port: UInt16)

    /// As libcups reads it: `CUPS_SERVER`, a socket's path or `host[:port]` (631 unless
    /// given); without it, cupsd's socket `/run/cups/cups.sock`.
    public static func fromEnvironment(_ value: String?) -> IPPServerAddress {
        guard let value, !value.isEmpty else { return .unix(path: "/run/cups/cups.sock") }
        if value.hasPrefix("/") { return .unix(path: value) }
        // host, host:port, [v6]:port; a port that is not a number is left to the host's
        // lookup, which fails with the name shown.
        if let colon = value.lastIndex(of: ":"), !value[colon...].contains("]"),
           let port = UInt16(value[value.index(after: colon)...]) {
            return .tcp(host: String(value[..<colon]).trimmingCharacters(["[", "]"]), port: port)
        }
        return .tcp(host: value.trimmingCharacters(["[", "]"]), port: 631)
    }

    public var description: String {
        switch self {
        case let .unix(path): path
        case let .tcp(host, port): "\(host):\(port)"
        }
    }
}

/// Why a request got no IPP answer.
public enum IPPClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No connection, or no answer in time: cupsd is down or stuck.
    case unreachable(String)
    /// An answer, but not an IPP one clupd can read, or an HTTP error.
    case badAnswer(String)

    public var description: String {
        switch self {
        case let .unreachable(detail), let .badAnswer(detail): detail
        }
    }
}

/// Sends IPP requests to cupsd over HTTP/1.1, one connection per request, as libcups would:
/// `POST` with `Content-Type: application/ipp`, the document after the request's bytes. Over
/// cupsd's Unix socket, an operation cupsd wants to know the user for (cancelling a job under
/// the default policy) is sent again with the caller's peer credentials, when cupsd offers
/// them. Blocking: callers run it off their event loop.
public struct IPPClient: Sendable {
    public let server: IPPServerAddress
    /// How long one request may take, connecting to the last byte of the answer. A host's
    /// name (`CUPS_SERVER=host`) is looked up before, for as long as the resolver takes.
    public let timeoutSeconds: Int
    /// The largest answer body read: a Get-Jobs of 500 ended jobs is some 150 KB.
    public static let answerLimit = 2 * 1024 * 1024
    /// The most bytes read for one answer, its framing included (interim answers, chunk
    /// sizes and their extensions): past it the answer is refused, whatever it holds.
    public static let receiveLimit = answerLimit + 256 * 1024

    public init(server: IPPServerAddress, timeoutSeconds: Int = 30) {
        self.server = server
        self.timeoutSeconds = timeoutSeconds
    }

    /// The user the requests name (`requesting-user-name`): `CUPS_USER`, else the process's
    /// user from the password database, as libcups has it.
    public static func user(_ environment: String?) -> String {
        if let environment, !environment.isEmpty { return environment }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else {
            return "anonymous"
        }
        return String(cString: name)
    }

    /// Sends `request` (and `document`, the job's bytes, after it) to `path` ("/", or a
    /// queue's "/printers/NAME") and returns cupsd's answer, whatever its IPP status.
    public func send(_ request: IPPRequest, to path: String, document: [UInt8] = [], user: String) throws(IPPClientError) -> IPPResponse {
        let body = request.encoded() + document
        let deadline = Deadline(seconds: timeoutSeconds)
        var answer = try exchange(path: path, body: body, authorization: nil, deadline: deadline)
        if answer.status == 401, case .unix = server, answer.field("www-authenticate")?.contains("PeerCred") == true {
            answer = try exchange(path: path, body: body, authorization: "PeerCred \(user)", deadline: deadline)
        }
        guard answer.status == 200 else {
            throw .badAnswer("cupsd answered HTTP \(answer.status)")
        }
        do {
            return try IPPResponse(parsing: answer.body)
        } catch {
            throw .badAnswer("cupsd's answer is not IPP: \(error)")
        }
    }

    private func exchange(path: String, body: [UInt8], authorization: String?, deadline: Deadline) throws(IPPClientError) -> HTTPAnswer {
        let socket = try connect(deadline: deadline)
        defer { close(socket) }
        let host = switch server {
        case .unix: "localhost"
        case let .tcp(host, port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }
        var header = "POST \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/ipp\r\n"
        header += "Content-Length: \(body.count)\r\nConnection: close\r\n"
        if let authorization { header += "Authorization: \(authorization)\r\n" }
        header += "\r\n"
        do throws(IPPClientError) {
            try write(Array(header.utf8) + body, to: socket, deadline: deadline)
        } catch {
            // cupsd may answer (401, 413) and close without reading a whole document: that
            // answer, if it came, says more than the broken pipe.
            guard let answer = try? readAnswer(from: socket, deadline: deadline) else { throw error }
            return answer
        }
        return try readAnswer(from: socket, deadline: deadline)
    }

    private func readAnswer(from socket: Int32, deadline: Deadline) throws(IPPClientError) -> HTTPAnswer {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            try wait(for: socket, events: Int16(POLLIN), deadline: deadline, doing: "waiting for cupsd's answer")
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .unreachable("reading cupsd's answer from \(server): \(String(cString: strerror(errno)))")
            }
            received += chunk[0..<count]
            guard received.count <= Self.receiveLimit else {
                throw .badAnswer("cupsd's answer is longer than \(Self.receiveLimit) bytes")
            }
            do {
                if let answer = try HTTPAnswer.parse(received, atEnd: count == 0, bodyLimit: Self.answerLimit) { return answer }
                if count == 0 { throw HTTPAnswerError("the connection closed before the answer was whole") }
            } catch {
                throw .badAnswer("cupsd's answer: \(error)")
            }
        }
    }

    private func connect(deadline: Deadline) throws(IPPClientError) -> Int32 {
        switch server {
        case let .unix(path):
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
                throw .unreachable("the socket path \(path) is too long")
            }
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            while true {
                let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                guard socket >= 0 else { throw .unreachable("socket: \(String(cString: strerror(errno)))") }
                let result = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                }
                // A Unix socket whose backlog is full refuses at once (EAGAIN), connecting
                // nothing: tried again every 10 ms until the deadline.
                guard result != 0, errno == EAGAIN else { return try finishConnecting(socket, result: result, deadline: deadline) }
                close(socket)
                guard deadline.millisecondsLeft > 10 else {
                    throw .unreachable("cupsd at \(server) took no connection within \(timeoutSeconds) s (its backlog full)")
                }
                usleep(10_000)
            }
        case let .tcp(host, port):
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var found: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, String(port), &hints, &found)
            guard status == 0, let first = found else {
                throw .unreachable("cannot find \(host): \(String(cString: gai_strerror(status)))")
            }
            defer { freeaddrinfo(found) }
            var lastError: IPPClientError = .unreachable("no address for \(host)")
            for entry in sequence(first: first, next: { $0.pointee.ai_next }) {
                let info = entry.pointee
                let socket = Glibc.socket(info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), info.ai_protocol)
                guard socket >= 0 else { continue }
                do {
                    return try finishConnecting(socket, result: Glibc.connect(socket, info.ai_addr, info.ai_addrlen), deadline: deadline)
                } catch {
                    lastError = error
                }
            }
            throw lastError
        }
    }

    /// Waits out a non-blocking connect; closes `socket` if it fails.
    private func finishConnecting(_ socket: Int32, result: Int32, deadline: Deadline) throws(IPPClientError) -> Int32 {
        do throws(IPPClientError) {
            if result != 0 {
                guard errno == EINPROGRESS else {
                    throw IPPClientError.unreachable("cannot connect to \(server): \(String(cString: strerror(errno)))")
                }
                try wait(for: socket, events: Int16(POLLOUT), deadline: deadline, doing: "connecting")
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length)
                guard error == 0 else { throw IPPClientError.unreachable("cannot connect to \(server): \(String(cString: strerror(error)))") }
            }
            return socket
        } catch {
            close(socket)
            throw error
        }
    }

    private func write(_ bytes: [UInt8], to socket: Int32, deadline: Deadline) throws(IPPClientError) {
        var offset = 0
        while offset < bytes.count {
            try wait(for: socket, events: Int16(POLLOUT), deadline: deadline, doing: "sending the request")
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .unreachable("sending to \(server): \(String(cString: strerror(errno)))")
            }
            offset += count
        }
    }

    private func wait(for socket: Int32, events: Int16, deadline: Deadline, doing: String) throws(IPPClientError) {
        while true {
            let left = deadline.millisecondsLeft
            guard left > 0 else { throw .unreachable("cupsd at \(server) gave no answer within \(timeoutSeconds) s (\(doing))") }
            var entry = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(clamping: left))
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw .unreachable("poll: \(String(cString: strerror(errno)))") }
        }
    }
}

/// A point in CLOCK_MONOTONIC time.
struct Deadline {
    private let end: Int64

    init(seconds: Int) {
        end = Self.nowMilliseconds() + Int64(seconds) * 1000
    }

    var millisecondsLeft: Int64 { end - Self.nowMilliseconds() }

    private static func nowMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}

extension String {
    func trimmingCharacters(_ characters: Set<Character>) -> String {
        String(drop { characters.contains($0) }.reversed().drop { characters.contains($0) }.reversed())
    }
}
