import CLupCore

/// A presence sensor that reports through evdev as the `SW_FRONT_PROXIMITY` switch.
public final class EvdevPresenceSensor: PresenceSensor {
    public var onChange: ((Bool) -> Void)?
    let device: EvdevDevice
    private var present = false

    public init(path: String, loop: DeviceRunLoop, retryInterval: Double = 0.5) {
        device = EvdevDevice(path: path, loop: loop, retryInterval: retryInterval)
        device.onEvents = { [unowned self] events in
            for event in events where event.type == EventCode.switchEvent && event.code == EventCode.frontProximity {
                let now = event.value != 0
                guard now != present else { continue }
                present = now
                onChange?(now)
            }
        }
        // A sensor that went away tells nothing more: nobody is taken to be there.
        device.onLost = { [unowned self] in
            if present {
                present = false
                onChange?(false)
            }
        }
    }

    public var health: DeviceHealth {
        device.isOpen
            ? DeviceHealth(role: "presence", backend: "evdev", state: .ok, detail: "\(device.path), \(present ? "someone present" : "nobody")")
            : DeviceHealth(role: "presence", backend: "evdev", state: .missing, detail: "\(device.path): \(device.problem)")
    }

    public func start() { device.start() }
    public func stop() { device.stop() }
}
