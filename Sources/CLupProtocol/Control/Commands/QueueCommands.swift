import CLupCore
import Foundation

extension Control {
    /// `clupctl tickets`: the day's tickets.
    public struct Tickets: ControlCommand {
        public typealias Reply = TicketsReport
        public static let wireName = "tickets"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { "tickets" }
        public init() {}
    }

    /// `clupctl queue`: who waits, who is called, and who is next.
    public struct Queue: ControlCommand {
        public typealias Reply = QueueReport
        public static let wireName = "queue"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { "queue" }
        public init() {}
    }

    /// `clupctl queue call-next`: calls the next ticket now.
    public struct CallNext: ControlCommand {
        public typealias Reply = CallReply
        public static let wireName = "callNext"
        public static let needsTechnician = true
        public static let trail = AuditTrail.kept
        public var summary: String { "call-next" }
        public init() {}
    }

    /// A called ticket whose customer did not come: its place is freed now.
    public struct Skip: ControlCommand {
        public typealias Reply = TicketCareReply
        public static let wireName = "skip"
        public static let needsTechnician = true
        public static let trail = AuditTrail.kept
        public let number: String
        public var summary: String { "skip \(Summary.word(number))" }
        public init(number: String) { self.number = number }
    }

    /// A ticket made invalid by staff: it leaves the queue and its code no longer opens the door.
    public struct VoidTicket: ControlCommand {
        public typealias Reply = TicketCareReply
        public static let wireName = "void"
        public static let needsTechnician = true
        public static let trail = AuditTrail.kept
        public let number: String
        public let reason: String
        public var summary: String { "void \(Summary.word(number)) --reason \(Summary.quoted(reason))" }
        public init(number: String, reason: String) {
            self.number = number
            self.reason = reason
        }
    }

    /// An employee's priority ticket, printed on the totem's printer.
    public struct IssuePriority: ControlCommand {
        public typealias Reply = SimulationReply
        public static let wireName = "issuePriority"
        public static let needsTechnician = true
        public static let trail = AuditTrail.kept
        public let reason: PriorityReason
        public var summary: String { "issue --priority \(reason.rawValue)" }
        public init(_ reason: PriorityReason) { self.reason = reason }
    }

    /// Prints a ticket of today again.
    public struct Reprint: ControlCommand {
        public typealias Reply = SimulationReply
        public static let wireName = "reprint"
        public static let needsTechnician = true
        public static let trail = AuditTrail.kept
        public let number: String
        public var summary: String { "reprint \(Summary.word(number))" }
        public init(number: String) { self.number = number }
    }

    /// `clupctl ledger`: the occupancy ledger of each door.
    public struct Ledger: ControlCommand {
        public typealias Reply = LedgerReport
        public static let wireName = "ledger"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { "ledger" }
        public init() {}
    }

    /// The count corrected by `delta` people, with the reason.
    public struct CorrectLedger: ControlCommand {
        public typealias Reply = LedgerReport
        public static let wireName = "correctLedger"
        public static let needsTechnician = true
        public static let trail = AuditTrail.kept
        public let delta: Int
        public let reason: String
        public var summary: String { "ledger correct \(delta > 0 ? "+" : "")\(delta) \(Summary.quoted(reason))" }
        public init(delta: Int, reason: String) {
            self.delta = delta
            self.reason = reason
        }
    }

    /// The technician counted the people inside: the ledger is set to that count.
    public struct SetOccupancy: ControlCommand {
        public typealias Reply = LedgerReport
        public static let wireName = "setOccupancy"
        public static let needsTechnician = true
        public static let trail = AuditTrail.kept
        public let count: Int
        public let reason: String
        public var summary: String { "ledger correct --set \(count) \(Summary.quoted(reason))" }
        public init(count: Int, reason: String) {
            self.count = count
            self.reason = reason
        }
    }
}
