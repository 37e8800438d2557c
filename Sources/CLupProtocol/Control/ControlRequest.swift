import CLupCore
import Foundation

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
    /// A tap in the middle of the button named `name` on the screen shown (`clupctl screen`).
    case simPress(name: String)
    /// The screen shown: its name, language and buttons.
    case screen
    case simPass(PassageDirection)
    case simScan(code: String)
    /// The sync with the hub: state, outbox, last success, skew.
    case sync
    /// Try the hub now rather than at the next backoff.
    case syncNow
    /// clupd's figures as Prometheus text.
    case metrics
    /// The employees who may log in at the PIN pad, and whether the pad is locked.
    case employees
    /// Adds an employee (`replacing` false) or gives one a new PIN (true). clupctl hashed
    /// the PIN: the PIN itself never crosses the socket.
    case putEmployee(staffNumber: String, pin: PinHash, replacing: Bool)
    case removeEmployee(staffNumber: String)
    /// What staff did at the totem (the PIN pad, employees managed), since `since` (nil: all kept).
    case audit(since: Date?)
    /// A headset plugged into the simulated jack (true) or pulled out.
    case simHeadset(Bool)
    /// A touch held `milliseconds` in the middle of the button (or the staff corner) named `name`.
    case simHold(name: String, milliseconds: Int)
}

/// The envelope of every reply: `{"ok":true,"result":…}` or `{"ok":false,"error":…}`,
/// the error's code, message and what to do as fields.
public struct ControlReply<Result: Decodable>: Decodable {
    public let ok: Bool
    public let result: Result?
    public let error: CodedError?
}
