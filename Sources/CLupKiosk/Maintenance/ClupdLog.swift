import CLupCore
import CLupProtocol
import Foundation

/// clupd's own log, for `clupctl logs`: the journal when systemd runs clupd, else the file
/// its standard error is, read through the socket by a clupctl that cannot read it.
enum ClupdLog {
    /// Where clupd's log goes: the journal when systemd connected standard error to it
    /// (`JOURNAL_STREAM` names the very stream, see systemd.exec), else the file it is.
    static func source() -> LogSourceReply {
        if Journal.isStandardError() { return LogSourceReply(journalUnit: "clupd.service", file: nil, size: nil) }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return LogSourceReply(journalUnit: nil, file: nil, size: nil) }
        guard info.st_mode & S_IFMT == S_IFREG,
              let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/2"), path.hasPrefix("/")
        else {
            return LogSourceReply(journalUnit: nil, file: nil, size: nil)
        }
        return LogSourceReply(journalUnit: nil, file: path, size: Int(info.st_size))
    }

    /// Up to `maxBytes` of clupd's log file from `offset` (for a clupctl that cannot read it).
    static func read(offset: Int, maxBytes: Int) throws -> LogChunk {
        guard offset >= 0, (1...LogChunk.maximumBytes).contains(maxBytes) else {
            throw CodedError(.requestNotUnderstood, "a log read starts at 0 or after and takes 1 to \(LogChunk.maximumBytes) bytes")
        }
        guard let path = source().file, let file = FileHandle(forReadingAtPath: path) else {
            throw CodedError(.requestNotUnderstood, "clupd's log is not a file (see `clupctl logs`, which reads the journal)")
        }
        defer { try? file.close() }
        let size = Int((try? file.seekToEnd()) ?? 0)
        let start = offset > size ? 0 : offset
        try file.seek(toOffset: UInt64(start))
        let data = try file.read(upToCount: maxBytes) ?? Data()
        return LogChunk(offset: start, text: String(decoding: data, as: UTF8.self), size: size)
    }
}
