import Foundation

extension Control {
    /// `clupctl status`: the totem at a glance.
    public struct Status: ControlCommand {
        public typealias Reply = StatusReport
        public static let wireName = "status"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { "status" }
        public init() {}
    }

    /// `clupctl config show`: the configuration in force, as TOML.
    public struct Configuration: ControlCommand {
        public typealias Reply = ConfigurationReport
        public static let wireName = "configuration"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { "config show" }
        public init() {}
    }

    /// `clupctl metrics`: clupd's figures as Prometheus text.
    public struct Metrics: ControlCommand {
        public typealias Reply = String
        public static let wireName = "metrics"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { "metrics" }
        public init() {}
    }

    /// `clupctl sync`: the sync with the hub (state, outbox, last success, skew).
    public struct Sync: ControlCommand {
        public typealias Reply = SyncReport
        public static let wireName = "sync"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { "sync" }
        public init() {}
    }

    /// `clupctl sync now`: try the hub now rather than at the next backoff.
    public struct SyncNow: ControlCommand {
        public typealias Reply = SyncReport
        public static let wireName = "syncNow"
        public static let needsTechnician = true
        public static let trail = AuditTrail.kept
        public var summary: String { "sync now" }
        public init() {}
    }

    /// Whether this is a moment to update the totem's software, for its update helper: the
    /// version the hub wants, whether the entrance is idle, and how the running clupd is.
    public struct UpdateWindow: ControlCommand {
        public typealias Reply = UpdateWindowReport
        public static let wireName = "updateWindow"
        public static let needsTechnician = false
        public static let trail = AuditTrail.routineRead
        public var summary: String { "update window" }
        public init() {}
    }
}
