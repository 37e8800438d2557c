/// `[control]`: who may use `clupctl`.
public struct ControlSettings: ConfigTable {
    static let table = "control"
    static let doc = "The control socket clupctl talks to."

    /// A group whose members may use the control socket, besides root and clupd's own user.
    public var group: String?

    public init() {}

    static let keys: [ConfigKey<ControlSettings>] = [
        .text("group", \.group, doc: "members of this group may use clupctl besides root, example: \"clup\""),
    ]
}
