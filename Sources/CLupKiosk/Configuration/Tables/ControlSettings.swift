import CLupConfig

/// `[control]`: who may use `clupctl`.
public struct ControlSettings: ConfigTable {
    public static let table = "control"
    public static let doc = "The control socket clupctl talks to."

    /// A group whose members may use the control socket, besides root and clupd's own user.
    public var group: String?
    /// A technician's session ends after this long without a command.
    public var sessionIdleSeconds = 900.0
    /// 5 wrong secrets in a row lock a technician's name this long.
    public var loginLockSeconds = 300.0

    public init() {}

    public static let keys: [ConfigKey<ControlSettings>] = [
        .text("group", \.group, doc: "members of this group may use clupctl besides root, example: \"clup\""),
        .number("session_idle_seconds", \.sessionIdleSeconds, what: "a number of seconds", accepts: { (2...86_400).contains($0) },
                refusal: { "\($0) s is out of range 2...86400" }, doc: "a technician's session ends after this long without a command"),
        .number("login_lock_seconds", \.loginLockSeconds, what: "a number of seconds", accepts: { (3...86_400).contains($0) },
                refusal: { "\($0) s is out of range 3...86400" }, doc: "5 wrong secrets in a row lock a technician's name this long"),
    ]
}
