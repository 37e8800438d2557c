import CGPIOD
import Foundation

/// A change of a GPIO input line, at the time the kernel saw it (CLOCK_MONOTONIC seconds,
/// taken in the interrupt handler, so debouncing does not depend on how soon we read it).
public struct GPIOEdge: Sendable, Equatable {
    /// The line became active (true) or inactive; "active" already accounts for active-low wiring.
    public let active: Bool
    public let time: Double

    public init(active: Bool, time: Double) {
        self.active = active
        self.time = time
    }
}

/// A GPIO input line whose edges are read on the daemon's loop, and requested again every
/// `retryInterval` seconds while its chip is missing (a USB GPIO adapter unplugged, a
/// driver not loaded yet), so plugging it back recovers.
public final class GPIOInput {
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        /// A line of a GPIO chip, through libgpiod.
        case line(GPIOLineSpec, activeLow: Bool)
        /// A file or FIFO carrying the kernel's edge records (`struct gpioevent_data`, 16
        /// bytes each), read by the same libgpiod call as a real line's: how recorded edges
        /// are replayed and how the tests stand in for a chip this machine lacks. A FIFO
        /// whose writer closes counts as a line that went away; a file is played once.
        case eventStream(path: String)

        public var description: String {
            switch self {
            case let .line(spec, activeLow): activeLow ? "\(spec) (active low)" : "\(spec)"
            case let .eventStream(path): path
            }
        }
    }

    public let source: Source
    let loop: DeviceRunLoop
    let retryInterval: Double
    /// Called with the edges of each read.
    var onEdges: (([GPIOEdge]) -> Void)?
    /// Called once the line is open, with its level then when the kernel tells it.
    var onOpen: ((Bool?) -> Void)?
    /// Called when the line went away, before retrying.
    var onLost: (() -> Void)?
    private var chipLine: GPIOChipLine?
    private(set) var fd: Int32 = -1
    private(set) var problem = "not opened yet"
    private var started = false

    init(source: Source, loop: DeviceRunLoop, retryInterval: Double) {
        self.source = source
        self.loop = loop
        self.retryInterval = retryInterval
    }

    var isOpen: Bool { fd >= 0 }

    /// Requests the line now, or keeps trying.
    func start() {
        started = true
        guard fd < 0 else { return }
        do throws(GPIOError) {
            var level: Bool?
            switch source {
            case let .line(spec, activeLow):
                let line = try GPIOChipLine(spec)
                let eventFD = try line.requestEdges(activeLow: activeLow)
                _ = fcntl(eventFD, F_SETFL, fcntl(eventFD, F_GETFL) | O_NONBLOCK)
                level = line.value()
                chipLine = line
                fd = eventFD
            case let .eventStream(path):
                let opened = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
                guard opened >= 0 else { throw GPIOError(description: String(cString: strerror(errno))) }
                fd = opened
            }
            onOpen?(level)
            loop.watch(fd) { [weak self] in self?.readAvailable() }
        } catch {
            problem = error.description
            loop.after(retryInterval) { [weak self] in if self?.started == true { self?.start() } }
        }
    }

    /// Gives the line back.
    func stop() {
        started = false
        release()
    }

    private func release() {
        guard fd >= 0 else { return }
        loop.unwatch(fd)
        if chipLine == nil { close(fd) }
        chipLine = nil   // releasing the line closes its descriptor
        fd = -1
    }

    private func readAvailable() {
        var records = [gpiod_line_event](repeating: gpiod_line_event(), count: 16)
        let count = gpiod_line_event_read_fd_multiple(fd, &records, UInt32(records.count))
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
        guard count > 0 else {
            // ENODEV when the chip went away; EIO at the end of a stream.
            let reason = String(cString: strerror(errno))
            if case let .eventStream(path) = source, isRegularFile(path) {
                // A recording played to its end is over; opening it again would replay it.
                release()
                problem = "end of the recording"
                return
            }
            release()
            problem = "gone (\(reason)); retrying"
            onLost?()
            loop.after(retryInterval) { [weak self] in if self?.started == true { self?.start() } }
            return
        }
        onEdges?(records[0..<Int(count)].map { record in
            GPIOEdge(active: record.event_type == GPIOD_LINE_EVENT_RISING_EDGE,
                     time: Double(record.ts.tv_sec) + Double(record.ts.tv_nsec) / 1e9)
        })
    }
}

private func isRegularFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
}
