import CLupCore
import Foundation
import CUSB

/// A device on the USB bus, as libusb enumerates it.
public struct USBDeviceInfo: Codable, Sendable, Equatable {
    public let bus: Int
    public let address: Int
    public let vendorID: UInt16
    public let productID: UInt16
    public let deviceClass: UInt8

    /// `vvvv:pppp` in lower-case hex, as lsusb and udev rules write it.
    public var id: String {
        String(format: "%04x:%04x", vendorID, productID)
    }
}

/// Lists what is plugged into the totem's USB ports.
public enum USBBus {
    /// Why the bus could not be read.
    public enum USBError: Error, CodedErrorConvertible, Equatable {
        case unavailable(String)

        public var coded: CodedError {
            switch self {
            case let .unavailable(detail): CodedError(.usbUnreadable, "USB bus not readable: \(detail)")
            }
        }
    }

    /// Every device on every bus.
    public static func devices() throws(USBError) -> [USBDeviceInfo] {
        var context: OpaquePointer?
        let status = libusb_init(&context)
        guard status == 0 else { throw .unavailable(errorName(status)) }
        defer { libusb_exit(context) }
        var list: UnsafeMutablePointer<OpaquePointer?>?
        let count = libusb_get_device_list(context, &list)
        guard count >= 0, let list else { throw .unavailable(errorName(Int32(count))) }
        defer { libusb_free_device_list(list, 1) }
        return (0..<count).compactMap { index in
            guard let device = list[index] else { return nil }
            var descriptor = libusb_device_descriptor()
            guard libusb_get_device_descriptor(device, &descriptor) == 0 else { return nil }
            return USBDeviceInfo(bus: Int(libusb_get_bus_number(device)),
                                 address: Int(libusb_get_device_address(device)),
                                 vendorID: descriptor.idVendor, productID: descriptor.idProduct,
                                 deviceClass: descriptor.bDeviceClass)
        }
    }

    static func errorName(_ code: Int32) -> String {
        String(cString: libusb_strerror(code))
    }
}
