import CLupCore
import Crypto
import Foundation

/// The totem's Ed25519 signing key, kept in the state directory with mode 0600.
///
/// Generated on first start. Never replaced silently: every ticket printed so far was
/// signed with it, so an unreadable key file stops the daemon instead.
enum TotemKey {
    /// Why the key could not be loaded or created.
    struct KeyError: Error, CodedErrorConvertible {
        let coded: CodedError

        init(_ code: ErrorCode, _ message: String) {
            coded = CodedError(code, message)
        }
    }

    static func loadOrCreate(at path: String) throws(KeyError) -> Curve25519.Signing.PrivateKey {
        if FileManager.default.fileExists(atPath: path) {
            var info = stat()
            guard stat(path, &info) == 0 else { throw KeyError(.keyUnreadable, "cannot read \(path): \(systemError())") }
            guard info.st_mode & 0o077 == 0 else {
                throw KeyError(.keyReadableByOthers, "\(path) is readable by others (mode \(String(info.st_mode & 0o777, radix: 8))); "
                    + "anyone who can read it can forge tickets: chmod 600 it")
            }
            guard let data = FileManager.default.contents(atPath: path), data.count == 32,
                  let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: data)
            else {
                throw KeyError(.notAKey, "\(path) is not a 32-byte Ed25519 key; "
                    + "restore it from backup (a new key would void every printed ticket)")
            }
            return key
        }
        let key = Curve25519.Signing.PrivateKey()
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw KeyError(.keyUncreatable, "cannot create \(path): \(systemError())") }
        defer { close(fd) }
        let bytes = Array(key.rawRepresentation)
        guard write(fd, bytes, bytes.count) == bytes.count, fsync(fd) == 0 else {
            let detail = systemError()
            unlink(path)
            throw KeyError(.keyUnwritable, "cannot write \(path): \(detail)")
        }
        return key
    }
}
