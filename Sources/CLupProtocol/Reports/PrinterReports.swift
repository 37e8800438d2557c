import Foundation

/// `clupctl printer`: the printer, its profile and today's tickets it failed.
public struct PrinterDetails: Codable, Sendable {
    public let printer: PrinterReport
    public let profile: String
    public let failures: [PrintFailure]
    /// The paper on the roll (absent from clupd before 0.13).
    public let paper: PaperReport?

    public init(printer: PrinterReport, profile: String, failures: [PrintFailure], paper: PaperReport? = nil) {
        self.printer = printer
        self.profile = profile
        self.failures = failures
        self.paper = paper
    }
}

/// The paper on the roll: what was printed since the technician last said a new roll was
/// put in (`clupctl paper new-roll`), the tickets that leaves by the profile's lengths, and
/// whether it is low: by that count, or by the printer's near-end sensor where the profile
/// says it has one (its word wins).
public struct PaperReport: Codable, Sendable, Equatable {
    /// When the roll was put in, and by whom; nil: never said on this totem.
    public var rollChangedAt: Date?
    public var changedBy: String?
    public var ticketsPrinted: Int
    public var testsPrinted: Int
    /// About how many tickets are left; nil where the roll's start or length is not known.
    public var ticketsLeft: Int?
    public var low: Bool
    /// What says so: "count", "sensor" (the printer's near-end sensor) or "unknown".
    public var source: String
    /// The report in a line, for people.
    public var detail: String

    public init(rollChangedAt: Date?, changedBy: String?, ticketsPrinted: Int, testsPrinted: Int, ticketsLeft: Int?, low: Bool,
                source: String, detail: String) {
        self.rollChangedAt = rollChangedAt
        self.changedBy = changedBy
        self.ticketsPrinted = ticketsPrinted
        self.testsPrinted = testsPrinted
        self.ticketsLeft = ticketsLeft
        self.low = low
        self.source = source
        self.detail = detail
    }

    /// The problem line of `clupctl status`, when the paper is low.
    public var problem: String? { low ? "PAPER LOW: \(detail)" : nil }
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
