import CLupCore
import Foundation

/// `clupctl status`: the totem at a glance.
public struct StatusReport: Codable, Sendable {
    public let store: String
    public let deviceID: String
    /// This totem's public ticket key (base64), for the `[keys]` of the store's other totems.
    public let ticketKey: String
    public let businessDay: String
    public let screen: String
    public let devices: [DeviceHealth]
    public let printer: PrinterReport
    public let waiting: Int
    /// Tickets called or admitted whose holders are not inside yet.
    public let promised: Int
    public let occupancy: OccupancyReport
    /// Where the configuration in force came from, and when it was read.
    public let configuration: String
    /// What staff should know that is wrong with the totem's own data or configuration.
    public let problems: [String]
    /// Where capacity and shares come from: the hub's settings (their version) or the file.
    public let settings: String?
    /// The sync with the hub in one line, when enrolled.
    public let sync: String?

    public init(store: String, deviceID: String, ticketKey: String, businessDay: String, screen: String, devices: [DeviceHealth], printer: PrinterReport, waiting: Int, promised: Int, occupancy: OccupancyReport, configuration: String, problems: [String],
                settings: String? = nil, sync: String? = nil) {
        self.settings = settings
        self.sync = sync
        self.store = store
        self.deviceID = deviceID
        self.ticketKey = ticketKey
        self.businessDay = businessDay
        self.screen = screen
        self.devices = devices
        self.printer = printer
        self.waiting = waiting
        self.promised = promised
        self.occupancy = occupancy
        self.configuration = configuration
        self.problems = problems
    }
}

/// `clupctl devices`: what is on the USB bus and which known device each is, and the
/// devices the kiosk drives.
public struct DevicesReport: Codable, Sendable {
    public let usb: [USBLine]
    /// Why the USB bus could not be read, if it could not.
    public let usbProblem: String?
    public let profiles: String
    public let devices: [DeviceHealth]

    public init(usb: [USBLine], usbProblem: String?, profiles: String, devices: [DeviceHealth]) {
        self.usb = usb
        self.usbProblem = usbProblem
        self.profiles = profiles
        self.devices = devices
    }
}

/// One device on the USB bus.
public struct USBLine: Codable, Sendable {
    public let bus: Int
    public let address: Int
    public let id: String
    public let role: String?
    public let name: String?

    public init(bus: Int, address: Int, id: String, role: String?, name: String?) {
        self.bus = bus
        self.address = address
        self.id = id
        self.role = role
        self.name = name
    }
}

/// People inside today.
public struct OccupancyReport: Codable, Sendable {
    public let inside: Int
    public let capacity: Int
    public let entries: Int
    public let exits: Int

    public init(inside: Int, capacity: Int, entries: Int, exits: Int) {
        self.inside = inside
        self.capacity = capacity
        self.entries = entries
        self.exits = exits
    }
}
