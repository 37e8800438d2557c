import CLupCore
import Foundation

extension Control {
    /// The shell's prompt: the totem, its state and who is logged in. Never audited.
    public struct Hello: ControlCommand {
        public typealias Reply = HelloReply
        public static let wireName = "hello"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { "hello" }
        public init() {}
    }

    /// A technician logs in: clupd checks the secret against its hash and opens a session.
    /// The only command that carries a secret; it is never logged, and the trail keeps the
    /// login (refused or not) where it is decided, in `TechnicianDesk`.
    public struct Login: ControlCommand {
        public typealias Reply = LoginReply
        public static let wireName = "login"
        public static let needsTechnician = false
        public static let trail = AuditTrail.keptWhereDecided
        public let name: String
        public let secret: String
        public var summary: String { "login \(Summary.word(name))" }
        public init(name: String, secret: String) {
            self.name = name
            self.secret = secret
        }
    }

    /// Ends the session the request carries.
    public struct Logout: ControlCommand {
        public typealias Reply = MessageReply
        public static let wireName = "logout"
        public static let needsTechnician = false
        public static let trail = AuditTrail.keptWhereDecided
        public var summary: String { "logout" }
        public init() {}
    }

    /// `clupctl technician list`.
    public struct Technicians: ControlCommand {
        public typealias Reply = TechniciansReport
        public static let wireName = "technicians"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { "technician list" }
        public init() {}
    }

    /// Adds a technician (`replacing` false) or gives one a new secret; clupctl hashed it.
    /// Root adds the first technician, before there is anyone to log in.
    public struct PutTechnician: ControlCommand {
        public typealias Reply = TechniciansReport
        public static let wireName = "putTechnician"
        public static let needsTechnician = true
        public static let trail = AuditTrail.kept
        public let name: String
        public let secret: PinHash
        public let replacing: Bool
        public var summary: String { "technician \(replacing ? "secret" : "add") \(Summary.word(name))" }
        public init(name: String, secret: PinHash, replacing: Bool) {
            self.name = name
            self.secret = secret
            self.replacing = replacing
        }
    }

    public struct RemoveTechnician: ControlCommand {
        public typealias Reply = TechniciansReport
        public static let wireName = "removeTechnician"
        public static let needsTechnician = true
        public static let trail = AuditTrail.kept
        public let name: String
        public var summary: String { "technician remove \(Summary.word(name))" }
        public init(name: String) { self.name = name }
    }

    /// The employees who may log in at the PIN pad, and whether the pad is locked.
    public struct Employees: ControlCommand {
        public typealias Reply = EmployeesReport
        public static let wireName = "employees"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { "employee list" }
        public init() {}
    }

    /// Adds an employee (`replacing` false) or gives one a new PIN (true). clupctl hashed
    /// the PIN: the PIN itself never crosses the socket.
    public struct PutEmployee: ControlCommand {
        public typealias Reply = EmployeesReport
        public static let wireName = "putEmployee"
        public static let needsTechnician = true
        public static let trail = AuditTrail.kept
        public let staffNumber: String
        public let pin: PinHash
        public let replacing: Bool
        public var summary: String { "employee \(replacing ? "pin" : "add") \(Summary.word(staffNumber))" }
        public init(staffNumber: String, pin: PinHash, replacing: Bool) {
            self.staffNumber = staffNumber
            self.pin = pin
            self.replacing = replacing
        }
    }

    public struct RemoveEmployee: ControlCommand {
        public typealias Reply = EmployeesReport
        public static let wireName = "removeEmployee"
        public static let needsTechnician = true
        public static let trail = AuditTrail.kept
        public let staffNumber: String
        public var summary: String { "employee remove \(Summary.word(staffNumber))" }
        public init(staffNumber: String) { self.staffNumber = staffNumber }
    }

    /// What staff did at the totem (the PIN pad, employees managed), since `since` (nil: all kept).
    public struct Audit: ControlCommand {
        public typealias Reply = AuditReport
        public static let wireName = "audit"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public let since: Date?
        public var summary: String { "audit" }
        public init(since: Date?) { self.since = since }
    }
}
