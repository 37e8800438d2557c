import CLupCore
import CUSB
import Foundation

/// Follows USB devices being plugged in and out (libusb hotplug), on the daemon's loop:
/// libusb's descriptors are watched there and its events handled without blocking.
public final class USBHotplug {
    /// A device arrived (`true`) or left (`false`).
    public var onChange: ((USBDeviceInfo, Bool) -> Void)?
    let loop: DeviceRunLoop
    private var context: OpaquePointer?
    private var handle: libusb_hotplug_callback_handle = 0
    private var watched: [Int32] = []
    /// Why hotplug is off, when it is.
    public private(set) var problem: String?
    /// Devices seen now, by bus and address.
    public private(set) var present: [String: USBDeviceInfo] = [:]

    public init(loop: DeviceRunLoop) {
        self.loop = loop
    }

    deinit {
        stop()
    }

    public var health: DeviceHealth {
        if let problem {
            return DeviceHealth(role: "usb", backend: "libusb", state: .missing, detail: problem)
        }
        return DeviceHealth(role: "usb", backend: "libusb", state: .ok, detail: "\(present.count) devices, hotplug on")
    }

    /// Registers for arrivals and departures (current devices arrive at once).
    public func start() {
        guard context == nil else { return }
        var context: OpaquePointer?
        let status = libusb_init(&context)
        guard status == 0, let context else {
            problem = CodedError(.usbUnreadable, "USB bus not readable: \(USBBus.errorName(status))").description
            return
        }
        self.context = context
        guard libusb_has_capability(UInt32(LIBUSB_CAP_HAS_HOTPLUG.rawValue)) != 0 else {
            problem = CodedError(.noHotplug, "this libusb has no hotplug support").description
            return
        }
        let events = Int32(LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED.rawValue | LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT.rawValue)
        let registered = libusb_hotplug_register_callback(
            context, events, Int32(LIBUSB_HOTPLUG_ENUMERATE.rawValue),
            LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY,
            { _, device, event, userData in
                guard let device, let userData else { return 0 }
                Unmanaged<USBHotplug>.fromOpaque(userData).takeUnretainedValue()
                    .changed(device, arrived: event == LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED)
                return 0
            }, Unmanaged.passUnretained(self).toOpaque(), &handle)
        guard registered == 0 else {
            problem = CodedError(.hotplugFailed, "hotplug registration failed: \(USBBus.errorName(registered))").description
            return
        }
        problem = nil
        if let descriptors = libusb_get_pollfds(context) {
            var index = 0
            while let entry = descriptors[index] {
                let fd = entry.pointee.fd
                watched.append(fd)
                loop.watch(fd) { [weak self] in self?.handleEvents() }
                index += 1
            }
            libusb_free_pollfds(descriptors)
        }
    }

    public func stop() {
        for fd in watched { loop.unwatch(fd) }
        watched = []
        if let context {
            if handle != 0 { libusb_hotplug_deregister_callback(context, handle) }
            libusb_exit(context)
        }
        context = nil
        handle = 0
    }

    private func handleEvents() {
        var zero = timeval(tv_sec: 0, tv_usec: 0)
        libusb_handle_events_timeout_completed(context, &zero, nil)
    }

    private func changed(_ device: OpaquePointer, arrived: Bool) {
        var descriptor = libusb_device_descriptor()
        guard libusb_get_device_descriptor(device, &descriptor) == 0 else { return }
        let info = USBDeviceInfo(bus: Int(libusb_get_bus_number(device)), address: Int(libusb_get_device_address(device)),
                                 vendorID: descriptor.idVendor, productID: descriptor.idProduct,
                                 deviceClass: descriptor.bDeviceClass)
        let key = "\(info.bus):\(info.address)"
        if arrived { present[key] = info } else { present[key] = nil }
        onChange?(info, arrived)
    }
}
