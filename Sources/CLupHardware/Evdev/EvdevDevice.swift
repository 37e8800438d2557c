import CEvdev
import Foundation

/// An evdev node (`/dev/input/event*` or a stable udev link, or a pipe standing in for
/// one), read on the daemon's loop: grabbed, cut into events, and opened again every
/// `retryInterval` seconds while it is missing, so unplugging and plugging back recovers.
public final class EvdevDevice {
    public let path: String
    let loop: DeviceRunLoop
    let retryInterval: Double
    /// Called with the events of each read.
    var onEvents: (([InputEvent]) -> Void)?
    /// Called once the node is open, with its descriptor (to ask it for its axes).
    var onOpen: ((Int32) -> Void)?
    /// Called when the node went away, before retrying.
    var onLost: (() -> Void)?
    private(set) var fd: Int32 = -1
    private var stream = InputEventStream()
    private(set) var problem = "not opened yet"
    /// How many times the device went away.
    public private(set) var disconnects = 0

    init(path: String, loop: DeviceRunLoop, retryInterval: Double) {
        self.path = path
        self.loop = loop
        self.retryInterval = retryInterval
    }

    var isOpen: Bool { fd >= 0 }

    /// Opens the node now, or keeps trying.
    func start() {
        guard fd < 0 else { return }
        let opened = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard opened >= 0 else {
            problem = String(cString: strerror(errno))
            loop.after(retryInterval) { [weak self] in self?.start() }
            return
        }
        // A real device is taken for this process alone; a pipe answers ENOTTY.
        _ = clup_evdev_grab(opened, 1)
        fd = opened
        stream = InputEventStream()
        onOpen?(opened)
        loop.watch(opened) { [weak self] in self?.readAvailable() }
    }

    /// Gives the device back.
    func stop() {
        guard fd >= 0 else { return }
        loop.unwatch(fd)
        _ = clup_evdev_grab(fd, 0)
        close(fd)
        fd = -1
    }

    /// Gives up on an open device that turned out not to be the right kind, and retries.
    func reject(_ reason: String) {
        stop()
        problem = reason
        loop.after(retryInterval) { [weak self] in self?.start() }
    }

    private func readAvailable() {
        var buffer = [UInt8](repeating: 0, count: 64 * InputEventStream.recordSize)
        let count = read(fd, &buffer, buffer.count)
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
        guard count > 0 else {
            // ENODEV when unplugged; 0 when the writer of a pipe closed it.
            let reason = count == 0 ? "closed" : String(cString: strerror(errno))
            stop()
            disconnects += 1
            problem = "gone (\(reason)); retrying"
            onLost?()
            loop.after(retryInterval) { [weak self] in self?.start() }
            return
        }
        let events = stream.feed(buffer[0..<count])
        if !events.isEmpty { onEvents?(events) }
    }
}
