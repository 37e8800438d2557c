import CEvdev
import CLupCore
import Foundation

/// A touch panel read from its evdev node (`/dev/input/event*`, or the stable
/// `/dev/clup/touch`): grabbed, so no other program sees the touches; decoded with
/// `TouchDecoder`; turned into gestures by `TouchPipeline`.
///
/// If the device goes away, every contact is released and the node is opened again until
/// it is back.
public final class EvdevTouchscreen: Touchscreen {
    public var onGesture: ((TouchGesture) -> Void)?
    public var onHealthChange: (() -> Void)?
    let device: EvdevDevice
    let configuredAxes: [UInt16: AxisRange]?
    public var calibration: CalibrationMatrix {
        didSet { pipeline?.calibration = calibration }
    }
    private var decoder: TouchDecoder?
    private var pipeline: TouchPipeline?

    /// `axes` overrides what the device reports (a pipe standing in for a device has none).
    public init(path: String, loop: DeviceRunLoop, axes: [UInt16: AxisRange]? = nil,
                calibration: CalibrationMatrix = .identity, retryInterval: Double = 0.5) {
        device = EvdevDevice(path: path, loop: loop, retryInterval: retryInterval)
        configuredAxes = axes
        self.calibration = calibration
        device.onOpen = { [unowned self] fd in
            self.configure(fd)
            self.onHealthChange?()
        }
        device.onEvents = { [unowned self] events in self.handle(events) }
        device.onLost = { [unowned self] in
            _ = self.decoder?.releaseAll(at: 0)
            self.onHealthChange?()
        }
    }

    public var health: DeviceHealth {
        device.isOpen
            ? DeviceHealth(role: "touchscreen", backend: "evdev", state: .ok, detail: device.path)
            : DeviceHealth(role: "touchscreen", backend: "evdev", state: .missing, detail: "\(device.path): \(device.problem)")
    }

    public var isConnected: Bool { device.isOpen }
    public var disconnects: Int { device.disconnects }

    /// Opens the device now, or keeps trying.
    public func start() { device.start() }

    /// Releases the device.
    public func stop() { device.stop() }

    private func configure(_ fd: Int32) {
        let axes = configuredAxes ?? Self.readAxes(fd)
        guard let pipeline = TouchPipeline(axes: axes, calibration: calibration) else {
            device.reject("no X/Y axis ranges (not a touch panel?)")
            return
        }
        var decoder = TouchDecoder(mode: TouchDecoder.mode(for: axes))
        Self.seed(&decoder, from: fd)
        self.decoder = decoder
        self.pipeline = pipeline
    }

    /// Starts the decoder from where the device's fingers were last (a pipe tells nothing).
    static func seed(_ decoder: inout TouchDecoder, from fd: Int32) {
        func value(_ code: UInt16) -> Int32 {
            var minimum: Int32 = 0, maximum: Int32 = 0, value: Int32 = 0
            return clup_evdev_absinfo(fd, UInt32(code), &minimum, &maximum, &value) == 0 ? value : 0
        }
        var positions: [(x: Int32, y: Int32)] = []
        if case let .slots(count) = decoder.mode {
            var xs = [Int32](repeating: 0, count: count), ys = xs
            if clup_evdev_mt_slots(fd, UInt32(EventCode.positionX), &xs, Int32(count)) == 0,
               clup_evdev_mt_slots(fd, UInt32(EventCode.positionY), &ys, Int32(count)) == 0 {
                positions = zip(xs, ys).map { (x: $0, y: $1) }
            }
        }
        decoder.seed(slots: positions, currentSlot: Int(value(EventCode.slot)),
                     single: (x: value(EventCode.x), y: value(EventCode.y)))
    }

    private func handle(_ events: [InputEvent]) {
        for event in events {
            deliver(decoder?.feed(event) ?? [])
            if event.type == EventCode.synchronization && event.code == EventCode.dropped { resync(at: event.time) }
        }
    }

    /// After SYN_DROPPED, reads the slots' state back from the device, when it can.
    private func resync(at time: Double) {
        guard case let .slots(count)? = decoder?.mode else { return }
        let fd = device.fd
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
