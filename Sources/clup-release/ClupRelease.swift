import ArgumentParser
import CLupCore
import CLupProtocol
import Crypto
import _CryptoExtras
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `clup-release`: the release manager's tool, run on their own machine, never on the hub.
///
/// It makes the chain's release key (Ed25519; the private half sealed with a passphrase),
/// and signs a manifest of each release: the packages' names, versions, SHA-256 and sizes,
/// and until when the manifest holds. The hub keeps and serves the manifest; totems install
/// only packages a manifest signed by the key they trust lists.
@main
struct ClupRelease: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clup-release",
        abstract: "Make the chain's release key and sign release manifests (on the release manager's machine, never on the hub).",
        subcommands: [Keygen.self, Sign.self, Show.self])
}

/// Where the passphrase that seals the private key comes from.
struct PassphraseOption: ParsableArguments {
    @Option(help: "A file whose first line is the passphrase (else it is asked on the terminal).")
    var passphraseFile: String?

    func passphrase(confirm: Bool) throws -> String {
        if let passphraseFile {
            guard let data = FileManager.default.contents(atPath: passphraseFile), data.count <= 4096 else {
                throw failure(.releaseSigningKeyUnusable, "cannot read the passphrase file \(passphraseFile)")
            }
            return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        }
        guard let typed = getpass("Passphrase of the release key: ") else {
            throw failure(.releaseSigningKeyUnusable, "no passphrase: give --passphrase-file, or run it on a terminal")
        }
        let passphrase = String(cString: typed)
        if confirm {
            guard let again = getpass("The same again: "), String(cString: again) == passphrase else {
                throw failure(.releaseSigningKeyUnusable, "the two passphrases differ")
            }
        }
        return passphrase
    }
}

struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make a release key: release-key.sealed (private, sealed with a passphrase) and release-key.pub (for the package and the hub).")
    @Option(help: "The folder to write into (made if missing; nothing in it is replaced).") var out: String
    @OptionGroup var passphrase: PassphraseOption

    func run() throws {
        let sealedPath = out + "/release-key.sealed", publicPath = out + "/release-key.pub"
        for path in [sealedPath, publicPath] where FileManager.default.fileExists(atPath: path) {
            throw failure(.releaseSigningKeyUnusable, "\(path) exists: a release key is made once, and kept")
        }
        let secret = try passphrase.passphrase(confirm: true)
        guard secret.utf8.count >= 12 else { throw failure(.releaseSigningKeyUnusable, "the passphrase has fewer than 12 characters") }
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let key = Curve25519.Signing.PrivateKey()
        let sealed = try SealedReleaseKey.seal(key, passphrase: secret)
        try write(sealed, to: sealedPath, mode: 0o600)
        let publicKey = try ReleaseKey(rawRepresentation: key.publicKey.rawRepresentation)
        try write(Data("\(publicKey.line) chain release key, made \(Date().formatted(.iso8601))\n".utf8), to: publicPath, mode: 0o644)
        print("clup-release: \(publicKey) made; private half sealed in \(sealedPath), public half in \(publicPath)")
    }
}

