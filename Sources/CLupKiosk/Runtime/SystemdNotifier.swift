import CLupProtocol
import Foundation

/// Speaks systemd's notify protocol: `READY=1`, `WATCHDOG=1`, `STATUS=…`, `STOPPING=1`
/// as datagrams to `$NOTIFY_SOCKET`. Does nothing when not started by systemd.
struct SystemdNotifier {
    let socketPath: String?
    /// How often to pet the watchdog: half of `WatchdogSec`, or nil when it is off.
    let watchdogInterval: Double?

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        if forUs, let usec = environment["WATCHDOG_USEC"].flatMap(Double.init), usec > 0 {
            watchdogInterval = usec / 1_000_000 / 2
        } else {
            watchdogInterval = nil
        }
    }

    /// Sends `state` (lines of `KEY=value`); failures are returned, not thrown, since a
    /// missing notification must not stop the kiosk.
    @discardableResult
    func notify(_ state: String) -> Bool {
        guard let socketPath, let address = try? UnixSocketAddress(socketPath) else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(state.utf8)
        let sent = address.withSockaddr { pointer, length in
            sendto(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL), pointer, length)
        }
        return sent == bytes.count
    }
}
