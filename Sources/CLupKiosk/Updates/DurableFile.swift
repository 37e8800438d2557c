import CLupCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small file written whole or not at all: a file beside it, synced, then renamed over
/// it; the folder made if missing. Never through a symbolic link.
enum DurableFile {
    static func write(_ data: Data, to path: String, mode: mode_t) throws(CodedError) {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o755])
        } catch {
            throw CodedError(.updateSourceUnwritable, "cannot make \(directory): \(error)")
        }
        let temporary = path + ".new"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw CodedError(.updateSourceUnwritable, "cannot write \(temporary): \(String(cString: strerror(errno)))") }
        let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        let moded = fchmod(fd, mode) == 0
        close(fd)
        guard written == data.count, synced, moded, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CodedError(.updateSourceUnwritable, "cannot write \(path): \(reason)")
        }
    }
}
