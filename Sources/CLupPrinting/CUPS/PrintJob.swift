import CLupCore
/// The state of a print job as cupsd reports it (RFC 8011 `job-state`).
public enum JobState: Int32, Sendable, Codable {
    case pending = 3
    case held = 4
    case processing = 5
    case stopped = 6
    case canceled = 7
    case aborted = 8
    case completed = 9
}

/// A job cupsd holds for a queue, as it reports it.
public struct QueuedJob: Sendable, Equatable {
    public let id: Int
    /// The job's title: the kiosk names a ticket's job after the ticket (`A-017-2026-11-22`).
    public let name: String
    public let state: JobState
    public let reasons: [String]
    /// How many documents cupsd has of it, when it says.
    public let documents: Int?

    public init(id: Int, name: String, state: JobState, reasons: [String], documents: Int?) {
        self.id = id
        self.name = name
        self.state = state
        self.reasons = reasons
        self.documents = documents
    }

    /// Created, and its document never arrived: the sender went away in between, and the
    /// job would wait in cupsd for ever.
    public var isAwaitingDocument: Bool {
        (state == .pending || state == .held) && (documents == 0 || reasons.contains("job-incoming"))
    }

    static let attributeNames = ["job-id", "job-name", "job-state", "job-state-reasons", "number-of-documents"]
}

/// How a ticket's print job ended.
public enum JobOutcome: Sendable, Equatable {
    case completed(job: Int)
    /// The job ended without printing, or did not end in time; `reason` is for people.
    case failed(job: Int?, reason: PrintError)
}

/// The printer's state and the reasons cupsd gives for it (`media-empty-error`, …).
public struct PrinterStatus: Sendable, Codable, Equatable {
    public let queue: String
    /// `idle`, `processing` or `stopped`.
    public let state: String
    public let reasons: [String]
    public let message: String
    public let acceptingJobs: Bool

    public init(queue: String, state: String, reasons: [String], message: String, acceptingJobs: Bool) {
        self.queue = queue
        self.state = state
        self.reasons = reasons
        self.message = message
        self.acceptingJobs = acceptingJobs
    }

    /// True when nothing stands in the way of printing.
    public var isReady: Bool {
        acceptingJobs && state != "stopped" && !reasons.contains { $0.hasSuffix("-error") }
    }
}

/// Why printing failed, with a stable code for logs and the shell.
public enum PrintError: Error, CodedErrorConvertible, Equatable, Sendable {
    case noSuchQueue(String)
    case serverUnreachable(String)
    case submitFailed(String)
    case outOfPaper
    case jobEnded(JobState, reasons: [String])
    case timedOut(seconds: Double)
    case documentFailed(String)

    public var coded: CodedError {
        switch self {
        case let .noSuchQueue(queue): CodedError(.noSuchPrinterQueue, "no printer queue named \(queue)")
        case let .serverUnreachable(detail): CodedError(.printServerUnreachable, "print server unreachable: \(detail)")
        case .outOfPaper: CodedError(.outOfPaper, "printer out of paper")
        case let .submitFailed(detail): CodedError(.printJobRefused, "the print server refused the job: \(detail)")
        case let .jobEnded(state, reasons): CodedError(.printJobEnded, "print job \(state) (\(reasons.joined(separator: ", ")))")
        case let .timedOut(seconds): CodedError(.printTimedOut, "the printer did not finish within \(Int(saturating: seconds)) s")
        case let .documentFailed(detail): CodedError(.ticketLayoutFailed, "could not lay out the ticket: \(detail)")
        }
    }

    /// Classifies the reasons cupsd gives for a job that ended without printing.
    public static func from(state: JobState, reasons: [String]) -> PrintError {
        if reasons.contains(where: { $0.hasPrefix("media-empty") || $0.hasPrefix("media-needed") }) {
            return .outOfPaper
        }
        return .jobEnded(state, reasons: reasons)
    }
}
