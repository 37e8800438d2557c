import CLupCore
import Crypto
import Foundation

/// What a totem and the hub say to each other over HTTPS, as JSON.
///
/// A totem enrols once with a one-time code (`EnrolmentRequest`); afterwards each request
/// carries the device id, the time, a nonce and an Ed25519 signature over them and the body
/// (`RequestSignature`), and the hub refuses a request it has seen or that is too old.
public enum HubWire {
    /// Lowercase hex of `bytes` (by hand: `String(format:)` goes through ICU for every byte).
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The paths of the hub's API.
    public static let enrolPath = "/v1/enrol"
    public static let timePath = "/v1/time"
    public static let eventsPath = "/v1/events"
    /// `GET /v1/settings?after=VERSION`: the store's settings once newer than VERSION
    /// (a long poll of at most `settingsWait` seconds; the current ones after that).
    public static let settingsPath = "/v1/settings"
    public static let settingsWait = 10.0
    /// A door's line (`DoorLine`) once its version is past `after`: a long poll as the
    /// settings' (a door of a hub without it takes its line from the settings). A door that
    /// takes its part of the capacity from its line says so with `lineTakesDoorLimit=1` in
    /// the query; the hub then gives it that door's settings at the store's configuration
    /// version, which a new part does not move (the part comes on the line).
    public static let linePath = "/v1/line"
    public static let lineTakesDoorLimit = "doorLimit"
    /// `GET`: today's booking slots still bookable, with the places the hub can book in each.
    public static let totemSlotsPath = "/v1/totem/slots"
    /// `POST` a `TotemBookingRequest`: the hub books a place for a customer at the totem.
    public static let totemBookingsPath = "/v1/totem/bookings"
    /// Where a totem sends the frame of its screen someone at the panel asked for.
    public static let totemScreenPath = "/v1/totem/screen"

    /// At most this many events in one batch.
    public static let maximumBatchEvents = 500
    /// A request body larger than this is refused unread (500 events of at most 4 KiB).
    public static let maximumBodyBytes = 2 << 20
    /// An event's payload larger than this is dead-lettered, not stored.
    public static let maximumPayloadBytes = 4096
}

/// A totem asks to join a store.
public struct EnrolmentRequest: Codable, Sendable, Equatable {
    /// The one-time code a chain administrator made (`clup-hub enrolment-code`).
    public var code: String
    /// The totem's device key (raw Ed25519, base64): it signs every later request.
    public var deviceKey: String
    /// The totem's ticket key (raw Ed25519, base64): the store's other doors verify its tickets with it.
    public var ticketKey: String
    public var softwareVersion: String

    public init(code: String, deviceKey: String, ticketKey: String, softwareVersion: String) {
        self.code = code
        self.deviceKey = deviceKey
        self.ticketKey = ticketKey
        self.softwareVersion = softwareVersion
    }
}

/// The store a totem joined, and who it is there.
public struct EnrolmentReply: Codable, Sendable, Equatable {
    public var deviceID: String
    public var storeID: String
    public var letter: String
    public var door: String
    /// The chain's release key (binary OpenPGP, base64), which signs the apt repository the
    /// totem takes its updates from; absent from a hub without one.
    public var releaseKey: String?
    /// Where on the hub that repository is served ("/repo").
    public var repositoryPath: String?

    public init(deviceID: String, storeID: String, letter: String, door: String) {
        self.deviceID = deviceID
        self.storeID = storeID
        self.letter = letter
        self.door = door
    }
}

/// One event of a totem's log, as uploaded.
public struct UploadedEvent: Codable, Sendable, Equatable {
    public var seq: Int64
    /// The totem's wall clock when the event was recorded (seconds since 1970).
    public var wallTime: Double
    public var type: String
    /// The event as the totem stored it (JSON text, sorted keys): hashed as sent.
    public var payload: String

    public init(seq: Int64, wallTime: Double, type: String, payload: String) {
        self.seq = seq
        self.wallTime = wallTime
        self.type = type
        self.payload = payload
    }

