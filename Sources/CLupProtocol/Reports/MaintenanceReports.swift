import CLupCore
import Foundation

/// The shell's prompt: which totem, how it is, and who is logged in on this session.
public struct HelloReply: Codable, Sendable, Equatable {
    public let storeID: UInt32
    public let letter: String
    /// "ok", or the worst problem in capitals ("PRINTER FAULT", "OUT OF ORDER").
    public let state: String
    /// The technician of the session the request carried, while it lasts.
    public let technician: String?
    public let clupdVersion: String

    public init(storeID: UInt32, letter: String, state: String, technician: String?, clupdVersion: String) {
        self.storeID = storeID
        self.letter = letter
        self.state = state
        self.technician = technician
        self.clupdVersion = clupdVersion
    }
}

/// A session opened: the token the technician's next requests carry.
public struct LoginReply: Codable, Sendable, Equatable {
    public let name: String
    public let token: String
    /// The session ends after this long without a request.
    public let idleSeconds: Int

    public init(name: String, token: String, idleSeconds: Int) {
        self.name = name
        self.token = token
        self.idleSeconds = idleSeconds
    }
}

/// `clupctl technician list`.
public struct TechniciansReport: Codable, Sendable, Equatable {
    public struct Technician: Codable, Sendable, Equatable {
        public let name: String
        public let changedAt: Date
        /// Until when the name is locked after wrong secrets, if it is.
        public let lockedUntil: Date?
        public let loggedIn: Bool

        public init(name: String, changedAt: Date, lockedUntil: Date?, loggedIn: Bool) {
            self.name = name
            self.changedAt = changedAt
            self.lockedUntil = lockedUntil
            self.loggedIn = loggedIn
        }
    }

    public let technicians: [Technician]

    public init(technicians: [Technician]) { self.technicians = technicians }
}

/// A skip or a void done: the ticket's new state and what the totem does next.
public struct TicketCareReply: Codable, Sendable, Equatable {
    public let number: String
    public let state: String
    public let outcome: String

    public init(number: String, state: String, outcome: String) {
        self.number = number
        self.state = state
        self.outcome = outcome
    }
}

/// One self-test step's verdict.
public struct SelfTestResult: Codable, Sendable, Equatable {
    public let step: SelfTestStep
    /// The device tested, as `clupctl status` names it, and its backend.
    public let device: String
    public let passed: Bool
    /// What happened ("job 12 completed", "no pulse within 20 s").
    public let reason: String
    /// What to check when it failed.
    public let check: String?

    public init(step: SelfTestStep, device: String, passed: Bool, reason: String, check: String?) {
        self.step = step
        self.device = device
        self.passed = passed
        self.reason = reason
        self.check = check
    }
}

/// A touch on a calibration target, as the panel reported it with no calibration applied.
public struct RawTouch: Codable, Sendable, Equatable {
    public let index: Int
    /// The target's centre and the touch, normalised to 0...1 across the panel.
    public let targetX, targetY: Double
    public let rawX, rawY: Double
    /// The screen's size in millimetres, for the error in millimetres.
    public let widthMM, heightMM: Double
    /// The largest error the configuration lets a calibration keep.
    public let maxErrorMM: Double

    public init(index: Int, targetX: Double, targetY: Double, rawX: Double, rawY: Double, widthMM: Double, heightMM: Double,
                maxErrorMM: Double) {
        self.index = index
        self.targetX = targetX
        self.targetY = targetY
        self.rawX = rawX
        self.rawY = rawY
        self.widthMM = widthMM
        self.heightMM = heightMM
        self.maxErrorMM = maxErrorMM
    }
}

/// The calibration in force after `calibrationEnd`.
public struct CalibrationReply: Codable, Sendable, Equatable {
    public let matrix: [Double]
    /// Where it comes from: the file clupctl saved, the configuration, or none.
    public let source: String

    public init(matrix: [Double], source: String) {
        self.matrix = matrix
        self.source = source
    }
}

/// Where clupd's log goes.
public struct LogSourceReply: Codable, Sendable, Equatable {
    /// The systemd unit whose journal holds it, under systemd.
    public let journalUnit: String?
    /// The file clupd's standard error is, elsewhere.
    public let file: String?
    public let size: Int?

    public init(journalUnit: String?, file: String?, size: Int?) {
        self.journalUnit = journalUnit
        self.file = file
        self.size = size
    }
}

/// A piece of clupd's log file.
public struct LogChunk: Codable, Sendable, Equatable {
    public let offset: Int
    public let text: String
    /// The file's size when read: less than an offset asked for means it was rotated.
    public let size: Int

    public init(offset: Int, text: String, size: Int) {
        self.offset = offset
        self.text = text
        self.size = size
    }

    public static let maximumBytes = 256 * 1024
}

/// What support asks for, as clupd knows it; clupctl adds the logs and writes the archive.
public struct DiagnosticsReport: Codable, Sendable, Equatable {
    /// One file of the archive: its name and text.
    public struct Part: Codable, Sendable, Equatable {
        public let name: String
        public let text: String

        public init(name: String, text: String) {
            self.name = name
            self.text = text
        }
    }

    public let parts: [Part]

    public init(parts: [Part]) { self.parts = parts }
}

/// A request done, in a sentence.
public struct MessageReply: Codable, Sendable, Equatable {
    public let message: String

    public init(_ message: String) { self.message = message }
}
