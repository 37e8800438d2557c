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

    // MARK: The technician's shell

    /// The totem, its state and who is logged in: the shell's prompt. Never audited.
    case hello
    /// A technician logs in: clupd checks the secret against its hash and opens a session.
    /// The only request that carries a secret; it is never logged nor audited.
    case login(name: String, secret: String)
    /// Ends the session the request carries.
    case logout
    case technicians
    /// Adds a technician (`replacing` false) or gives one a new secret; clupctl hashed it.
    case putTechnician(name: String, secret: PinHash, replacing: Bool)
    case removeTechnician(name: String)
    /// A called ticket whose customer did not come: its place is freed now.
    case skip(number: String)
    /// A ticket made invalid by staff: it leaves the queue and its code no longer opens the door.
    case void(number: String, reason: String)
    /// One self-test step; it may wait for the device up to `timeoutSeconds`. `force`: even
    /// with a customer at the totem.
    case selfTest(SelfTestStep, timeoutSeconds: Int, force: Bool)
    /// Shows calibration target `index` (0...3) and answers with the raw touch on it.
    case calibrationTarget(index: Int, timeoutSeconds: Int, force: Bool)
    /// Ends the calibration: `matrix` (libinput's six numbers) is saved and put in force,
    /// or nil to keep the calibration there was.
    case calibrationEnd(matrix: [Double]?)
    /// Where clupd's log goes: the journal or a file.
    case logSource
    /// Up to `maxBytes` of clupd's log file from `offset`.
    case logRead(offset: Int, maxBytes: Int)
    /// Everything support asks for, in one reply.
    case diagnostics
}

/// What `clupctl selftest` can test, in the order it tests them.
public enum SelfTestStep: String, Codable, Sendable, CaseIterable {
    case printer, screen, voice, presence, turnstile, release, reader
}

/// A request as it crosses the socket: the request, the technician's session, and whether it
/// is the shell's own (its prompt, its completion), which is not audited.
public struct ControlMessage: Codable, Sendable, Equatable {
    public var request: ControlRequest
    public var session: String?
    public var quiet: Bool?

    public init(_ request: ControlRequest, session: String? = nil, quiet: Bool = false) {
        self.request = request
        self.session = session
        self.quiet = quiet ? true : nil
    }

    /// Reads a message, or a bare request as clupctl sent before sessions existed.
    public static func decode(_ data: Data) throws -> ControlMessage {
        let decoder = JSONDecoder()
        if let message = try? decoder.decode(ControlMessage.self, from: data) { return message }
        return ControlMessage(try decoder.decode(ControlRequest.self, from: data))
    }
}

/// The envelope of every reply: `{"ok":true,"result":…}` or `{"ok":false,"error":…}`,
/// the error's code, message and what to do as fields.
public struct ControlReply<Result: Decodable>: Decodable {
    public let ok: Bool
    public let result: Result?
    public let error: CodedError?
}