    /// SHA-256 of the type and payload: what the hub and the totem compare.
    public var contentHash: String { Self.contentHash(type: type, payload: payload) }

    public static func contentHash(type: String, payload: String) -> String {
        HubWire.hex(SHA256.hash(data: Data((type + "\n" + payload).utf8)))
    }
}

/// A batch of the outbox, oldest first.
public struct EventBatch: Codable, Sendable, Equatable {
    public var events: [UploadedEvent]
    /// The events the totem still holds after this batch, for the hub's fleet view.
    public var outboxDepth: Int64
    /// The totem's clock minus the hub's (seconds), as the totem last measured it: the hub
    /// records it, and keeps its own receive time for every event.
    public var clockOffset: Double?
    /// The door's figures now, for sharing the store's capacity among its doors.
    public var door: DoorReport?
    /// The totem's devices and printer now, for the hub's fleet view.
    public var health: TotemHealth?

    public init(events: [UploadedEvent], outboxDepth: Int64, clockOffset: Double?, door: DoorReport? = nil, health: TotemHealth? = nil) {
        self.events = events
        self.outboxDepth = outboxDepth
        self.clockOffset = clockOffset
        self.door = door
        self.health = health
    }
}

/// How a totem's devices and printer are doing, as its `clupctl status` says.
public struct TotemHealth: Codable, Sendable, Equatable {
    public struct Device: Codable, Sendable, Equatable {
        public var role: String
        public var state: String
        public var detail: String

        public init(role: String, state: String, detail: String) {
            self.role = role
            self.state = state
            self.detail = detail
        }
    }

    public var devices: [Device]
    /// The print queue's state in a line ("idle, accepting jobs", "stopped: media-empty").
    public var printer: String
    /// The clupd version running ("0.12.0"); absent from totems older than rollouts.
    public var softwareVersion: String?
    /// How the totem's last software update went, as its update helper reported it.
    public var update: UpdateReport?
    /// How full the totem's audit trail is (absent from totems before 0.12).
    public var auditTrail: AuditTrailFill?
    /// The last daily check of the installed package's files (absent before 0.12, and until
    /// the update helper first ran one).
    public var integrity: IntegrityReport?
    /// Whether the print queue takes jobs and prints them (absent before 0.13): `printer` in a
    /// flag, for the hub's metrics and alerts.
    public var printerReady: Bool?
    /// The printer's IPP state reasons ("media-empty", "cover-open"), "none" left out
    /// (absent before 0.13).
    public var printerReasons: [String]?
    /// How full the filesystem of clupd's state is (absent before 0.13).
    public var disk: DiskFill?
    /// Why the totem records nothing now (its disk is full), absent when it does.
    public var notRecording: String?
    /// The paper on the roll (absent before 0.13).
    public var paper: PaperStatus?
    /// The door's counting figures of yesterday and today (absent before 0.13).
    public var counting: [DoorCounting]?

    public init(devices: [Device], printer: String, softwareVersion: String? = nil, update: UpdateReport? = nil,
                auditTrail: AuditTrailFill? = nil, integrity: IntegrityReport? = nil,
                printerReady: Bool? = nil, printerReasons: [String]? = nil, disk: DiskFill? = nil, notRecording: String? = nil,
                paper: PaperStatus? = nil, counting: [DoorCounting]? = nil) {
        self.devices = devices
        self.printer = printer
        self.softwareVersion = softwareVersion
        self.update = update
        self.auditTrail = auditTrail
        self.integrity = integrity
        self.printerReady = printerReady
        self.printerReasons = printerReasons
        self.disk = disk
        self.notRecording = notRecording
        self.paper = paper
        self.counting = counting
    }

    /// The reasons IPP says a printer has no paper.
    public static let paperOutReasons: Set<String> = ["media-empty", "media-needed", "media-empty-error", "media-needed-error"]

    /// Whether the printer said it has no paper.
    public var paperOut: Bool { (printerReasons ?? []).contains { Self.paperOutReasons.contains($0) } }

