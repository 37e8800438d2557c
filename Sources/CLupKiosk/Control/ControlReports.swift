import CLupCore
import CLupHardware
import CLupPrinting
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
}

/// `clupctl devices`: what is on the USB bus and which known device each is, and the
/// devices the kiosk drives.
public struct DevicesReport: Codable, Sendable {
    public let usb: [USBLine]
    /// Why the USB bus could not be read, if it could not.
    public let usbProblem: String?
    public let profiles: String
    public let devices: [DeviceHealth]
}

/// One device on the USB bus.
public struct USBLine: Codable, Sendable {
    public let bus: Int
    public let address: Int
    public let id: String
    public let role: String?
    public let name: String?
}

/// `clupctl printer`: the printer, its profile and today's tickets it failed.
public struct PrinterDetails: Codable, Sendable {
    public let printer: PrinterReport
    public let profile: String
    public let failures: [PrintFailure]
}

/// A ticket the printer failed, and why.
public struct PrintFailure: Codable, Sendable {
    public let number: String
    public let issuedAt: Date
    public let reason: String
}

/// The ticket printer as last checked.
public struct PrinterReport: Codable, Sendable {
    public let queue: String
    public let ready: Bool
    public let state: String
    public let reasons: [String]
    public let message: String
    /// Seconds since cupsd last answered, or nil if it never did.
    public let checkedSecondsAgo: Double?
}

/// People inside today.
public struct OccupancyReport: Codable, Sendable {
    public let inside: Int
    public let capacity: Int
    public let entries: Int
    public let exits: Int
}

/// `clupctl tickets`: today's tickets.
public struct TicketsReport: Codable, Sendable {
    public let businessDay: String
    public let tickets: [TicketLine]
}

/// One ticket as the shell shows it.
public struct TicketLine: Codable, Sendable {
    public let number: String
    public let lane: String
    public let state: String
    public let issuedAt: Date
    public let code: String
}

/// `clupctl screenshot`: the current screen as PNG bytes.
public struct ScreenshotReply: Codable, Sendable {
    public let png: Data
}

/// What a simulated device event did.
public struct SimulationReply: Codable, Sendable {
    /// One sentence: what happened.
    public let outcome: String
    /// The screen shown afterwards.
    public let screen: String
    /// The ticket issued, when the event issued one.
    public let ticket: String?
}

/// `clupctl queue`: who waits, who is called, and what the rule would do next.
public struct QueueReport: Codable, Sendable {
    public let businessDay: String
    public let capacity: Int
    public let inside: Int
    /// Called or admitted tickets whose holders are not inside yet.
    public let promised: Int
    /// Places kept free for priority tickets right now.
    public let priorityReserve: Int
    public let waiting: [QueueLine]
    public let called: [QueueLine]
    /// The ticket the rule would call next if room allows, and why.
    public let nextCall: String?
    public let estimatedWait: String
}

/// One ticket in the queue report.
public struct QueueLine: Codable, Sendable {
    public let number: String
    public let lane: String
    public let state: String
    public let issuedAt: Date
    public let calledAt: Date?
    /// When a called ticket becomes a no-show.
    public let deadline: Date?
    public let reason: String?
}

/// `clupctl call-next`: the ticket called and why.
public struct CallReply: Codable, Sendable {
    public let number: String
    public let reason: String
}

/// `clupctl ledger`: the occupancy ledger of each door today.
public struct LedgerReport: Codable, Sendable {
    public let businessDay: String
    public let inside: Int
    public let doors: [DoorLedger]
    public let corrections: [CorrectionLine]
    /// Whether the stored ledger equals the one rebuilt from the event log.
    public let matchesEventLog: Bool
}

/// One door's counts.
public struct DoorLedger: Codable, Sendable {
    public let door: String
    /// People inside when the business day began.
    public let carried: Int
    public let entries: Int
    public let exits: Int
    public let corrections: Int
    public let inside: Int
}

/// One audited correction.
public struct CorrectionLine: Codable, Sendable {
    public let at: Date
    public let door: String
    public let delta: Int
    public let by: String
    public let reason: String
}

/// `clupctl config show`: the configuration in force, as TOML.
public struct ConfigurationReport: Codable, Sendable {
    public let source: String
    public let toml: String
}
