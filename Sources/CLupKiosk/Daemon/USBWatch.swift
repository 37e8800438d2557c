import CLupCore
import CLupHardware
import CLupProtocol
import Logging

/// The USB devices plugged in, as hotplug reports them, named by the known models
/// (`hardware.usb_profiles`): for the log, `status` and `clupctl devices`.
final class USBWatch {
    let hotplug: USBHotplug
    /// The known USB models, when configured.
    let profiles: USBProfiles?

    init(loop: EventLoop, profilesPath: String?) throws(USBProfiles.LoadError) {
        hotplug = USBHotplug(loop: loop)
        profiles = try profilesPath.map { path throws(USBProfiles.LoadError) in try USBProfiles.load(path: path) }
    }

    var health: DeviceHealth { hotplug.health }

    /// Logs each arrival and departure from now on.
    func start(logger: Logger) {
        hotplug.onChange = { [profiles] device, arrived in
            let known = profiles?.match(device.id).map { "\($0.role): \($0.name)" } ?? "not a known model"
            logger.notice(arrived ? "USB device plugged in" : "USB device unplugged",
                          metadata: ["id": "\(device.id)", "bus": "\(device.bus):\(device.address)", "known": "\(known)"])
        }
        hotplug.start()
    }

    /// The devices plugged in, as hotplug has seen them or, where hotplug is off, as the bus
    /// lists them now; and why they could not be listed.
    func lines() -> (lines: [USBLine], problem: String?) {
        func line(_ device: USBDeviceInfo) -> USBLine {
            let profile = profiles?.match(device.id)
            return USBLine(bus: device.bus, address: device.address, id: device.id, role: profile?.role, name: profile?.name)
        }
        if hotplug.problem == nil {
            return (hotplug.present.values.sorted { ($0.bus, $0.address) < ($1.bus, $1.address) }.map(line), nil)
        }
        do {
            return (try USBBus.devices().map(line), nil)
        } catch {
            return ([], error.description)
        }
    }
}