    /// The same report with every text cut to `characters` and at most 16 devices: what
    /// the hub keeps of it.
    public func bounded(characters: Int = 200) -> TotemHealth {
        let cut = { (text: String) in Self.cut(text, characters) }
        // A role is a word (it becomes a metric's label), each once.
        var roles: Set<String> = []
        let devices = devices.filter { Self.isKeyword($0.role) && $0.role.utf8.count <= 32 && roles.insert($0.role).inserted }
        return TotemHealth(devices: devices.prefix(16).map { Device(role: $0.role, state: cut($0.state), detail: cut($0.detail)) },
                           printer: cut(printer), softwareVersion: softwareVersion.map { String($0.prefix(64)) },
                           update: update.map { UpdateReport(version: String($0.version.prefix(64)), outcome: $0.outcome,
                                                             detail: cut($0.detail), at: $0.at) },
                           auditTrail: auditTrail.flatMap { $0.isSane ? $0 : nil },
                           integrity: integrity.map { $0.bounded(characters: characters) },
                           printerReady: printerReady,
                           // IPP keywords only: at most 8, each of letters, digits and "-".
                           printerReasons: printerReasons.map { reasons in
                               reasons.prefix(8).map { String($0.prefix(48)) }.filter(Self.isKeyword)
                           },
                           disk: disk.flatMap { $0.isSane ? $0 : nil }, notRecording: notRecording.map(cut),
                           paper: paper.flatMap { $0.isSane ? $0 : nil },
                           counting: counting.map { Array($0.filter(\.isSane).prefix(8)) })
    }

    static func isKeyword(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }
}

/// The paper on a totem's roll as the hub keeps it: whether it is low, and about how many
/// tickets are left where the totem can tell.
public struct PaperStatus: Codable, Sendable, Equatable {
    public var low: Bool
    public var ticketsLeft: Int?

    public init(low: Bool, ticketsLeft: Int?) {
        self.low = low
        self.ticketsLeft = ticketsLeft
    }

    public init(_ report: PaperReport) {
        self.init(low: report.low, ticketsLeft: report.ticketsLeft)
    }

    var isSane: Bool { ticketsLeft.map { (0...1_000_000).contains($0) } ?? true }
}

/// How full a filesystem is, as `statvfs` counts it: the bytes a non-root writer can still
/// use, of all the filesystem holds.
public struct DiskFill: Codable, Sendable, Equatable {
    public var availableBytes: Int64
    public var sizeBytes: Int64

    public init(availableBytes: Int64, sizeBytes: Int64) {
        self.availableBytes = availableBytes
        self.sizeBytes = sizeBytes
    }

    /// The filesystem holding `path`, nil where it cannot be read.
    public static func of(_ path: String) -> DiskFill? {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return nil }
        let block = Int64(clamping: stats.f_frsize)
        let (size, sizeOverflow) = Int64(clamping: stats.f_blocks).multipliedReportingOverflow(by: block)
        let (available, availableOverflow) = Int64(clamping: stats.f_bavail).multipliedReportingOverflow(by: block)
        guard !sizeOverflow, !availableOverflow else { return nil }
        return DiskFill(availableBytes: available, sizeBytes: size)
    }

    /// What the hub takes of a report: sizes a filesystem could have.
    var isSane: Bool { sizeBytes > 0 && (0...sizeBytes).contains(availableBytes) }

    /// The share used, from 0 to 1.
    public var usedShare: Double { sizeBytes > 0 ? Double(sizeBytes - min(availableBytes, sizeBytes)) / Double(sizeBytes) : 0 }
}

extension TotemHealth {
    /// `text` cut to `characters` Unicode scalars, "…" after a cut (scalars, not
    /// `Character`s: one grapheme can hold any number of scalars).
    static func cut(_ text: String, _ characters: Int) -> String {
        text.unicodeScalars.count > characters ? TypedText.prefix(text, characters) + "…" : text
    }
}

/// How full the totem's audit trail is: the entries it keeps, of the bound past which the
/// oldest of them (those the hub holds already) are deleted. Past `warningShare` the totem
/// warns, in its log, `clupctl status`, its metrics and to the hub, before anything goes.
public struct AuditTrailFill: Codable, Sendable, Equatable {
    public var entries: Int
    public var bound: Int

