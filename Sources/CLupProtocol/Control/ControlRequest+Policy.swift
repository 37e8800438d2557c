import Foundation

extension ControlRequest {
    /// Whether the request changes the totem, so that a technician must be logged in for it.
    /// Every case is decided here, without a default, so a new request cannot slip through.
    /// `sim` requests drive simulated devices only (they stand for a customer, not a
    /// technician); a real device refuses them.
    public var needsTechnician: Bool {
        switch self {
        case .callNext, .correctLedger, .setOccupancy, .issuePriority, .reprint, .putEmployee, .removeEmployee,
             .skip, .void, .selfTest, .calibrationTarget, .calibrationEnd, .removeTechnician, .syncNow:
            true
        case .putTechnician:
            // Root adds the first technician; see the daemon's bootstrap rule.
            true
        case .status, .tickets, .screenshot, .queue, .ledger, .configuration, .printer, .devices, .simApproach, .simLeave,
             .simTap, .simPress, .screen, .simPass, .simScan, .sync, .metrics, .employees, .audit, .simHeadset, .simHold,
             .hello, .login, .logout, .technicians, .logSource, .logRead, .diagnostics:
            false
        }
    }

    /// Whether the request is a routine read, which the audit trail leaves out: a monitoring
    /// loop on `status`, a Prometheus scrape of `metrics` or a look at the queue would
    /// otherwise add an event a second to the log the hub keeps. What changes the totem (or
    /// drives its simulated devices) is audited, and so is what a person takes away on purpose:
    /// the diagnostics archive. Logins, refused ones and logouts are audited where they are
    /// decided (`TechnicianDesk`). Every case is decided here, without a default.
    public var isRoutineRead: Bool {
        switch self {
        case .status, .tickets, .screenshot, .queue, .ledger, .configuration, .printer, .devices, .screen, .sync, .metrics,
             .employees, .technicians, .audit, .hello, .logSource, .logRead:
            true
        case .callNext, .correctLedger, .setOccupancy, .issuePriority, .reprint, .putEmployee, .removeEmployee, .skip, .void,
             .selfTest, .calibrationTarget, .calibrationEnd, .putTechnician, .removeTechnician, .syncNow, .diagnostics,
             .simApproach, .simLeave, .simTap, .simPress, .simPass, .simScan, .simHeadset, .simHold, .login, .logout:
            false
        }
    }

    /// The request as the technician would have typed it, for the audit trail and clupd's
    /// log: never a secret nor a hash.
    public var summary: String {
        switch self {
        case .status: "status"
        case .tickets: "tickets"
        case .screenshot: "screenshot"
        case .queue: "queue"
        case .callNext: "call-next"
        case .ledger: "ledger"
        case let .correctLedger(delta, reason): "ledger correct \(delta > 0 ? "+" : "")\(delta) \(Self.quoted(reason))"
        case let .setOccupancy(count, reason): "ledger correct --set \(count) \(Self.quoted(reason))"
        case .configuration: "config show"
        case .printer: "printer"
        case .devices: "devices"
        case let .issuePriority(reason): "issue --priority \(reason.rawValue)"
        case let .reprint(number): "reprint \(Self.word(number))"
        case .simApproach: "sim approach"
        case .simLeave: "sim leave"
        case let .simTap(x, y): "sim tap \(x) \(y)"
        case let .simPress(name): "sim press \(Self.word(name))"
        case .screen: "screen"
        case let .simPass(direction): "sim pass \(direction.rawValue)"
        case .simScan: "sim scan CODE"
        case .sync: "sync"
        case .syncNow: "sync now"
        case .metrics: "metrics"
        case .employees: "employee list"
        case let .putEmployee(staffNumber, _, replacing): "employee \(replacing ? "pin" : "add") \(Self.word(staffNumber))"
        case let .removeEmployee(staffNumber): "employee remove \(Self.word(staffNumber))"
        case .audit: "audit"
        case let .simHeadset(plugged): "sim headset \(plugged ? "in" : "out")"
        case let .simHold(name, milliseconds): "sim hold \(Self.word(name)) \(milliseconds)"
        case .hello: "hello"
        case let .login(name, _): "login \(Self.word(name))"
        case .logout: "logout"
        case .technicians: "technician list"
        case let .putTechnician(name, _, replacing): "technician \(replacing ? "secret" : "add") \(Self.word(name))"
        case let .removeTechnician(name): "technician remove \(Self.word(name))"
        case let .skip(number): "skip \(Self.word(number))"
        case let .void(number, reason): "void \(Self.word(number)) --reason \(Self.quoted(reason))"
        case let .selfTest(step, timeout, force): "selftest \(step.rawValue) --timeout \(timeout)\(force ? " --force" : "")"
        case let .calibrationTarget(index, _, _): "calibrate (target \(index + 1))"
        case let .calibrationEnd(matrix): matrix == nil ? "calibrate (not saved)" : "calibrate (saved)"
        case .logSource: "logs"
        case let .logRead(offset, _): "logs (from byte \(offset))"
        case .diagnostics: "diagnostics"
        }
    }

    /// A word from outside, bounded and with control characters shown as `?`.
    private static func word(_ text: String) -> String {
        String(text.prefix(40).map { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) ? $0 : "?" })
    }

    private static func quoted(_ text: String) -> String {
        "\"" + String(text.prefix(60).map { $0 == "\"" || $0.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) ? "?" : $0 }) + "\""
    }
}
