import CLupCore
import Foundation

/// A `sockaddr_un` for a filesystem path, or an abstract name written `@name`.
public struct UnixSocketAddress {
    /// The address is too long for `sun_path`.
    public struct TooLong: Error, CodedErrorConvertible {
        public let path: String
        public var coded: CodedError {
            CodedError(.socketPathTooLong, "socket path too long (\(path.utf8.count) bytes): \(path)")
        }
    }

    private(set) var storage = sockaddr_un()
    public let length: socklen_t

    public init(_ path: String) throws(TooLong) {
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
    public func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
