import Foundation

/// `clupctl printer`: the printer, its profile and today's tickets it failed.
public struct PrinterDetails: Codable, Sendable {
    public let printer: PrinterReport
    public let profile: String
    public let failures: [PrintFailure]

    public init(printer: PrinterReport, profile: String, failures: [PrintFailure]) {
        self.printer = printer
        self.profile = profile
        self.failures = failures
    }
}

/// A ticket the printer failed, and why.
public struct PrintFailure: Codable, Sendable {
    public let number: String
    public let issuedAt: Date
    public let reason: String

    public init(number: String, issuedAt: Date, reason: String) {
        self.number = number
        self.issuedAt = issuedAt
        self.reason = reason
    }
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

    public init(queue: String, ready: Bool, state: String, reasons: [String], message: String, checkedSecondsAgo: Double?) {
        self.queue = queue
        self.ready = ready
        self.state = state
        self.reasons = reasons
        self.message = message
        self.checkedSecondsAgo = checkedSecondsAgo
    }
}
