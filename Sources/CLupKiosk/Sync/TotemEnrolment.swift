import CLupCore
import CLupProtocol
import CLupStore
import Crypto
import Foundation

/// The totem's enrolment at a hub, as `clupd enrol` wrote it into the state directory:
/// the hub's address, who the totem is there, and (beside it) the hub's CA and the device key.
public struct TotemEnrolment: Codable, Sendable, Equatable {
    public var hub: String
    public var deviceID: String
    public var storeID: String
    public var letter: String
    public var door: String
    public var enrolledAt: Date
    /// The chain's release key (binary OpenPGP, base64) and its apt repository's address,
    /// as the hub gave them at enrolment (`clupd apt-source` makes apt trust them).
    public var releaseKey: String?
    public var repository: String?

    /// The enrolment's file in the state directory.
    static let file = "enrolment.json"
    static func path(in directory: String) -> String { directory + "/" + file }
    static func caPath(in directory: String) -> String { directory + "/hub-ca.pem" }

    /// The enrolment in `directory`, nil when the totem is not enrolled.
    public static func load(from directory: String) throws(CodedError) -> TotemEnrolment? {
        let path = path(in: directory)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), data.count < 64 * 1024 else {
            throw CodedError(.enrolmentUnreadable, "cannot read \(path)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let enrolment = try? decoder.decode(TotemEnrolment.self, from: data), Int(enrolment.storeID) != nil,
              enrolment.letter.count == 1, enrolment.letter.first!.isUppercase, enrolment.letter.first!.isASCII
        else { throw CodedError(.enrolmentUnreadable, "\(path) is not a totem's enrolment") }
        return enrolment
    }

    /// The configuration with who the hub says this totem is: its store, letter and door.
    public func apply(to config: KioskConfiguration) -> KioskConfiguration {
        var config = config
        if let store = Int(storeID) { config.store.id = store }
        if let letter = letter.first { config.totem.letter = letter }
        config.totem.door = door
        return config
    }

    /// Where enrolment keeps the totem's keys: sealed to the machine (`SealedKey`, root
    /// only: the installed totem) or plain files of mode 0600 (a checkout's tests).
    public enum KeyStorage: String, Sendable, CaseIterable {
        case sealed, plain
    }

    /// Enrols this totem at `hub` with `code`, trusting the CA in `caFile`; writes the
    /// enrolment, the CA and the device key into `directory` (the daemon's state directory,
    /// with no clupd running on it).
    ///
    /// `again` re-enrols a totem that was enrolled (its keys sealed to a TPM it no longer
    /// has, or a technician's fresh start): the enrolment, the keys and the database are set
    /// aside in `replaced-TIME/` of `directory` (kept, never deleted), and the totem enrols
    /// with new keys as a new device.
    public static func enrol(hub: String, code: String, caFile: String, directory: String, softwareVersion: String,
                             keys storage: KeyStorage = .plain, again: Bool = false) throws(CodedError) -> TotemEnrolment {
        let lock = try lockAgainstClupd(directory)
        defer { if lock >= 0 { close(lock) } }
        guard let caData = FileManager.default.contents(atPath: caFile), caData.count < 64 * 1024,
              let caPEM = String(data: caData, encoding: .utf8)
        else { throw CodedError(.hubCertificateUnusable, "cannot read \(caFile)") }
        if storage == .sealed, getuid() != 0 {
            throw CodedError(.keySealingFailed, "only root can seal the totem's keys: run clupd enrol as root")
        }
        if again {
            try setAside(directory)
        } else if FileManager.default.fileExists(atPath: path(in: directory)) {
            throw CodedError(.alreadyEnrolled, "\(path(in: directory)) exists: this totem is enrolled already "
                + "(clupd enrol --again enrols it anew, setting the old enrolment aside)")
        }
        let database = directory + "/clup.sqlite"
        do {
            let devices = try OutboxReader.deviceIDs(inDatabaseAt: database)
            if !devices.isEmpty {
                throw CodedError(.databaseOfAnotherDevice, "\(database) holds events of \(devices.joined(separator: ", ")), "
                    + "which an enrolled totem would never upload")
            }
        } catch let error as CodedError {
            throw error
        } catch {
            throw CodedError(.databaseOfAnotherDevice, "cannot read \(database): \(error)")
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw CodedError(.stateDirectoryUncreatable, "cannot create \(directory): \(error)")
        }
        // The keys are made (or found, from an attempt that did not finish) before the hub
        // is asked: a second try sends the same keys.
        let deviceKey = try key(SealedKey.deviceKey, in: directory, storage)
        let ticketKey = try key(SealedKey.ticketKey, in: directory, storage)
        let client = try HubClient(hub: hub, caPEM: caPEM)
        let reply = try client.enrol(EnrolmentRequest(
            code: code, deviceKey: deviceKey.publicKey.rawRepresentation.base64EncodedString(),
            ticketKey: ticketKey.publicKey.rawRepresentation.base64EncodedString(), softwareVersion: softwareVersion))
        var enrolment = TotemEnrolment(hub: hub, deviceID: reply.deviceID, storeID: reply.storeID, letter: reply.letter,
                                       door: reply.door, enrolledAt: Date())
        if let key = reply.releaseKey, let path = reply.repositoryPath, path.hasPrefix("/"), path.utf8.count <= 64 {
            enrolment.releaseKey = key
            enrolment.repository = hub.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path
        }
        guard Int(enrolment.storeID) != nil, enrolment.letter.count == 1 else {
            throw CodedError(.hubAnswerUnreadable, "the hub enrolled this totem as store \(reply.storeID) letter \(reply.letter)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        // The CA first: an enrolment file is only ever written with its CA beside it.
        try writeDurably(caData, to: caPath(in: directory))
        try writeDurably((try? encoder.encode(enrolment)) ?? Data(), to: path(in: directory))
        return enrolment
    }

    /// Key `name` in `directory`, kept as `storage` says: the one there, else a new one.
    private static func key(_ name: String, in directory: String, _ storage: KeyStorage) throws(CodedError)
        -> Curve25519.Signing.PrivateKey {
        switch storage {
        case .plain:
            do {
                return try TotemKey.loadOrCreate(at: directory + "/" + name)
            } catch {
                throw error.coded
            }
        case .sealed:
            if FileManager.default.fileExists(atPath: SealedKey.path(of: name, in: directory)) {
                return try SealedKey.open(name, in: directory)
            }
            let key = Curve25519.Signing.PrivateKey()
            try SealedKey.seal(key, as: name, in: directory)
            return key
        }
    }

    /// The files of an enrolment, its keys and its database.
    private static let enrolmentFiles = ["enrolment.json", "hub-ca.pem", "device.key", "totem.key", "device.key.cred", "totem.key.cred",
                                         "clup.sqlite", "clup.sqlite-wal", "clup.sqlite-shm"]

    /// Moves the enrolment, the sealed keys and the database of `directory` into a new
    /// `replaced-TIME/` beside them; a key in clear is erased, not kept (its device is
    /// revoked). Nothing to set aside, nothing done. Root may run this in a folder clupd's
    /// user owns: it works through the folders' descriptors and never follows a link.
    private static func setAside(_ directory: String) throws(CodedError) {
        let folder = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { return }
        defer { close(folder) }
        func exists(_ name: String) -> Bool {
            var info = stat()
            return fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0
        }
        let present = enrolmentFiles.filter(exists)
        guard !present.isEmpty else { return }
        for name in [SealedKey.ticketKey, SealedKey.deviceKey] where present.contains(name) {
            do {
                try SystemdCredentials.erase(directory + "/" + name)
            } catch {
                throw CodedError(.keyUnwritable, error.message)
            }
        }
        let stamp = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "UTC")!,
                                                formatOptions: [.withYear, .withMonth, .withDay, .withTime])
        let aside = "replaced-" + stamp
        guard mkdirat(folder, aside, 0o700) == 0 else {
            throw CodedError(.stateDirectoryUncreatable, "cannot create \(directory)/\(aside): \(systemError())")
        }
        let asideFolder = openat(folder, aside, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard asideFolder >= 0 else { throw CodedError(.stateDirectoryUncreatable, "cannot open \(directory)/\(aside): \(systemError())") }
        defer { close(asideFolder) }
        for name in present where ![SealedKey.ticketKey, SealedKey.deviceKey].contains(name) {
            guard renameat(folder, name, asideFolder, name) == 0 else {
                throw CodedError(.stateDirectoryUncreatable, "cannot move \(name) into \(directory)/\(aside): \(systemError())")
            }
        }
        fsync(asideFolder)
        fsync(folder)
    }

    /// Takes clupd's lock on `directory` for the enrolment or the sealing (-1 when the folder
    /// does not exist yet); a running clupd is an error. A lock file root makes here is given
    /// to the folder's owner at once: clupd, as that user, opens it at every start.
    static func lockAgainstClupd(_ directory: String) throws(CodedError) -> Int32 {
        guard FileManager.default.fileExists(atPath: directory) else { return -1 }
        let lock = Glibc.open(directory + "/clupd.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw CodedError(.lockUnopenable, "cannot open \(directory)/clupd.lock: \(systemError())") }
        var folder = stat(), file = stat()
        if getuid() == 0, lstat(directory, &folder) == 0, folder.st_uid != 0, fstat(lock, &file) == 0, file.st_uid == 0 {
            _ = fchown(lock, folder.st_uid, folder.st_gid)
        }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            close(lock)
            throw CodedError(.stateDirectoryInUse, "clupd runs on \(directory): stop it first (systemctl stop clupd)")
        }
        return lock
    }

    /// Gives the files enrolment wrote to whoever owns `directory`: root enrols (the
    /// package makes /var/lib/clup the clup user's), clupd then runs as that user and must
    /// read its keys. Only regular files that are root's are changed, through their own
    /// descriptor (never a link).
    public static func handOver(directory: String) {
        var owner = stat()
        guard getuid() == 0, lstat(directory, &owner) == 0, owner.st_uid != 0 else { return }
        let folder = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { return }
        defer { close(folder) }
        // The sealed keys stay root's: systemd opens them for clupd, which never reads them.
        for name in enrolmentFiles + ["clupd.lock"] where !name.hasSuffix(".cred") {
            let fd = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { continue }
            var file = stat()
            if fstat(fd, &file) == 0, file.st_mode & S_IFMT == S_IFREG, file.st_uid == 0 {
                _ = fchown(fd, owner.st_uid, owner.st_gid)
            }
            close(fd)
        }
    }

    /// Writes `data` to a temporary file, syncs it, renames it over `path` and syncs the folder.
    static func writeDurably(_ data: Data, to path: String) throws(CodedError) {
        let temporary = path + ".new"
        // Root writes here in a folder clupd's user owns: a new file, never through a link.
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CodedError(.enrolmentUnreadable, "cannot create \(temporary): \(systemError())") }
        let bytes = Array(data)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(fd) == 0 else {
            close(fd)
            throw CodedError(.enrolmentUnreadable, "cannot write \(temporary): \(systemError())")
        }
        close(fd)
        guard rename(temporary, path) == 0 else { throw CodedError(.enrolmentUnreadable, "cannot rename \(temporary): \(systemError())") }
        let folder = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }
}
