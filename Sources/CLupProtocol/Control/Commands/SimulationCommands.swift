import CLupCore
import Foundation

// The simulated devices, driven as a customer would: no technician needed, but audited,
// and a real device refuses them.
extension Control {
    /// Someone steps in front of the simulated presence sensor.
    public struct SimApproach: ControlCommand {
        public typealias Reply = SimulationReply
        public static let wireName = "simApproach"
        public static let needsTechnician = false
        public static let trail = AuditTrail.kept
        public var summary: String { "sim approach" }
        public init() {}
    }

    /// The person in front of the simulated presence sensor walks away.
    public struct SimLeave: ControlCommand {
        public typealias Reply = SimulationReply
        public static let wireName = "simLeave"
        public static let needsTechnician = false
        public static let trail = AuditTrail.kept
        public var summary: String { "sim leave" }
        public init() {}
    }

    /// A tap at a point of the simulated touchscreen, in display pixels.
    public struct SimTap: ControlCommand {
        public typealias Reply = SimulationReply
        public static let wireName = "simTap"
        public static let needsTechnician = false
        public static let trail = AuditTrail.kept
        public let x: Int
        public let y: Int
        public var summary: String { "sim tap \(x) \(y)" }
        public init(x: Int, y: Int) {
            self.x = x
            self.y = y
        }
    }

    /// A tap in the middle of the button named `name` on the screen shown (`clupctl screen`).
    public struct SimPress: ControlCommand {
        public typealias Reply = SimulationReply
        public static let wireName = "simPress"
        public static let needsTechnician = false
        public static let trail = AuditTrail.kept
        public let name: String
        public var summary: String { "sim press \(Summary.word(name))" }
        public init(name: String) { self.name = name }
    }

    /// A touch held `milliseconds` in the middle of the button (or the staff corner) named `name`.
    public struct SimHold: ControlCommand {
        public typealias Reply = SimulationReply
        public static let wireName = "simHold"
        public static let needsTechnician = false
        public static let trail = AuditTrail.kept
        public let name: String
        public let milliseconds: Int
        public var summary: String { "sim hold \(Summary.word(name)) \(milliseconds)" }
        public init(name: String, milliseconds: Int) {
            self.name = name
            self.milliseconds = milliseconds
        }
    }

    /// Someone passes the simulated turnstile.
    public struct SimPass: ControlCommand {
        public typealias Reply = SimulationReply
        public static let wireName = "simPass"
        public static let needsTechnician = false
        public static let trail = AuditTrail.kept
        public let direction: PassageDirection
        public var summary: String { "sim pass \(direction.rawValue)" }
        public init(_ direction: PassageDirection) { self.direction = direction }
    }

    /// A code shown to the simulated door reader (never logged: it may be a ticket's).
    public struct SimScan: ControlCommand {
        public typealias Reply = SimulationReply
        public static let wireName = "simScan"
        public static let needsTechnician = false
        public static let trail = AuditTrail.kept
        public let code: String
        public var summary: String { "sim scan CODE" }
        public init(code: String) { self.code = code }
    }

    /// A headset plugged into the simulated jack (true) or pulled out.
    public struct SimHeadset: ControlCommand {
        public typealias Reply = SimulationReply
        public static let wireName = "simHeadset"
        public static let needsTechnician = false
        public static let trail = AuditTrail.kept
        public let plugged: Bool
        public var summary: String { "sim headset \(plugged ? "in" : "out")" }
        public init(plugged: Bool) { self.plugged = plugged }
    }
}
