import Foundation

/// What clupd tells its update helper (`Control.UpdateWindow`).
public struct UpdateWindowReport: Codable, Sendable, Equatable {
    /// The clup-totem version the hub wants here; nil: none.
    public var target: String?
    /// The version of the clupd answering.
    public var running: String
    /// Whether nobody would notice an update now: the store closed, or nobody in front,
    /// nothing printing and no called ticket on its way to the door.
    public var idle: Bool
    /// Why it is not idle ("someone is in front"), or why it is.
    public var why: String
    /// The devices that are not ok ("display failed: …"), and whether the printer is ready.
    public var deviceProblems: [String]
    public var printerReady: Bool
    /// When this clupd last uploaded to the hub with success (nil: not since it started).
    public var lastSync: Date?

    public init(target: String?, running: String, idle: Bool, why: String, deviceProblems: [String], printerReady: Bool,
                lastSync: Date?) {
        self.target = target
        self.running = running
        self.idle = idle
        self.why = why
        self.deviceProblems = deviceProblems
        self.printerReady = printerReady
        self.lastSync = lastSync
    }

    /// Whether the clupd answering is healthy enough to keep: its devices ok, its printer
    /// ready, and an upload to the hub since it started.
    public var healthy: Bool { deviceProblems.isEmpty && printerReady && lastSync != nil }

    /// What keeps it from being healthy, in a line.
    public var unhealthyBecause: String {
        var reasons = deviceProblems
        if !printerReady { reasons.append("the printer is not ready") }
        if lastSync == nil { reasons.append("no upload to the hub yet") }
        return reasons.isEmpty ? "healthy" : reasons.joined(separator: "; ")
    }
}
