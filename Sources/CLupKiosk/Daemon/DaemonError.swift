/// Why `clupd` could not start, with the exit status it leaves (sysexits.h).
public struct DaemonError: Error, CustomStringConvertible {
    public let message: String
    public let exitCode: Int32

    /// A bad configuration file or option (EX_CONFIG).
    static func configuration(_ error: Error) -> DaemonError { DaemonError(message: "\(error)", exitCode: 78) }
    /// A database file that is not ours or not readable (EX_DATAERR).
    static func data(_ error: Error) -> DaemonError { DaemonError(message: "\(error)", exitCode: 65) }
    /// Something held by another process: the socket, the state directory (EX_CANTCREAT).
    static func inUse(_ error: Error) -> DaemonError { DaemonError(message: "\(error)", exitCode: 73) }
    /// A file or directory that cannot be created or opened (EX_IOERR).
    static func io(_ message: String) -> DaemonError { DaemonError(message: message, exitCode: 74) }

    public var description: String { message }
}
