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

    static func path(in directory: String) -> String { directory + "/enrolment.json" }
    static func caPath(in directory: String) -> String { directory + "/hub-ca.pem" }
    static func deviceKeyPath(in directory: String) -> String { directory + "/device.key" }

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

    /// Enrols this totem at `hub` with `code`, trusting the CA in `caFile`; writes the
    /// enrolment, the CA and the device key into `directory` (the daemon's state directory,
    /// with no clupd running on it).
    public static func enrol(hub: String, code: String, caFile: String, directory: String, softwareVersion: String)
        throws(CodedError) -> TotemEnrolment {
        if FileManager.default.fileExists(atPath: path(in: directory)) {
            throw CodedError(.alreadyEnrolled, "\(path(in: directory)) exists: this totem is enrolled already")
        }
        guard let caData = FileManager.default.contents(atPath: caFile), caData.count < 64 * 1024,
              let caPEM = String(data: caData, encoding: .utf8)
        else { throw CodedError(.hubCertificateUnusable, "cannot read \(caFile)") }
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
        let deviceKey: Curve25519.Signing.PrivateKey
        let ticketKey: Curve25519.Signing.PrivateKey
        do {
            deviceKey = try TotemKey.loadOrCreate(at: deviceKeyPath(in: directory))
            ticketKey = try TotemKey.loadOrCreate(at: directory + "/totem.key")
        } catch {
            throw error.coded
        }
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

    /// Gives the files enrolment wrote to whoever owns `directory`: root enrols (the
    /// package makes /var/lib/clup the clup user's), clupd then runs as that user and must
    /// read its keys. Only files that are root's are changed; a symbolic link is never followed.
    public static func handOver(directory: String) {
        var folder = stat()
        guard getuid() == 0, lstat(directory, &folder) == 0, folder.st_uid != 0 else { return }
        for name in ["enrolment.json", "hub-ca.pem", "device.key", "totem.key", "clup.sqlite", "clup.sqlite-wal", "clup.sqlite-shm"] {
            var file = stat()
            let path = directory + "/" + name
            if lstat(path, &file) == 0, file.st_mode & S_IFMT == S_IFREG, file.st_uid == 0 {
                _ = lchown(path, folder.st_uid, folder.st_gid)
            }
        }
    }

    /// Writes `data` to a temporary file, syncs it, renames it over `path` and syncs the folder.
    static func writeDurably(_ data: Data, to path: String) throws(CodedError) {
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
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
