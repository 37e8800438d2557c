import CLupCore
import CLupHardware
import CLupPrinting
import Foundation

/// `clupctl status`: the totem at a glance.
public struct StatusReport: Codable, Sendable {
    public let store: String
    public let deviceID: String
    public let businessDay: String
    public let screen: String
    public let devices: [DeviceHealth]
    public let printer: PrinterReport
    public let waiting: Int
    public let occupancy: OccupancyReport
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
