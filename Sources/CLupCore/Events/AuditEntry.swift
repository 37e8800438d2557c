/// Something a member of staff did, or tried, at the totem, kept in the event log (and
/// synced to the hub) so that every priority ticket, every use of the PIN pad and every
/// maintenance command can be traced to a name: who, in which role, from where, what, and
/// how it ended (with the event's time, IEC 62443-4-2's audit record).
public struct AuditEntry: Hashable, Codable, Sendable {
    public enum Role: String, Codable, Sendable {
        /// A store employee at the totem's PIN pad.
        case employee
        /// A field technician (or whoever runs `clupctl`) through the control socket.
        case technician
    }

    /// What was done. Open rather than an enum: a hub or a totem of an older release keeps an
    /// action it does not know instead of failing to read the event.
    public struct Action: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = AuditEntry.readBack(rawValue, maximum: AuditEntry.maximumText) }
        public init(from decoder: Decoder) throws { self.init(rawValue: try decoder.singleValueContainer().decode(String.self)) }
        public func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
        public var description: String { rawValue }

        /// An employee typed the right PIN, or a technician the right secret: a session opens.
        public static let login = Action(rawValue: "login")
        /// A wrong staff number or PIN (the two are not told apart).
        public static let pinRefused = Action(rawValue: "pin-refused")
        /// Too many wrong PINs: the pad is locked.
        public static let padLocked = Action(rawValue: "pad-locked")
        /// The session ended (ticket printed, cancelled, idle, or the technician logged out).
        public static let logout = Action(rawValue: "logout")
        /// A priority ticket issued in a session.
        public static let priorityTicket = Action(rawValue: "priority-ticket")
        public static let employeeAdded = Action(rawValue: "employee-added")
        public static let employeeRemoved = Action(rawValue: "employee-removed")
        public static let pinChanged = Action(rawValue: "pin-changed")
        /// A command through the control socket, read or write (`what` says which).
        public static let command = Action(rawValue: "command")
        /// A wrong technician name or secret.
        public static let loginRefused = Action(rawValue: "login-refused")
        /// Too many wrong secrets for a technician name: the name is locked.
        public static let nameLocked = Action(rawValue: "name-locked")
        public static let technicianAdded = Action(rawValue: "technician-added")
        public static let technicianRemoved = Action(rawValue: "technician-removed")
        public static let secretChanged = Action(rawValue: "secret-changed")
        /// The touch panel's calibration saved.
        public static let calibrated = Action(rawValue: "calibrated")
    }

    public let role: Role
    /// The employee's staff number, or the technician's name (`-` when nobody is logged in);
    /// for a refused PIN or secret, the number or name typed (it may not exist).
    public let who: String
    public let action: Action
    /// How it ended, in a few words ("ok", "wrong PIN", "ticket P-003", "E-Q-004 …").
    public let result: String
    /// The Unix user the control socket's peer ran as, for what came through it.
    public let uid: UInt32?
    /// The command, as it would be typed, secrets left out ("void A-017 \"duplicate\"").
    public let what: String?
    /// Where it came from: `touchscreen` (the totem's own PIN pad), or the control socket's
    /// caller, what the kernel vouches for and then what it says of itself ("pid 4711, uid 0
    /// (root); says clupctl on pts/1, login tess (uid 1000)"); nil in entries from before 0.12.
    public let from: String?

    /// The source of what was done at the totem's own screen.
    public static let touchscreen = "touchscreen"

    /// The longest `who` and `result` kept: what comes from outside is bounded.
    public static let maximumText = 64
    /// The longest `what` kept.
    public static let maximumCommand = 160

    /// Every field from outside is kept escaped (`TypedText`) and bounded, so that no entry
    /// can start a line of `clupctl audit`, the log or the hub's trail, nor act on a terminal.
    public init(role: Role, who: String, action: Action, result: String, uid: UInt32? = nil, what: String? = nil, from: String?) {
        self.init(role: role, who: Self.kept(who, maximum: Self.maximumText), action: action,
                  result: Self.kept(result, maximum: Self.maximumText), uid: uid,
                  what: what.map { Self.kept($0, maximum: Self.maximumCommand) },
                  from: from.map { Self.kept($0, maximum: Self.maximumCommand) }, checked: ())
    }

    private init(role: Role, who: String, action: Action, result: String, uid: UInt32?, what: String?, from: String?, checked: Void) {
        self.role = role
        self.who = who
        self.action = action
        self.result = result
        self.uid = uid
        self.what = what
        self.from = from
    }

    private enum CodingKeys: String, CodingKey { case role, who, action, result, uid, what, from }

    /// Bounds and escapes what was stored too: an event is read back as hostile as it came
    /// (one a release before this one kept raw), yet an entry this release kept reads back
    /// unchanged (see `readBack`).
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(role: try container.decode(Role.self, forKey: .role),
                  who: Self.readBack(try container.decode(String.self, forKey: .who), maximum: Self.maximumText),
                  action: try container.decode(Action.self, forKey: .action),
                  result: Self.readBack(try container.decode(String.self, forKey: .result), maximum: Self.maximumText),
                  uid: try container.decodeIfPresent(UInt32.self, forKey: .uid),
                  what: try container.decodeIfPresent(String.self, forKey: .what).map { Self.readBack($0, maximum: Self.maximumCommand) },
                  from: try container.decodeIfPresent(String.self, forKey: .from).map { Self.readBack($0, maximum: Self.maximumCommand) },
                  checked: ())
    }

    /// `text` escaped (a backslash doubled, a control written out, as `TypedText.escaped`),
    /// at most `maximum` Unicode scalars once escaped, cut between two scalars' escapes, never
    /// inside one. Bounding the escaped text rather than what was typed keeps an entry the
    /// same length however it is read back.
    static func kept(_ text: String, maximum: Int) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            let shown = TypedText.escaped(String(scalar))
            count += shown.unicodeScalars.count
            guard count <= maximum else { break }
            out += shown
        }
        return out
    }

    /// A stored field as the trail shows it: escaped if it holds a control character (it was
    /// stored raw), else as it is, since it was escaped when kept; bounded either way. So
    /// reading an entry back, and again, never escapes it twice.
    static func readBack(_ text: String, maximum: Int) -> String {
        TypedText.hasControls(text) ? kept(text, maximum: maximum) : TypedText.prefix(text, maximum)
    }
}