    /// The share of the bound past which the totem warns (IEC 62443-4-2 CR 2.9).
    public static let warningShare = 0.8

    public init(entries: Int, bound: Int) {
        self.entries = entries
        self.bound = bound
    }

    /// What the hub takes of a report: counts a totem could hold.
    var isSane: Bool { (0...100_000_000).contains(entries) && (1...100_000_000).contains(bound) }

    public var share: Double { bound > 0 ? Double(entries) / Double(bound) : 0 }
    public var isNearlyFull: Bool { share >= Self.warningShare }

    /// The warning in a line, when the trail is past `warningShare` of its bound.
    public var warning: String? {
        guard isNearlyFull else { return nil }
        return "the audit trail holds \(entries) entries, \(Int((share * 100).rounded(.down))) % of the \(bound) this totem keeps: "
            + "past that the oldest the hub holds are deleted here (see what fills it with clupctl audit)"
    }
}

/// The last check of the installed package's files against what the package installed
/// (`dpkg --verify clup-totem`: the MD5 sums dpkg keeps), run once a day by the update
/// helper as root. A file changed or missing outside an update is what it looks for;
/// configuration files (`/etc/clup/clupd.toml`), which a technician edits, are not counted.
public struct IntegrityReport: Codable, Sendable, Equatable {
    /// When it ran (seconds since 1970).
    public var at: Double
    /// The package version checked.
    public var version: String
    /// How many files the package installed (as dpkg lists them).
    public var files: Int
    /// The files changed or missing ("/usr/bin/clupd changed", "/usr/bin/clupctl missing"),
    /// at most `maximumListed`.
    public var changed: [String]
    /// How many were changed or missing in all (`changed` lists the first of them).
    public var changedCount: Int
    /// Why the check could not run (dpkg missing, the package not installed); nil when it ran.
    public var problem: String?

    public static let maximumListed = 16

    public init(at: Double, version: String, files: Int, changed: [String], changedCount: Int? = nil, problem: String? = nil) {
        self.at = at
        self.version = version
        self.files = files
        self.changed = Array(changed.prefix(Self.maximumListed))
        self.changedCount = changedCount ?? changed.count
        self.problem = problem
    }

    public var isClean: Bool { changedCount == 0 && problem == nil }

    /// The result in a line: "ok: 41 files as installed", "3 files changed outside an update: …".
    public var summary: String {
        if let problem { return "not checked: \(problem)" }
        if changedCount == 0 { return "ok: \(files) files of clup-totem \(version) as installed" }
        let more = changedCount > changed.count ? " and \(changedCount - changed.count) more" : ""
        return "\(changedCount) file\(changedCount == 1 ? "" : "s") of clup-totem \(version) changed outside an update: "
            + changed.joined(separator: ", ") + more
    }

    func bounded(characters: Int) -> IntegrityReport {
        let cut = { (text: String) in TotemHealth.cut(text, characters) }
        return IntegrityReport(at: at.isFinite ? at : 0, version: String(version.prefix(64)), files: max(0, min(files, 1_000_000)),
                               changed: changed.prefix(Self.maximumListed).map(cut), changedCount: max(0, min(changedCount, 1_000_000)),
                               problem: problem.map(cut))
    }
}

/// How a totem's software update went: installed and healthy, or undone (rolled back to the
/// version before), or failed before anything changed.
public struct UpdateReport: Codable, Sendable, Equatable {
    public enum Outcome: String, Codable, Sendable {
        case installed
        case rolledBack = "rolled-back"
        case failed
    }

    public var version: String
    public var outcome: Outcome
    /// Why, in a line ("no READY within 120 s").
    public var detail: String
    /// When (seconds since 1970).
    public var at: Double
    /// The SHA-256 of the release manifest a refusal was about (the helper tries the same
    /// version again only with another manifest). A refusal goes to the hub as `failed`, its
    /// detail starting "refused:": hubs that predate refusals read it as a failure.
    public var manifest: String?