struct Sign: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign a manifest of a release's clup-totem packages (.deb files), valid for a number of days.")
    @Option(help: "The sealed private key (release-key.sealed).") var key: String
    @OptionGroup var passphrase: PassphraseOption
    @Option(help: "How many days the manifest holds (1 to 400); a hub serving it later is refused.") var days = 90
    @Option(name: .customLong("allow-downgrade-from"), help: "An installed version from which going down to this release is allowed (repeat).")
    var downgradeFrom: [String] = []
    @Option(name: .customLong("next-key"), help: "A public key file whose keys replace this one in the totems' trust once this release is installed.")
    var nextKeyFiles: [String] = []
    @Option(help: "The day the release line's support ends (YYYY-MM-DD; SECURITY.md says 5 years).") var supportEnds: String?
    @Option(help: "When the manifest says it was issued (ISO 8601, e.g. 2027-01-04T09:00:00Z; default now): its expiry counts from there.")
    var issued: String?
    @Option(help: "The signed manifest to write.") var out: String
    @Option(name: .customLong("delta-from"),
            help: "An earlier release's clup-totem .deb: a delta from it to this release (debdelta) is made beside --out and listed (repeat).")
    var deltaFrom: [String] = []
    @Argument(help: "The release's clup-totem .deb files (one version; one per architecture).") var packages: [String]

    func run() throws {
        guard (1...400).contains(days) else { throw failure(.releaseNotVouched, "--days is 1 to 400, not \(days)") }
        var listed: [ReleaseManifest.Package] = []
        for path in packages {
            let fields = try debianFields(path)
            let (sha256, size) = try ReleaseFiles.digest(path)
            listed.append(.init(name: fields["Package"] ?? "", version: fields["Version"] ?? "", architecture: fields["Architecture"] ?? "",
                                sha256: sha256, size: size))
        }
        let versions = Set(listed.filter { $0.name == "clup-totem" }.map(\.version))
        guard versions.count == 1, let release = versions.first else {
            throw failure(.releaseNotVouched, "a manifest is of one clup-totem version; these files hold \(versions.sorted())")
        }
        let deltas = try makeDeltas(to: release, packages: Array(zip(packages, listed)))
        var nextKeys: [String] = []
        for file in nextKeyFiles {
            guard let data = FileManager.default.contents(atPath: file), data.count <= 16_384 else {
                throw failure(.releaseSigningKeyUnusable, "cannot read \(file)")
            }
            nextKeys += try ReleaseKey.list(String(decoding: data, as: UTF8.self)).map(\.line)
        }
        var ends: Date?
        if let supportEnds {
            guard let day = try? Date("\(supportEnds)T00:00:00Z", strategy: .iso8601) else {
                throw failure(.releaseNotVouched, "--support-ends takes a day as YYYY-MM-DD")
            }
            ends = day
        }
        var now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        if let issued {
            guard let at = try? Date(issued, strategy: .iso8601) else { throw failure(.releaseNotVouched, "--issued takes a time as 2027-01-04T09:00:00Z") }
            now = at
        }
        let manifest = ReleaseManifest(release: release, packages: listed, issued: now, expires: now.addingTimeInterval(Double(days) * 86_400),
                                       downgradeFrom: downgradeFrom.isEmpty ? nil : downgradeFrom,
                                       nextKeys: nextKeys.isEmpty ? nil : nextKeys, supportEnds: ends, deltas: deltas.isEmpty ? nil : deltas)
        if let problem = manifest.problem() { throw failure(.releaseNotVouched, problem) }
        guard let sealed = FileManager.default.contents(atPath: key) else {
            throw failure(.releaseSigningKeyUnusable, "cannot read the sealed key \(key)")
        }
        let privateKey = try SealedReleaseKey.open(sealed, passphrase: passphrase.passphrase(confirm: false))
        let envelope = try SignedReleaseManifest.sign(manifest, with: privateKey)
        try write(envelope.json, to: out, mode: 0o644)
        let publicKey = try ReleaseKey(rawRepresentation: privateKey.publicKey.rawRepresentation)
        print("clup-release: manifest of \(release) (\(listed.count) package(s)) signed by \(publicKey), expires \(manifest.expires.formatted(.iso8601)): \(out)")
        for delta in deltas {
            print("clup-release: delta from \(delta.from) (\(delta.architecture)): \(delta.size) bytes, listed")
        }
    }

    /// The deltas to this release from each `--delta-from` package, made beside the manifest
    /// with Debian's debdelta (bsdiff, which follows code moved in an executable: a two-file
    /// change to clupd is a delta of 0.96 MB where xdelta3 made 6.7) and checked by
    /// rebuilding the package from them, as a totem will.
    func makeDeltas(to release: String, packages: [(path: String, listed: ReleaseManifest.Package)]) throws -> [ReleaseManifest.Delta] {
        let folder = (out as NSString).deletingLastPathComponent.isEmpty ? "." : (out as NSString).deletingLastPathComponent
        var made: [ReleaseManifest.Delta] = []
        for old in deltaFrom {
            let fields = try debianFields(old)
            guard fields["Package"] == "clup-totem", let from = fields["Version"], ReleaseManifest.isVersion(from), from != release,
                  let architecture = fields["Architecture"],
                  let new = packages.first(where: { $0.listed.name == "clup-totem" && $0.listed.architecture == architecture })
            else { throw failure(.releaseNotVouched, "\(old) is not an earlier clup-totem of an architecture this release has") }
            let path = folder + "/" + DeltaName.file(from: from, to: release, architecture: architecture)
            let check = NSTemporaryDirectory() + "clup-release-\(UUID().uuidString).deb"
            defer { try? FileManager.default.removeItem(atPath: check) }
            try? FileManager.default.removeItem(atPath: path)
            try tool("debdelta", ["--delta-algo", "bsdiff", "-M", "2000", old, new.path, path])
            try tool("debpatch", ["-A", path, old, check])
            guard let rebuilt = try? ReleaseFiles.digest(check), rebuilt.sha256 == new.listed.sha256 else {
                throw failure(.releaseNotVouched, "the delta from \(from) does not rebuild \(new.path) (debdelta, debpatch)")
            }
            let (sha256, size) = try ReleaseFiles.digest(path)
            made.append(.init(from: from, architecture: architecture, sha256: sha256, size: size))
        }
        return made
    }
}

