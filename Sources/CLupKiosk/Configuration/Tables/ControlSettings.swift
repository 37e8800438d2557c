import CLupConfig

/// `[control]`: who may use `clupctl`.
public struct ControlSettings: ConfigTable {
    public static let table = "control"
    public static let doc = "The control socket clupctl talks to."

    /// A group whose members may use the control socket, besides root and clupd's own user.
    public var group: String?

    public init() {}

    public static let keys: [ConfigKey<ControlSettings>] = [
        .text("group", \.group, doc: "members of this group may use clupctl besides root, example: \"clup\""),
    ]
}
