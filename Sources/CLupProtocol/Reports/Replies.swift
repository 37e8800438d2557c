import Foundation

/// `clupctl screenshot`: the current screen as PNG bytes.
public struct ScreenshotReply: Codable, Sendable {
    public let png: Data

    public init(png: Data) {
        self.png = png
    }
}

/// What a simulated device event did.
public struct SimulationReply: Codable, Sendable {
    /// One sentence: what happened.
    public let outcome: String
    /// The screen shown afterwards.
    public let screen: String
    /// The ticket issued, when the event issued one.
    public let ticket: String?

    public init(outcome: String, screen: String, ticket: String?) {
        self.outcome = outcome
        self.screen = screen
        self.ticket = ticket
    }
}

/// `clupctl config show`: the configuration in force, as TOML.
public struct ConfigurationReport: Codable, Sendable {
    public let source: String
    public let toml: String

    public init(source: String, toml: String) {
        self.source = source
        self.toml = toml
    }
}

/// The screen shown, as `clupctl screen` reports it: tests and technicians tap a button by name.
public struct ScreenReport: Codable, Sendable, Equatable {
    public struct Button: Codable, Sendable, Equatable {
        /// What `clupctl sim press` takes: "get-ticket", "language-it", "slot-2".
        public let name: String
        public let label: String
        /// Its rectangle in display pixels.
        public let x, y, width, height: Int

        public init(name: String, label: String, x: Int, y: Int, width: Int, height: Int) {
            self.name = name
            self.label = label
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    public let name: String
    /// The language it speaks and shows (ISO 639-1).
    public let language: String
    public let width, height: Int
    public let buttons: [Button]

    public init(name: String, language: String, width: Int, height: Int, buttons: [Button]) {
        self.name = name
        self.language = language
        self.width = width
        self.height = height
        self.buttons = buttons
    }
}

/// `clupctl employee list`: who may log in at the PIN pad (staff numbers only), and the pad's lock.
public struct EmployeesReport: Codable, Sendable, Equatable {
    public struct Employee: Codable, Sendable, Equatable {
        public let staffNumber: String
        /// When the employee was added or last given a PIN (here, or heard from the hub).
        public let changedAt: Date
        /// "totem" (clupctl) or "hub" (the store's list, managed with clup-hub).
        public let managedBy: String

        public init(staffNumber: String, changedAt: Date, managedBy: String) {
            self.staffNumber = staffNumber
            self.changedAt = changedAt
            self.managedBy = managedBy
        }
    }

    public let employees: [Employee]
    /// Until when the pad is locked after too many wrong PINs (nil: it is not).
    public let padLockedUntil: Date?
    /// Wrong PINs since the last right one or the last lock.
    public let failures: Int

    public init(employees: [Employee], padLockedUntil: Date?, failures: Int) {
        self.employees = employees
        self.padLockedUntil = padLockedUntil
        self.failures = failures
    }
}

/// `clupctl audit`: what staff did at the totem, oldest first.
public struct AuditReport: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public let at: Date
        public let role: String
        public let who: String
        public let action: String
        public let result: String
        /// The Unix user of the control socket's peer, for what came through it.
        public let uid: UInt32?
        /// The command, as typed (secrets left out).
        public let what: String?
        /// Where it came from (the touchscreen, or the control socket's caller); nil in
        /// entries from before 0.12.
        public let from: String?

        public init(at: Date, role: String, who: String, action: String, result: String, uid: UInt32? = nil, what: String? = nil,
                    from: String? = nil) {
            self.from = from
            self.at = at
            self.role = role
            self.who = who
            self.action = action
            self.result = result
            self.uid = uid
            self.what = what
        }
    }

    public let entries: [Entry]
    /// Whether older entries were left out (the report holds the newest `AuditReport.limit`).
    public let truncated: Bool

    public static let limit = 1000

    public init(entries: [Entry], truncated: Bool) {
        self.entries = entries
        self.truncated = truncated
    }
}
