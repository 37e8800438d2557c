import CLupConfig
import CLupCore
import Foundation

/// Where clupd's configuration comes from (the file given, else `/etc/clup/clupd.toml` if
/// it exists, else the defaults), when it was read, and why the last reload was refused or
/// partial, until one succeeds.
final class ConfigurationFile {
    /// Keys of clupd.toml that the hub manages once the totem is enrolled.
    static let hubManagedKeys = ["queue.capacity", "queue.priority_share", "queue.booking_share", "queue.presentation_window_minutes",
                                 "queue.booking_early_minutes", "queue.booking_late_minutes", "queue.slot_minutes"]

    /// The file given on the command line (nil: the default path, if present).
    let path: String?
    /// Where the configuration in force came from, for `clupctl config show`.
    let source: String
    /// When the configuration in force was read.
    private(set) var loadedAt: Date
    /// Why the last reload was refused or partial, until one succeeds, for `status`.
    private(set) var problem: CodedError?

    init(path: String?, source: String, loadedAt: Date) {
        self.path = path
        self.source = source
        self.loadedAt = loadedAt
    }

    /// The configuration read now, as the file says it.
    func read() throws(ConfigurationError) -> KioskConfiguration {
        try Self.read(path).0
    }

    /// A reload put `next` in force at `now`; `restartOnly` names the keys that changed and
    /// wait for a restart.
    func reloaded(at now: Date, restartOnly: [String]) {
        loadedAt = now
        problem = restartOnly.isEmpty ? nil
            : CodedError(.restartNeeded, "reloaded, but \(restartOnly.joined(separator: ", ")) changed and take effect only when clupd restarts")
    }

    /// A reload was refused: the configuration in force stays, and `status` says why.
    func refused(_ error: Error) {
        problem = CodedError(.configurationNotReloaded, "the configuration was not reloaded (\(error)); the one read at "
            + "\(loadedAt.formatted(.iso8601)) stays in force")
    }

    /// The configuration (the file given, else the default one if present, else the defaults)
    /// and where it came from.
    static func read(_ path: String?) throws(ConfigurationError) -> (KioskConfiguration, String) {
        if let path {
            return (try KioskConfiguration.load(path: path), path)
        } else if FileManager.default.fileExists(atPath: KioskConfiguration.defaultPath) {
            return (try KioskConfiguration.load(path: KioskConfiguration.defaultPath), KioskConfiguration.defaultPath)
        }
        return (KioskConfiguration(), "built-in defaults (no \(KioskConfiguration.defaultPath))")
    }

    /// An enrolled totem takes capacity and shares from the hub: a file that sets them is
    /// refused, naming the hub, rather than silently overridden.
    static func refuseHubManagedKeys(_ path: String?, hub: String) throws(ConfigurationError) {
        let path = path ?? KioskConfiguration.defaultPath
        guard FileManager.default.fileExists(atPath: path) else { return }
        let reader = try ConfigReader.load(path: path, maximumBytes: KioskConfiguration.maximumFileBytes)
        if let key = hubManagedKeys.first(where: { reader.document.values[$0] != nil }) {
            throw reader.error(key, "this totem is enrolled at \(hub), which manages \(key) (clup-hub store set); remove it from the file")
        }
    }
}
