import Foundation

/// What `clupctl selftest` can test, in the order it tests them.
public enum SelfTestStep: String, Codable, Sendable, CaseIterable {
    case printer, screen, voice, presence, turnstile, release, reader
}

extension Control {
    /// `clupctl paper`: the paper on the roll, counted since the last new roll.
    public struct Paper: ControlCommand {
        public typealias Reply = PaperReport
        public static let wireName = "paper"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { "paper" }
        public init() {}
    }

    /// `clupctl paper new-roll`: a full roll was just put in; the count starts again.
    public struct PaperNewRoll: ControlCommand {
        public typealias Reply = PaperReport
        public static let wireName = "paperNewRoll"
        public static let needsTechnician = true
        public static let trail = AuditTrail.kept
        public var summary: String { "paper new-roll" }
        public init() {}
    }

    /// `clupctl printer`: the printer's state and the tickets it failed.
    public struct Printer: ControlCommand {
        public typealias Reply = PrinterDetails
        public static let wireName = "printer"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { "printer" }
        public init() {}
    }

    /// `clupctl devices`: USB devices seen and each device's health.
    public struct Devices: ControlCommand {
        public typealias Reply = DevicesReport
        public static let wireName = "devices"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { "devices" }
        public init() {}
    }

    /// `clupctl screenshot`: the screen shown, as PNG.
    public struct Screenshot: ControlCommand {
        public typealias Reply = ScreenshotReply
        public static let wireName = "screenshot"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { doorScreen == true ? "screenshot of the door screen" : "screenshot" }
        /// The calling board above the door rather than the customer's screen (nil: false,
        /// as a clupctl before it asks).
        public var doorScreen: Bool?
        public init(doorScreen: Bool = false) { self.doorScreen = doorScreen ? true : nil }
    }

    /// `clupctl screen`: the screen shown, its language and buttons.
    public struct Screen: ControlCommand {
        public typealias Reply = ScreenReport
        public static let wireName = "screen"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { "screen" }
        public init() {}
    }

    /// One self-test step; it may wait for the device up to `timeoutSeconds`. `force`: even
    /// with a customer at the totem.
    public struct SelfTest: ControlCommand {
        public typealias Reply = SelfTestResult
        public static let wireName = "selfTest"
        public static let needsTechnician = true
        public static let trail = AuditTrail.kept
        public let step: SelfTestStep
        public let timeoutSeconds: Int
        public let force: Bool
        public var summary: String { "selftest \(step.rawValue) --timeout \(timeoutSeconds)\(force ? " --force" : "")" }
        public init(_ step: SelfTestStep, timeoutSeconds: Int, force: Bool) {
            self.step = step
            self.timeoutSeconds = timeoutSeconds
            self.force = force
        }

        /// A self-test answers even when the device fails it: the trail keeps the verdict.
        public static func auditOutcome(of reply: SelfTestResult) -> String {
            "\(reply.passed ? "PASS" : "FAIL") \(reply.reason)"
        }
    }

    /// Shows calibration target `index` (0...3) and answers with the raw touch on it.
    public struct CalibrationTarget: ControlCommand {
        public typealias Reply = RawTouch
        public static let wireName = "calibrationTarget"
        public static let needsTechnician = true
        public static let trail = AuditTrail.kept
        public let index: Int
        public let timeoutSeconds: Int
        public let force: Bool
        public var summary: String { "calibrate (target \(index &+ 1))" }
        public init(index: Int, timeoutSeconds: Int, force: Bool) {
            self.index = index
            self.timeoutSeconds = timeoutSeconds
            self.force = force
        }
    }

    /// Ends the calibration: `matrix` (libinput's six numbers) is saved and put in force, or
    /// nil to keep the calibration there was.
    public struct CalibrationEnd: ControlCommand {
        public typealias Reply = CalibrationReply
        public static let wireName = "calibrationEnd"
        public static let needsTechnician = true
        public static let trail = AuditTrail.kept
        public let matrix: [Double]?
        public var summary: String { matrix == nil ? "calibrate (not saved)" : "calibrate (saved)" }
        public init(matrix: [Double]?) { self.matrix = matrix }
    }

    /// Where clupd's log goes: the journal or a file.
    public struct LogSource: ControlCommand {
        public typealias Reply = LogSourceReply
        public static let wireName = "logSource"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { "logs" }
        public init() {}
    }

    /// Up to `maxBytes` of clupd's log file from `offset`.
    public struct LogRead: ControlCommand {
        public typealias Reply = LogChunk
        public static let wireName = "logRead"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public let offset: Int
        public let maxBytes: Int
        public var summary: String { "logs (from byte \(offset))" }
        public init(offset: Int, maxBytes: Int) {
            self.offset = offset
            self.maxBytes = maxBytes
        }
    }

    /// Everything support asks for, in one reply; audited, as a person takes it away.
    public struct Diagnostics: ControlCommand {
        public typealias Reply = DiagnosticsReport
        public static let wireName = "diagnostics"
        public static let needsTechnician = false
        public static let trail = AuditTrail.kept
        public var summary: String { "diagnostics" }
        public init() {}
    }
}
