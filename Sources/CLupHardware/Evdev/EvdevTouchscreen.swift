import CEvdev
import Foundation

/// A touch panel read from its evdev node (`/dev/input/event*`, or the stable
/// `/dev/clup/touch`): grabbed, so no other program sees the touches; decoded with
/// `TouchDecoder`; turned into gestures by `TouchPipeline`.
///
/// If the device goes away, every contact is released and the node is opened again every
/// `retryInterval` seconds until it is back.
public final class EvdevTouchscreen: Touchscreen {
    public var onGesture: ((TouchGesture) -> Void)?
    public let path: String
    let loop: DeviceRunLoop
    let configuredAxes: [UInt16: AxisRange]?
    let calibration: CalibrationMatrix
    let retryInterval: Double
    private var fd: Int32 = -1
    private var stream = InputEventStream()
    private var decoder: TouchDecoder?
    private var pipeline: TouchPipeline?
    private var problem = "not opened yet"
    /// How many times the device went away, for the health line.
    public private(set) var disconnects = 0

    /// `axes` overrides what the device reports (a pipe standing in for a device has none).
    public init(path: String, loop: DeviceRunLoop, axes: [UInt16: AxisRange]? = nil,
                calibration: CalibrationMatrix = .identity, retryInterval: Double = 0.5) {
        self.path = path
        self.loop = loop
        configuredAxes = axes
        self.calibration = calibration
        self.retryInterval = retryInterval
    }

    public var health: DeviceHealth {
        fd >= 0
            ? DeviceHealth(role: "touchscreen", backend: "evdev", state: .ok, detail: "\(path)")
            : DeviceHealth(role: "touchscreen", backend: "evdev", state: .missing, detail: "\(path): \(problem)")
    }

    public var isConnected: Bool { fd >= 0 }

    /// Opens the device now, or keeps trying.
    public func start() {
        guard fd < 0 else { return }
        let opened = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard opened >= 0 else {
            problem = String(cString: strerror(errno))
            loop.after(retryInterval) { [weak self] in self?.start() }
            return
        }
        // A real panel is grabbed and asked for its axes; a pipe answers ENOTTY to both.
        _ = clup_evdev_grab(opened, 1)
        let axes = configuredAxes ?? Self.readAxes(opened)
        guard let pipeline = TouchPipeline(axes: axes, calibration: calibration) else {
            problem = "no X/Y axis ranges (not a touch panel?)"
            close(opened)
            loop.after(retryInterval) { [weak self] in self?.start() }
            return
        }
        fd = opened
        stream = InputEventStream()
        decoder = TouchDecoder(mode: TouchDecoder.mode(for: axes))
        self.pipeline = pipeline
        loop.watch(opened) { [weak self] in self?.readAvailable() }
    }

    /// Releases the device.
    public func stop() {
        guard fd >= 0 else { return }
        loop.unwatch(fd)
        _ = clup_evdev_grab(fd, 0)
        close(fd)
        fd = -1
    }

    private func readAvailable() {
        var buffer = [UInt8](repeating: 0, count: 64 * InputEventStream.recordSize)
        let count = read(fd, &buffer, buffer.count)
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
        guard count > 0 else {
            // ENODEV when unplugged; 0 when the writer of a pipe closed it.
            vanished(count == 0 ? "closed" : String(cString: strerror(errno)))
            return
        }
        for event in stream.feed(buffer[0..<count]) {
            deliver(decoder?.feed(event) ?? [])
            if event.type == EventCode.synchronization && event.code == EventCode.dropped { resync(at: event.time) }
        }
    }

    /// After SYN_DROPPED, reads the slots' state back from the device, when it can.
    private func resync(at time: Double) {
        guard case let .slots(count)? = decoder?.mode else { return }
        var ids = [Int32](repeating: -1, count: count), xs = ids, ys = ids
        var minimum: Int32 = 0, maximum: Int32 = 0, current: Int32 = 0
        guard clup_evdev_mt_slots(fd, UInt32(EventCode.trackingID), &ids, Int32(count)) == 0,
              clup_evdev_mt_slots(fd, UInt32(EventCode.positionX), &xs, Int32(count)) == 0,
              clup_evdev_mt_slots(fd, UInt32(EventCode.positionY), &ys, Int32(count)) == 0,
              clup_evdev_absinfo(fd, UInt32(EventCode.slot), &minimum, &maximum, &current) == 0
        else { return }   // a pipe: the decoder cancels the contacts at the next SYN_REPORT
        deliver(decoder?.resync(slots: (0..<count).map { (ids[$0], xs[$0], ys[$0]) }, currentSlot: Int(current),
                                at: time) ?? [])
    }

    private func vanished(_ reason: String) {
        _ = decoder?.releaseAll(at: 0)
        stop()
        disconnects += 1
        problem = "gone (\(reason)); retrying"
        loop.after(retryInterval) { [weak self] in self?.start() }
    }

    private func deliver(_ contacts: [Contact]) {
        guard let pipeline else { return }
        for contact in contacts {
            if let gesture = pipeline.gesture(for: contact) { onGesture?(gesture) }
        }
    }

    static func readAxes(_ fd: Int32) -> [UInt16: AxisRange] {
        var axes: [UInt16: AxisRange] = [:]
        for code in [EventCode.x, EventCode.y, EventCode.slot, EventCode.positionX, EventCode.positionY] {
            var minimum: Int32 = 0, maximum: Int32 = 0, value: Int32 = 0
            if clup_evdev_absinfo(fd, UInt32(code), &minimum, &maximum, &value) == 0, maximum > minimum {
                axes[code] = AxisRange(minimum: minimum, maximum: maximum)
            }
        }
        return axes
    }
}
