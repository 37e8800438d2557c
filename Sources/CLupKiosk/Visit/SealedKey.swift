import CLupCore
import Crypto
import Foundation

/// The totem's private keys sealed to its machine: systemd's encrypted credentials.
///
/// An installed totem keeps no private key in clear on disk. Each key is a credential,
/// `NAME.cred` in the state folder (root's, mode 0600), that `systemd-creds encrypt
/// --with-key=auto` sealed to this machine's TPM2 and host key (the host key alone where
/// there is no TPM). clupd's unit has systemd open them (`LoadCredentialEncrypted=`) into
/// `$CREDENTIALS_DIRECTORY`, memory that is never written to disk; clupd reads them there
/// (`TotemKey.load`). A copy of the disk booted elsewhere cannot open them:
/// `clupd keys seal`, run by clup-keys.service before clupd starts, says so, naming the key.
///
/// Only root seals or opens a credential (systemd-creds needs the host key, and the TPM);
/// clupd, as its own user, never does. The state folder is clupd's user's, so root works in
/// it through the folder's descriptor and never follows a link there. Outside the package's
/// state folder (tests, `--simulate`), the keys stay plain files as before.
public enum SealedKey {
    /// The two keys, as their credentials are named in clupd's unit.
    public static let ticketKey = "totem.key"
    public static let deviceKey = "device.key"

    /// The sealed credential of key `name` in `directory`.
    public static func path(of name: String, in directory: String) -> String { directory + "/" + name + ".cred" }

    /// What clupd's unit gives as the device key where none is sealed yet (not enrolled).
    static let notEnrolled = Data("not-enrolled".utf8)

    /// Key `name` as systemd opened it for clupd: nil when the unit gave none, or its
    /// stand-in for a key not sealed yet.
    static func opened(_ name: String) throws(CodedError) -> Curve25519.Signing.PrivateKey? {
        guard let path = SystemdCredentials.opened(name), let data = FileManager.default.contents(atPath: path),
              data != notEnrolled else { return nil }
        return try key(data, "the credential \(name)")
    }

    /// Seals `key` as credential `name` into `directory` (root only).
    public static func seal(_ key: Curve25519.Signing.PrivateKey, as name: String, in directory: String) throws(CodedError) {
        let folder = try open(directory)
        defer { close(folder) }
        try seal(key, as: name, into: folder)
    }

    /// Opens credential `name` from `directory` (root only): the key, or an error that names
    /// the credential and says why this machine cannot open it.
    public static func open(_ name: String, in directory: String) throws(CodedError) -> Curve25519.Signing.PrivateKey {
        let folder = try open(directory)
        defer { close(folder) }
        return try open(name, in: folder, directory)
    }

    /// Seals the keys of `directory` (root only; clup-keys.service runs it before each start
    /// of clupd): a plain key file an older release left is sealed and then erased, a ticket
    /// key is made on a totem that was never enrolled and has none, and every sealed key is
    /// opened to check it. A key missing on an enrolled totem is an error: a new one would
    /// void its tickets or its identity at the hub. Returns a line per key.
    public static func sealAll(in directory: String) throws(CodedError) -> [String] {
        guard getuid() == 0 else { throw CodedError(.keySealingFailed, "only root can seal the totem's keys") }
        // Before clupd's first start the package's folder may not exist yet.
        if !FileManager.default.fileExists(atPath: directory), mkdir(directory, 0o700) != 0 {
            throw CodedError(.stateDirectoryUncreatable, "cannot create \(directory): \(systemError())")
        }
        let lock = try TotemEnrolment.lockAgainstClupd(directory)
        defer { if lock >= 0 { close(lock) } }
        let folder = try open(directory)
        defer { close(folder) }
        let enrolled = exists(TotemEnrolment.file, in: folder)
        var said: [String] = []
        for name in [ticketKey, deviceKey] {
            let plain = directory + "/" + name, sealed = path(of: name, in: directory)
            switch (exists(name, in: folder), exists(name + ".cred", in: folder)) {
            case (false, false):
                guard !enrolled else { throw missing(name, directory) }
                guard name == ticketKey else { said.append("\(name): none (the totem is not enrolled)"); continue }
                try seal(Curve25519.Signing.PrivateKey(), as: name, into: folder)
                said.append("\(name): made, sealed in \(sealed)")
            case (false, true):
                _ = try open(name, in: folder, directory)
                said.append("\(name): sealed in \(sealed), opens on this machine")
            case (true, let hasSealed):
                let data: Data
                do {
                    data = try SystemdCredentials.readPlain(name, in: folder)
                } catch {
                    throw CodedError(.keyUnreadable, error.message)
                }
                let key = try self.key(data, plain)
                if hasSealed {
                    guard try open(name, in: folder, directory).rawRepresentation == key.rawRepresentation else {
                        throw CodedError(.keySealingFailed, "\(plain) and \(sealed) hold different keys: keep the one the hub and "
                            + "the printed tickets know, move the other away, and run this again")
                    }
                } else {
                    try seal(key, as: name, into: folder)
                }
                try erase(plain)
                said.append("\(name): sealed in \(sealed), the file \(plain) overwritten and removed")
            }
        }
        return said
    }

