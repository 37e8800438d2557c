import CLupCore
import Foundation

/// A QR scanner on a serial line (`/dev/serial/by-id/…`, a USB CDC-ACM or RS-232 port) in
/// raw mode: one code per line, ended by CR and/or LF. Reopened while it is missing.
public final class SerialDoorReader: DoorReader {
    public var onRead: ((WedgeDecoder.Output) -> Void)?
    public let path: String
    let baudRate: speed_t
    let loop: DeviceRunLoop
    let retryInterval: Double
    private var fd: Int32 = -1
    private var decoder = LineDecoder()
    private var problem = "not opened yet"
    private let started = Date()

    public init(path: String, baudRate: speed_t = speed_t(B9600), loop: DeviceRunLoop, retryInterval: Double = 0.5) {
        self.path = path
        self.baudRate = baudRate
        self.loop = loop
        self.retryInterval = retryInterval
    }

    public var health: DeviceHealth {
        fd >= 0
            ? DeviceHealth(role: "door-reader", backend: "serial", state: .ok, detail: path)
            : DeviceHealth(role: "door-reader", backend: "serial", state: .missing, detail: "\(path): \(problem)")
    }

    public var isConnected: Bool { fd >= 0 }

    public func start() {
        guard fd < 0 else { return }
        let opened = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard opened >= 0 else { return retry(String(cString: strerror(errno))) }
        var settings = termios()
        guard tcgetattr(opened, &settings) == 0 else {
            let reason = String(cString: strerror(errno))
            close(opened)
            return retry("not a serial line (\(reason))")
        }
        // Raw: no echo, no line editing, no CR/LF translation, 8 data bits.
        cfmakeraw(&settings)
        cfsetispeed(&settings, baudRate)
        cfsetospeed(&settings, baudRate)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        tcsetattr(opened, TCSANOW, &settings)
        fd = opened
        decoder = LineDecoder()
        loop.watch(opened) { [weak self] in self?.readAvailable() }
    }

    public func stop() {
        guard fd >= 0 else { return }
        loop.unwatch(fd)
        close(fd)
        fd = -1
    }

    private func retry(_ reason: String) {
        problem = reason
        loop.after(retryInterval) { [weak self] in self?.start() }
    }

    private var now: Double { Date().timeIntervalSince(started) }

    private func readAvailable() {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = read(fd, &buffer, buffer.count)
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
        guard count > 0 else {
            // The port vanished (EIO on a USB serial device unplugged, or the pty's other end closed).
            stop()
            return retry("gone (\(count == 0 ? "closed" : String(cString: strerror(errno)))); retrying")
        }
        let time = now
        for output in decoder.feed(buffer[0..<count], at: time) { onRead?(output) }
        guard decoder.isPartial else { return }
        loop.after(decoder.interByteTimeout + 0.05) { [weak self] in
            guard let self else { return }
            for output in decoder.expire(at: time + decoder.interByteTimeout + 0.05) { onRead?(output) }
        }
    }
}