    /// The detail's start of a refusal (no signed manifest, expired, a downgrade).
    public static let refusedPrefix = "refused: "
    public var isRefusal: Bool { outcome == .failed && detail.hasPrefix(Self.refusedPrefix) }

    public init(version: String, outcome: Outcome, detail: String, at: Double, manifest: String? = nil) {
        self.manifest = manifest
        self.version = version
        self.outcome = outcome
        self.detail = detail
        self.at = at
    }
}

/// What a door's totem holds, as of one point of its log (`CapacityEscrow`).
public struct DoorReport: Codable, Sendable, Equatable {
    /// People in by this door less those out by it, plus its tickets called or admitted.
    public var held: Int
    /// Tickets waiting in its queue.
    public var waiting: Int
    /// The last seq of its log when these figures were taken.
    public var seq: Int64

    public init(held: Int, waiting: Int, seq: Int64) {
        self.held = held
        self.waiting = waiting
        self.seq = seq
    }

    /// Why the hub cannot use the report, or nil.
    public var problem: String? {
        if abs(held) > StoreSettingsDocument.maximumDoorLimit { return "a door holding \(held) places" }
        if !(0...1_000_000).contains(waiting) { return "\(waiting) people waiting at one door" }
        if seq < 0 { return "seq \(seq)" }
        return nil
    }
}

/// What the hub holds of a totem's log after a batch.
public struct BatchReply: Codable, Sendable, Equatable {
    /// The highest seq below which the hub holds every event of the device: the totem
    /// uploads from the next one. A gap is never skipped.
    public var acknowledged: Int64
    /// Events of this batch the hub kept as dead letters (stored with the reason, not applied).
    public var deadLettered: Int
    /// The hub's clock when it answered (seconds since 1970).
    public var hubTime: Double
    /// Other totems enrolled at this door that hold places of the store and have not been
    /// heard lately: an old totem replaced and never revoked, whose places wait for it
    /// (absent from hubs before 0.13, and when there is none).
    public var silentHolders: [SilentHolder]?

    public init(acknowledged: Int64, deadLettered: Int, hubTime: Double, silentHolders: [SilentHolder]? = nil) {
        self.acknowledged = acknowledged
        self.deadLettered = deadLettered
        self.hubTime = hubTime
        self.silentHolders = silentHolders
    }
}

/// A totem at the same door as the one told, silent for a while, that holds places of the
/// store: places the escrow cannot give to another door while it may still use them offline.
public struct SilentHolder: Codable, Sendable, Equatable {
    public var device: String
    /// The places it may still be using: those it holds, was granted, or was granted
    /// before and has not yet said it gave back, whichever is most.
    public var places: Int
    /// When the hub last heard from it, in Unix seconds (0: never).
    public var lastContact: Double

    /// Not heard for this long, a totem at a door with another is counted as silent.
    public static let silentAfter = 300.0
    /// At most this many are sent.
    public static let most = 4

    public init(device: String, places: Int, lastContact: Double) {
        self.device = device
        self.places = places
        self.lastContact = lastContact
    }

    /// What a totem keeps of a hub's answer: a few, their ids as ids, their figures sane.
    public static func bounded(_ holders: [SilentHolder]?) -> [SilentHolder]? {
        holders.map { holders in
            // A device id as the hub makes them: it goes into a command a technician copies.
            holders.prefix(most).filter {
                (0...1_000_000).contains($0.places) && $0.lastContact.isFinite && $0.lastContact >= 0
                    && (1...64).contains($0.device.utf8.count)
                    && $0.device.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                        || $0 == "-" || $0 == "." || $0 == "_" }
            }
        }
    }

    /// The problem line the totem shows, `now` in Unix seconds.
    public func problem(thisDevice: String, now: Double) -> String {
        let silence = lastContact > 0 ? "not heard for \(Self.duration(now - lastContact))" : "never heard"
        return "this door's places: \(places) are held by \(device), \(silence); if it was replaced, hand the door over "
            + "at the hub: clup-hub totem replace \(device) \(thisDevice)"
    }

    /// "2 h 5 min", "7 min".
    static func duration(_ seconds: Double) -> String {
        let minutes = Int(max(0, min(seconds, 1e9)) / 60)
        return minutes >= 60 ? "\(minutes / 60) h \(minutes % 60) min" : "\(minutes) min"
    }
}

