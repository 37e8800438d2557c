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
    /// The signed release manifest the hub sent with `target` (a DSSE envelope, JSON); nil:
    /// none, and the helper installs nothing.
    public var manifest: String?
    /// The signed manifest of the version running, as the hub sent it: what the copy to go
    /// back to is checked against.
    public var runningManifest: String?

    public init(target: String?, running: String, idle: Bool, why: String, deviceProblems: [String], printerReady: Bool,
                lastSync: Date?, manifest: String? = nil, runningManifest: String? = nil) {
        self.manifest = manifest
        self.runningManifest = runningManifest
        self.target = target
        self.running = running
        self.idle = idle
        self.why = why
        self.deviceProblems = deviceProblems
        self.printerReady = printerReady
        self.lastSync = lastSync
    }
}