    /// Writes the sealed keys of `directory` back as plain files (root only, mode 0600, owned
    /// by the folder's owner): what a release from before sealed keys reads, run by the
    /// package's prerm only when it is downgraded to one. The sealed keys stay.
    public static func unsealAll(in directory: String) throws(CodedError) -> [String] {
        guard getuid() == 0 else { throw CodedError(.keySealingFailed, "only root can open the totem's keys") }
        guard FileManager.default.fileExists(atPath: directory) else { return ["\(directory): no such folder, nothing to unseal"] }
        let folder = try open(directory)
        defer { close(folder) }
        var owner = stat()
        guard fstat(folder, &owner) == 0 else { throw CodedError(.keyUnreadable, "cannot read \(directory): \(systemError())") }
        var said: [String] = []
        for name in [ticketKey, deviceKey] where exists(name + ".cred", in: folder) {
            let plain = directory + "/" + name
            guard !exists(name, in: folder) else { said.append("\(name): a plain file already"); continue }
            let key = try open(name, in: folder, directory)
            let fd = openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw CodedError(.keyUncreatable, "cannot create \(plain): \(systemError())") }
            let bytes = Array(key.rawRepresentation)
            let written = write(fd, bytes, bytes.count), synced = fsync(fd)
            _ = fchown(fd, owner.st_uid, owner.st_gid)
            close(fd)
            guard written == bytes.count, synced == 0 else { throw CodedError(.keyUnwritable, "cannot write \(plain): \(systemError())") }
            said.append("\(name): written to \(plain) for a release from before sealed keys")
        }
        return said
    }

    /// Checks that this machine opens the keys of `directory` (root only), changing nothing.
    public static func checkAll(in directory: String) throws(CodedError) -> [String] {
        let folder = try open(directory)
        defer { close(folder) }
        let enrolled = exists(TotemEnrolment.file, in: folder)
        var said: [String] = []
        for name in [ticketKey, deviceKey] {
            if exists(name + ".cred", in: folder) {
                _ = try open(name, in: folder, directory)
                said.append("\(name): sealed, opens on this machine")
            } else if exists(name, in: folder) {
                said.append("\(name): a plain file (clupd keys seal seals it)")
            } else if name == ticketKey || enrolled {
                throw missing(name, directory)
            }
        }
        return said
    }

    // MARK: Within the folder

    /// `directory` opened as a folder, never through a link.
    private static func open(_ directory: String) throws(CodedError) -> Int32 {
        let folder = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { throw CodedError(.keyUnreadable, "cannot open the folder \(directory): \(systemError())") }
        return folder
    }

    private static func exists(_ name: String, in folder: Int32) -> Bool {
        var info = stat()
        return fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0
    }

    private static func seal(_ key: Curve25519.Signing.PrivateKey, as name: String, into folder: Int32) throws(CodedError) {
        do {
            try SystemdCredentials.seal(key.rawRepresentation, as: name, into: folder, file: name + ".cred")
        } catch {
            throw CodedError(.keySealingFailed, error.message)
        }
    }

    private static func open(_ name: String, in folder: Int32, _ directory: String) throws(CodedError) -> Curve25519.Signing.PrivateKey {
        let file = path(of: name, in: directory)
        let data: Data
        do {
            data = try SystemdCredentials.open(name, in: folder, file: name + ".cred")
        } catch {
            throw CodedError(.keySealedElsewhere, "the sealed key \(name) (\(file)) cannot be opened on this machine: \(error.message)")
        }
        return try key(data, "the sealed key \(name) (\(file))")
    }

    private static func key(_ data: Data, _ what: String) throws(CodedError) -> Curve25519.Signing.PrivateKey {
        guard data.count == 32, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: data) else {
            throw CodedError(.notAKey, "\(what) is not a 32-byte Ed25519 key")
        }
        return key
    }

    private static func erase(_ path: String) throws(CodedError) {
        do {
            try SystemdCredentials.erase(path)
        } catch {
            throw CodedError(.keyUnwritable, error.message)
        }
    }

    private static func missing(_ name: String, _ directory: String) -> CodedError {
        CodedError(.keyNotSealed, "\(name) is neither sealed (\(path(of: name, in: directory))) nor a file (\(directory)/\(name))"
            + (name == ticketKey ? "" : " on an enrolled totem") + ": a new key would void "
            + (name == ticketKey ? "every ticket it printed" : "its identity at the hub") + "; re-enrol it (clupd enrol --again)")
    }
}