/// The hub's clock, asked before signing so that a totem whose clock is wrong still signs
/// with a time the hub accepts (and reports how far off it is).
public struct HubTime: Codable, Sendable, Equatable {
    public var hubTime: Double

    public init(hubTime: Double) {
        self.hubTime = hubTime
    }
}

/// The headers of a signed request, and the text signed.
public struct RequestSignature: Sendable, Equatable {
    public static let deviceHeader = "CLup-Device"
    public static let timeHeader = "CLup-Time"
    public static let nonceHeader = "CLup-Nonce"
    public static let signatureHeader = "CLup-Signature"
    /// A request signed further than this from the hub's clock is refused; nonces are kept as long.
    public static let replayWindow: Double = 300

    public var deviceID: String
    /// Milliseconds since 1970 on the hub's clock, as the totem estimates it.
    public var timeMillis: Int64
    /// 16 random bytes, hex: a request is accepted once.
    public var nonce: String
    /// Ed25519 over `signedText`, base64.
    public var signature: String

    public init(deviceID: String, timeMillis: Int64, nonce: String, signature: String) {
        self.deviceID = deviceID
        self.timeMillis = timeMillis
        self.nonce = nonce
        self.signature = signature
    }

    /// What is signed: method, path, device, time, nonce and the body's SHA-256, one per line.
    public static func signedText(method: String, path: String, deviceID: String, timeMillis: Int64,
                                  nonce: String, body: some DataProtocol) -> Data {
        let bodyHash = HubWire.hex(SHA256.hash(data: Data(body)))
        return Data([method, path, deviceID, String(timeMillis), nonce, bodyHash].joined(separator: "\n").utf8)
    }

    /// Signs a request with the device key.
    public static func sign(method: String, path: String, deviceID: String, timeMillis: Int64,
                            body: some DataProtocol, key: Curve25519.Signing.PrivateKey) throws -> RequestSignature {
        let nonce = HubWire.hex((0..<16).map { _ in UInt8.random(in: 0...255) })
        let text = signedText(method: method, path: path, deviceID: deviceID, timeMillis: timeMillis, nonce: nonce, body: body)
        return RequestSignature(deviceID: deviceID, timeMillis: timeMillis, nonce: nonce,
                                signature: try key.signature(for: text).base64EncodedString())
    }

    /// Whether the signature is the device's over this request.
    public func verifies(method: String, path: String, body: some DataProtocol, key: Curve25519.Signing.PublicKey) -> Bool {
        guard let raw = Data(base64Encoded: signature) else { return false }
        let text = Self.signedText(method: method, path: path, deviceID: deviceID, timeMillis: timeMillis, nonce: nonce, body: body)
        return key.isValidSignature(raw, for: text)
    }

    public var headers: [(String, String)] {
        [(Self.deviceHeader, deviceID), (Self.timeHeader, String(timeMillis)), (Self.nonceHeader, nonce),
         (Self.signatureHeader, signature)]
    }
}

