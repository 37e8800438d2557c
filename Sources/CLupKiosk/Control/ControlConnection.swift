import CLupProtocol
import Foundation

/// One client of the control socket: the request read so far, then the reply written so
/// far. Reads and writes never block (the socket is non-blocking); the server calls them
/// when the loop says the socket is ready.
final class ControlConnection {
    /// What a read brought.
    enum ReadResult: Equatable {
        case needMore
        /// The request, up to (without) its newline, or all the client sent before closing.
        case request(Data)
        case tooLong
        /// The client went away without a request.
        case closed
    }

    /// What a write did.
    enum WriteResult: Equatable {
        case needMore
        case done
        /// The client went away before reading all of its reply.
        case closed
    }

    let fd: Int32
    /// Who is calling, as the kernel says; nil when it could not tell.
    let peer: ControlServer.Peer?
    /// The order in which the server accepted it.
    let serial: Int
    var deadline: EventLoop.TimerID?
    /// Slow work whose reply is awaited.
    var pending: (any PendingWork)?
    private var received = Data()
    private var reply = Data()
    private var sent = 0
    private(set) var isReplying = false

    init(fd: Int32, peer: ControlServer.Peer?, serial: Int) {
        self.fd = fd
        self.peer = peer
        self.serial = serial
    }

    /// Reads what the client has sent, without waiting for more.
    func read(limit: Int) -> ReadResult {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 {
                return received.isEmpty ? .closed : .request(received)
            }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .needMore }
                return .closed
            }
            received.append(contentsOf: buffer[0..<count])
            if let newline = received.firstIndex(of: 0x0A) {
                return newline - received.startIndex > limit ? .tooLong : .request(received[..<newline])
            }
            if received.count > limit { return .tooLong }
        }
    }

    /// Whether the client closed its end while its reply was being worked out (what it sent
    /// after its request is read and ignored).
    func peerClosed() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { return true }
            if count < 0 { return !(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) }
        }
    }

    /// Starts sending `data`; the request is no longer read.
    func startReply(_ data: Data) {
        reply = data
        sent = 0
        isReplying = true
    }

    /// Sends as much of the reply as the socket takes now.
    func write() -> WriteResult {
        while sent < reply.count {
            let count = reply.withUnsafeBytes { bytes in
                send(fd, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .needMore }
                return .closed
            }
            sent += count
        }
        return .done
    }
}
