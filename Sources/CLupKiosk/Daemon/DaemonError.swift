import CLupCore

/// Why clupd cannot start: the error as a person sees it, and the exit status (from
/// `sysexits.h`) that tells systemd and scripts what kind of failure it is.
public struct DaemonError: Error, CodedErrorConvertible {
    public let coded: CodedError
    public let exitCode: Int32

    /// A bad configuration file or option (EX_CONFIG).
    static func configuration(_ error: Error) -> DaemonError { DaemonError(coded: CodedError(describing: error), exitCode: 78) }
    /// A database file that is not ours, damaged or unreadable (EX_DATAERR).
    static func data(_ error: Error) -> DaemonError { DaemonError(coded: CodedError(describing: error), exitCode: 65) }
    /// Something held by another process: the socket, the state directory (EX_CANTCREAT).
    static func inUse(_ error: Error) -> DaemonError { DaemonError(coded: CodedError(describing: error), exitCode: 73) }
    /// A file or directory that cannot be created or opened (EX_IOERR).
    static func io(_ error: Error) -> DaemonError { DaemonError(coded: CodedError(describing: error), exitCode: 74) }
}
