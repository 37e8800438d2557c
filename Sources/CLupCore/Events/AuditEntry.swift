/// Something a member of staff did, or tried, at the totem, kept in the event log (and
/// synced to the hub) so that every priority ticket and every use of the PIN pad can be
/// traced to a name: who, in which role, what, and how it ended.
public struct AuditEntry: Hashable, Codable, Sendable {
    public enum Role: String, Codable, Sendable {
        /// A store employee at the totem's PIN pad.
        case employee
        /// Whoever manages the totem's employees through the control socket.
        case technician
    }

    public enum Action: String, Codable, Sendable {
        /// An employee typed the right PIN: a session opens.
        case login
        /// A wrong staff number or PIN (the two are not told apart).
        case pinRefused = "pin-refused"
        /// Too many wrong PINs: the pad is locked.
        case padLocked = "pad-locked"
        /// The session ended (ticket printed, cancelled, or idle).
        case logout
        /// A priority ticket issued in a session.
        case priorityTicket = "priority-ticket"
        case employeeAdded = "employee-added"
        case employeeRemoved = "employee-removed"
        case pinChanged = "pin-changed"
    }

    public let role: Role
    /// The employee's staff number, or the technician's user name; for a refused PIN, the
    /// staff number typed (it may not exist).
    public let who: String
    public let action: Action
    /// How it ended, in a few words ("ok", "wrong PIN", "ticket P-003", "idle 30 s").
    public let result: String

    /// The longest `who` and `result` kept: what comes from outside is bounded.
    public static let maximumText = 64

    public init(role: Role, who: String, action: Action, result: String) {
        self.role = role
        self.who = String(who.prefix(Self.maximumText))
        self.action = action
        self.result = String(result.prefix(Self.maximumText))
    }
}
