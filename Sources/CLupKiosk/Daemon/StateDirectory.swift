import CLupCore
import Foundation

/// The directory holding the totem's database and keys, locked for one daemon, and the
/// spool where each ticket's document waits until cupsd has it.
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
    /// Ticket documents on their way to cupsd (deleted once it has them): `spool` if given,
    /// else `spool/` here. The package's is in the runtime directory, a tmpfs: a document
    /// written beside the database slowed each ticket's commit (its fsync took the
    /// document's writes along), and nothing in it outlives a restart usefully (clupd
    /// settles each ticket with cupsd from the database, never from a spool file).
    let spoolPath: String
    /// The touch panel's calibration `clupctl calibrate` saved.
    var calibrationPath: String { path + "/calibration.json" }

    /// Creates the directory and the spool if needed (mode 0700) and takes the lock.
    init(path: String, spool: String? = nil) throws(DaemonError) {
        self.path = path
        spoolPath = spool ?? path + "/spool"
        for (directory, what) in [(path, "the state directory"), (spoolPath, "the spool")] {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw .io(CodedError(.stateDirectoryUncreatable, "cannot create \(what) \(directory): \(KioskConfiguration.reason(error))"))
            }
        }
        let lockPath = path + "/clupd.lock"
        lockFD = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockFD >= 0 else { throw .io(CodedError(.lockUnopenable, "cannot open \(lockPath): \(systemError())")) }
        guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else {
            close(lockFD)
            throw .inUse(StateDirectoryInUse(path: path))
        }
        // The spool a release before --spool kept here: its documents are of tickets settled
        // from the database since, so nothing in it is wanted (unless it is the spool given,
        // spelt otherwise, or holds it).
        let old = URL(fileURLWithPath: path + "/spool").resolvingSymlinksInPath().path
        let given = URL(fileURLWithPath: spoolPath).resolvingSymlinksInPath().path
        if given != old, !given.hasPrefix(old + "/") { try? FileManager.default.removeItem(atPath: old) }
    }

    struct StateDirectoryInUse: Error, CodedErrorConvertible {
        let path: String
        var coded: CodedError { CodedError(.stateDirectoryInUse, "another clupd is using the state directory \(path)") }
    }
}