/// Runs a tool found on the PATH; a failure is a refusal with the last of what it said.
func tool(_ name: String, _ arguments: [String]) throws {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    guard let executable = directories.map({ "\($0)/\(name)" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw failure(.releaseNotVouched, "\(name) is not installed (Debian's debdelta and bsdiff packages)")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw failure(.releaseNotVouched, "\(name) failed: \(String(decoding: output.suffix(300), as: UTF8.self))")
    }
}

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check a signed manifest against public keys and print what it vouches for.")
    @Option(help: "The public key file (release-key.pub).") var key: String
    @Argument(help: "The signed manifest.") var manifest: String

    func run() throws {
        guard let keys = FileManager.default.contents(atPath: key), let data = FileManager.default.contents(atPath: manifest) else {
            throw failure(.releaseNotVouched, "cannot read \(key) or \(manifest)")
        }
        let checked = try SignedReleaseManifest(json: data).verify(trusting: ReleaseKey.list(String(decoding: keys, as: UTF8.self)), now: Date())
        print("release \(checked.release): issued \(checked.issued.formatted(.iso8601)), expires \(checked.expires.formatted(.iso8601))")
        for package in checked.packages { print("  \(package.name) \(package.version) \(package.architecture) \(package.sha256) \(package.size) bytes") }
        if let from = checked.downgradeFrom { print("  may replace the newer \(from.joined(separator: ", "))") }
        if let next = checked.nextKeys { print("  hands over to \(next.count) key(s)") }
    }
}

/// The private release key at rest: sealed with ChaChaPoly under a key scrypt derives from
/// the passphrase (N = 2^17, r = 8, p = 1: about a second, 128 MiB, per try).
enum SealedReleaseKey {
    struct File: Codable {
        var format: Int
        var kdf: String
        var logN: Int
        var r: Int
        var p: Int
        var salt: String
        var sealed: String
        var publicKey: String
    }

    static func seal(_ key: Curve25519.Signing.PrivateKey, passphrase: String) throws -> Data {
        let salt = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        let file = File(format: 1, kdf: "scrypt", logN: 17, r: 8, p: 1, salt: salt.base64EncodedString(), sealed: "",
                        publicKey: try ReleaseKey(rawRepresentation: key.publicKey.rawRepresentation).line)
        let box = try ChaChaPoly.seal(key.rawRepresentation, using: derive(passphrase, file), authenticating: Data(file.publicKey.utf8))
        var sealed = file
        sealed.sealed = box.combined.base64EncodedString()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(sealed)
    }

    static func open(_ data: Data, passphrase: String) throws -> Curve25519.Signing.PrivateKey {
        guard data.count <= 4096, let file = try? JSONDecoder().decode(File.self, from: data), file.format == 1, file.kdf == "scrypt",
              (14...20).contains(file.logN), file.r == 8, file.p == 1, let box = Data(base64Encoded: file.sealed)
        else { throw failure(.releaseSigningKeyUnusable, "the sealed release key is not one clup-release keygen made") }
        let raw: Data
        do {
            raw = try ChaChaPoly.open(ChaChaPoly.SealedBox(combined: box), using: derive(passphrase, file),
                                      authenticating: Data(file.publicKey.utf8))
        } catch {
            throw failure(.releaseSigningKeyUnusable, "the passphrase does not open the sealed release key (or the file was altered)")
        }
        let key = try Curve25519.Signing.PrivateKey(rawRepresentation: raw)
        guard try ReleaseKey(line: file.publicKey).rawRepresentation == key.publicKey.rawRepresentation else {
            throw failure(.releaseSigningKeyUnusable, "the sealed release key does not match its public half")
        }
        return key
    }

    static func derive(_ passphrase: String, _ file: File) throws -> SymmetricKey {
        guard let salt = Data(base64Encoded: file.salt), salt.count == 16 else {
            throw failure(.releaseSigningKeyUnusable, "the sealed release key's salt is unusable")
        }
        return try KDF.Scrypt.deriveKey(from: Data(passphrase.utf8), salt: salt, outputByteCount: 32, rounds: 1 << file.logN,
                                        blockSize: file.r, parallelism: file.p)
    }
}

/// The control fields of the package at `path` (`dpkg-deb --field`).
func debianFields(_ path: String) throws -> [String: String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/dpkg-deb")
    process.arguments = ["--field", path, "Package", "Version", "Architecture"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw failure(.releaseNotVouched, "\(path) is not a Debian package") }
    return Dictionary(String(decoding: output, as: UTF8.self).split(separator: "\n").compactMap { line in
        let pair = line.split(separator: ":", maxSplits: 1)
        return pair.count == 2 ? (String(pair[0]), pair[1].trimmingCharacters(in: .whitespaces)) : nil
    }, uniquingKeysWith: { first, _ in first })
}

func write(_ data: Data, to path: String, mode: Int) throws {
    guard FileManager.default.createFile(atPath: path + ".part", contents: data, attributes: [.posixPermissions: mode]),
          rename(path + ".part", path) == 0
    else { throw failure(.releaseNotVouched, "cannot write \(path)") }
}

/// A refusal printed as a coded error, exit status 1.
func failure(_ code: ErrorCode, _ message: String) -> Error {
    FileHandle.standardError.write(Data("clup-release: \(CodedError(code, message))\n".utf8))
    return ExitCode(1)
}
