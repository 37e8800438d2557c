import CLupCore

/// A command sent to `clupd` over its control socket, one JSON object per connection.
public enum ControlRequest: Codable, Sendable, Equatable {
    case status
    case tickets
    case screenshot
    case queue
    case callNext
    case ledger
    case correctLedger(delta: Int, reason: String)
    /// The technician counted the people inside: the ledger is set to that count.
    case setOccupancy(count: Int, reason: String)
    case configuration
    case printer
    case devices
    /// An employee's priority ticket, printed on the totem's printer.
    case issuePriority(PriorityReason)
    case reprint(number: String)
    case simApproach
    case simLeave
    case simTap(x: Int, y: Int)
    case simPass(PassageDirection)
    case simScan(code: String)
}

/// Why a control request failed: a stable code and a sentence for the technician.
public struct ControlFailure: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let message: String

    /// The code of a caller the socket's peer check refused (clupctl exits 77 on it).
    public static let permissionDeniedCode = "E-CTL-003"

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// From an error whose description starts with its code (`E-PRN-003 printer out of paper`).
    public init(_ error: Error) {
        let text = String(describing: error)
        let parts = text.split(separator: " ", maxSplits: 1)
        if parts.count == 2, parts[0].hasPrefix("E-") {
            self.init(code: String(parts[0]), message: String(parts[1]))
        } else {
            self.init(code: "E-CTL-000", message: text)
        }
    }

    public var description: String { "\(code) \(message)" }
}

/// The envelope of every reply: `{"ok":true,"result":…}` or `{"ok":false,"error":…}`.
public struct ControlReply<Result: Decodable>: Decodable {
    public let ok: Bool
    public let result: Result?
    public let error: ControlFailure?
}