/// The totem's sync as `clupctl sync` shows it.
public struct SyncReport: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        /// No hub configured, or the totem not enrolled.
        case off
        /// The last attempt reached the hub.
        case online
        /// The hub could not be reached (or answered an error); retrying with backoff.
        case offline
        /// Online but the outbox has not moved for a while: the watchdog's finding.
        case stuck
        /// The hub refused this totem (revoked or unknown): nothing is sent until it is enrolled again.
        case refused
    }

    public var state: State
    public var hub: String?
    public var deviceID: String
    /// The last event the totem recorded, and the last one the hub holds contiguously.
    public var lastSeq: Int64
    public var acknowledgedSeq: Int64?
    public var outboxDepth: Int64?
    public var lastSuccess: Date?
    public var lastAttempt: Date?
    public var lastError: CodedError?
    /// The hub's clock minus the totem's, in seconds, as of the last reply.
    public var clockSkew: Double?
    /// Events the hub kept as dead letters since clupd started.
    public var deadLettered: Int
    public var consecutiveFailures: Int
    /// When the next attempt is due, in seconds from now.
    public var nextAttemptIn: Double?
    /// What the hub last said of other totems at this door holding places silently.
    public var silentHolders: [SilentHolder]?

    public init(state: State, hub: String?, deviceID: String, lastSeq: Int64, acknowledgedSeq: Int64?, outboxDepth: Int64?,
                lastSuccess: Date?, lastAttempt: Date?, lastError: CodedError?, clockSkew: Double?, deadLettered: Int,
                consecutiveFailures: Int, nextAttemptIn: Double?, silentHolders: [SilentHolder]? = nil) {
        self.silentHolders = silentHolders
        self.state = state
        self.hub = hub
        self.deviceID = deviceID
        self.lastSeq = lastSeq
        self.acknowledgedSeq = acknowledgedSeq
        self.outboxDepth = outboxDepth
        self.lastSuccess = lastSuccess
        self.lastAttempt = lastAttempt
        self.lastError = lastError
        self.clockSkew = clockSkew
        self.deadLettered = deadLettered
        self.consecutiveFailures = consecutiveFailures
        self.nextAttemptIn = nextAttemptIn
    }
}

/// Today's booking slots the hub can still book, for the totem's "book a later time".
public struct SlotOffers: Codable, Sendable, Equatable {
    public struct Slot: Codable, Sendable, Equatable {
        /// The slot's start, Unix seconds.
        public var start: Double
        /// Places the hub can still book in it.
        public var free: Int

        public init(start: Double, free: Int) {
            self.start = start
            self.free = free
        }
    }

    public var slots: [Slot]

    public init(slots: [Slot]) {
        self.slots = slots
    }
}

/// A totem asks the hub to book a place in the slot starting at `slotStart` (Unix seconds).
public struct TotemBookingRequest: Codable, Sendable, Equatable {
    public var slotStart: Double

    public init(slotStart: Double) {
        self.slotStart = slotStart
    }
}

/// A booking the hub made for a customer at a totem: printed there as it is.
public struct TotemBooking: Codable, Sendable, Equatable {
    public var number: String
    public var code: String
    public var slotStart: Double

    public init(number: String, code: String, slotStart: Double) {
        self.number = number
        self.code = code
        self.slotStart = slotStart
    }
}

/// One frame of a totem's screen, for the look asked for at the panel (`ScreenWanted`):
/// the PNG `clupctl screenshot` would save, and when it was taken (Unix seconds).
public struct ScreenFrame: Codable, Sendable, Equatable {
    public var request: String
    public var png: Data
    public var takenAt: Double

    /// A frame's PNG is at most this many bytes (the body's bound, less base64's third).
    public static let maximumBytes = 1 << 20
    /// And at most this many pixels a side.
    public static let maximumSide = 7680

    public init(request: String, png: Data, takenAt: Double) {
        self.request = request
        self.png = png
        self.takenAt = takenAt
    }

    /// What is wrong with it, if anything.
    public var problem: String? {
        guard png.count <= Self.maximumBytes else { return "a frame of \(png.count) bytes; at most \(Self.maximumBytes)" }
        guard png.count >= 24, png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
              png[png.startIndex + 12..<png.startIndex + 16].elementsEqual(Array("IHDR".utf8)) else { return "the frame is not a PNG" }
        // Its size from IHDR: a screen's, not a picture that would swamp the browser showing it.
        let number = { (at: Int) in png[(png.startIndex + at)..<(png.startIndex + at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        guard (1...Self.maximumSide).contains(number(16)), (1...Self.maximumSide).contains(number(20)) else {
            return "a frame of \(number(16))×\(number(20)) pixels; at most \(Self.maximumSide) a side"
        }
        guard takenAt.isFinite, takenAt > 0 else { return "the frame's time is not a time" }
        return nil
    }
}
