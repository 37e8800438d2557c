import CLupCore
import Foundation

/// The directory holding the totem's database, key and spool, locked for one daemon.
public struct StateDirectory {
    /// The state folder the package gives clupd (systemd's `StateDirectory=clup`): its
    /// keys are sealed there, and kept as files anywhere else (a checkout, the tests).
    public static let package = "/var/lib/clup"

    /// Whether `directory` is the package's state folder, reached by whatever path.
    public static func isPackage(_ directory: String) -> Bool {
        URL(fileURLWithPath: directory).resolvingSymlinksInPath().path == package
    }

    let path: String
    private let lockFD: Int32

    var databasePath: String { path + "/clup.sqlite" }
    var spoolPath: String { path + "/spool" }
    /// The touch panel's calibration `clupctl calibrate` saved.
    var calibrationPath: String { path + "/calibration.json" }

    /// Creates the directory if needed (mode 0700) and takes its lock.
    init(path: String) throws(DaemonError) {
        self.path = path
        for directory in [path, path + "/spool"] {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw .io(CodedError(.stateDirectoryUncreatable, "cannot create the state directory \(directory): \(KioskConfiguration.reason(error))"))
            }
        }
        let lockPath = path + "/clupd.lock"
        lockFD = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockFD >= 0 else { throw .io(CodedError(.lockUnopenable, "cannot open \(lockPath): \(systemError())")) }
        guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else {
            close(lockFD)
            throw .inUse(StateDirectoryInUse(path: path))
        }
    }

    struct StateDirectoryInUse: Error, CodedErrorConvertible {
        let path: String
        var coded: CodedError { CodedError(.stateDirectoryInUse, "another clupd is using the state directory \(path)") }
    }
}
