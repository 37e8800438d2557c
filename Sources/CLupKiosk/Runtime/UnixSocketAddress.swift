import Foundation

/// A `sockaddr_un` for a filesystem path, or an abstract name written `@name`.
struct UnixSocketAddress {
    /// The address is too long for `sun_path`.
    struct TooLong: Error, CustomStringConvertible {
        let path: String
        var description: String { "E-CTL-009 socket path too long (\(path.utf8.count) bytes): \(path)" }
    }

    private(set) var storage = sockaddr_un()
    let length: socklen_t

    init(_ path: String) throws(TooLong) {
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        guard bytes.count < capacity else { throw TooLong(path: path) }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
    }

    /// Calls `body` with the address as a `sockaddr` pointer.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}

/// The text of the current `errno`.
func systemError() -> String {
    String(cString: strerror(errno))
}

/// A non-blocking, close-on-exec pipe: `(read end, write end)`.
func makeWakePipe() -> (read: Int32, write: Int32) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { preconditionFailure("pipe: \(systemError())") }
    for fd in ends {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    return (ends[0], ends[1])
}
