import CEvdev
import CLupCore

/// The headphone jack: a personal headset plugged in turns speech on (and takes it off the
/// speaker, where the totem has a headset output); EN 301 549 5.1.3, ADA 707.5.
///
/// Implementations call `onChange` on the daemon's event loop.
public protocol HeadsetJack: AnyObject {
    var health: DeviceHealth { get }
    /// Whether a headset is in the jack now.
    var isPlugged: Bool { get }
    /// Called with `true` when a headset is plugged in and `false` when it is pulled out.
    var onChange: ((Bool) -> Void)? { get set }
}

/// The jack as the sound card's evdev node reports it: the `SW_HEADPHONE_INSERT` switch
/// (the "… Headphone" input device of an HDA or USB codec), read at open and followed after.
public final class EvdevHeadsetJack: HeadsetJack {
    public var onChange: ((Bool) -> Void)?
    public private(set) var isPlugged = false
    let device: EvdevDevice

    public init(path: String, loop: DeviceRunLoop, retryInterval: Double = 0.5) {
        device = EvdevDevice(path: path, loop: loop, retryInterval: retryInterval)
        device.onOpen = { [unowned self] fd in
            // Where the node answers it, the switch's state now (a headset already in).
            if let plugged = EvdevSwitches.state(of: EventCode.headphoneInsert, fd: fd) { changed(plugged) }
        }
        device.onEvents = { [unowned self] events in
            for event in events where event.type == EventCode.switchEvent && event.code == EventCode.headphoneInsert {
                changed(event.value != 0)
            }
        }
        // A jack that went away tells nothing more: speech goes back to the speaker.
        device.onLost = { [unowned self] in changed(false) }
    }

    private func changed(_ plugged: Bool) {
        guard plugged != isPlugged else { return }
        isPlugged = plugged
        onChange?(plugged)
    }

    public var health: DeviceHealth {
        device.isOpen
            ? DeviceHealth(role: "headset", backend: "evdev", state: .ok, detail: "\(device.path), \(isPlugged ? "headset in" : "no headset")")
            : DeviceHealth(role: "headset", backend: "evdev", state: .missing, detail: "\(device.path): \(device.problem)")
    }

    public func start() { device.start() }
    public func stop() { device.stop() }
}

/// A jack driven by `clupctl sim headset in` / `out`.
public final class SimulatedHeadsetJack: HeadsetJack {
    public var onChange: ((Bool) -> Void)?
    public private(set) var isPlugged = false

    public init() {}

    public var health: DeviceHealth {
        DeviceHealth(role: "headset", backend: "simulated", state: .ok, detail: isPlugged ? "headset in" : "no headset")
    }

    /// A headset goes in (`true`) or out; whether that is a change to report.
    public func set(plugged: Bool) -> Bool {
        guard plugged != isPlugged else { return false }
        isPlugged = plugged
        return true
    }
}

/// The switches an evdev node reports, asked for directly (EVIOCGSW).
enum EvdevSwitches {
    /// Switch `code`'s state, or nil where the node does not answer (a pipe standing in).
    static func state(of code: UInt16, fd: Int32) -> Bool? {
        let state = clup_evdev_switch(fd, UInt32(code))
        return state < 0 ? nil : state == 1
    }
}
