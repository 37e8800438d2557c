import CLupCore
import Crypto
import Foundation

/// The totem's Ed25519 keys: the ticket key (`totem.key`) and the key it proves itself to
/// the hub with (`device.key`).
///
/// Installed, they are sealed to the machine (`SealedKey`) and systemd opens them for
/// clupd's unit; in a checkout, the tests and `--simulate`, they are files of the state
/// directory with mode 0600, the ticket key generated on first start. Never replaced
/// silently: every ticket printed so far was signed with it, so a key that cannot be read
/// stops the daemon instead.
enum TotemKey {
    /// Why the key could not be loaded or created.
    struct KeyError: Error, CodedErrorConvertible {
        let coded: CodedError

        init(_ code: ErrorCode, _ message: String) {
            coded = CodedError(code, message)
        }

        init(_ coded: CodedError) {
            self.coded = coded
        }
    }

    /// Key `name` (`SealedKey.ticketKey` or `.deviceKey`): the credential systemd opened for
    /// clupd's unit, else the file `name` in `directory`, made there when `create` and
    /// clupd does not run under its unit. A key sealed in `directory` but not given by
    /// systemd is an error: a plain key made beside it would void the sealed one.
    static func load(_ name: String, in directory: String, create: Bool) throws(KeyError) -> Curve25519.Signing.PrivateKey {
        do {
            if let key = try SealedKey.opened(name) { return key }
        } catch {
            throw KeyError(error)
        }
        let path = directory + "/" + name
        let sealed = SealedKey.path(of: name, in: directory)
        if FileManager.default.fileExists(atPath: path) { return try loadOrCreate(at: path) }
        if FileManager.default.fileExists(atPath: sealed) {
            throw KeyError(.keyNotSealed, "\(name) is sealed in \(sealed) but systemd did not open it for clupd: "
                + "start clupd as its unit does (systemctl start clupd), never by hand on the totem's state folder")
        }
        guard create, !SystemdCredentials.underUnit else {
            throw KeyError(.keyNotSealed, "\(name) is neither sealed (\(sealed)) nor a file (\(path)): run clupd keys seal as root")
        }
        // The package's folder holds sealed keys only: clupd started there by hand never
        // leaves a key in clear.
        if StateDirectory.isPackage(directory) {
            throw KeyError(.keyNotSealed, "\(name) is not sealed in \(StateDirectory.package) yet: start clupd as its unit does "
                + "(systemctl start clupd), which seals a new key first")
        }
        return try loadOrCreate(at: path)
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
