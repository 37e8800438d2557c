import HTTPTypes
import CLupCore
import CLupProtocol
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The chain's apt repository of totem software, which the hub serves at `/repo` over its
/// HTTPS.
///
/// It is kept by aptly (Debian 12's `aptly`): a local repository `clup` holds every version
/// ever added, so a totem can always go back to the one before, and is published as the
/// suite `stable`, component `main`, its `InRelease` signed with the chain's release key.
/// That key is an OpenPGP key (Ed25519) made once, by `clup-hub init`, in its own GnuPG home
/// under the hub's state directory; totems learn its public half at enrolment and apt takes
/// nothing not signed by it. Only `clup-totem` packages go in: the repository is the totems'.
public struct ReleaseRepository: Sendable {
    /// `releases/` in the hub's state directory.
    public let directory: String

    public init(stateDirectory: String) {
        directory = stateDirectory + "/releases"
    }

    public static let package = "clup-totem"
    static let repository = "clup"
    public static let suite = "stable"
    public static let component = "main"
    public static let architectures = ["amd64", "arm64"]
    /// Where the hub serves the published repository.
    public static let urlPath = "/repo"
    static let maximumPackageBytes: UInt64 = 512 * 1024 * 1024

    var gnupgHome: String { directory + "/gnupg" }
    var aptlyConfig: String { directory + "/aptly.conf" }
    var aptlyRoot: String { directory + "/aptly" }
    /// What the hub serves at `/repo`.
    public var publishedDirectory: String { aptlyRoot + "/public" }
    /// The public release key, as apt's `Signed-By` reads it (binary OpenPGP).
    public var publicKeyPath: String { directory + "/chain-release-key.gpg" }

    /// One package of the repository.
    public struct Release: Sendable, Equatable, CustomStringConvertible {
        public let package: String
        public let version: String
        public let architecture: String

        public var description: String { "\(package) \(version) (\(architecture))" }
    }

    // MARK: The release key

    /// The public release key totems are given at enrolment; nil before `clup-hub init`
    /// made it.
    public func publicKey() -> Data? {
        guard let data = FileManager.default.contents(atPath: publicKeyPath), (32...16_384).contains(data.count) else { return nil }
        return data
    }

    /// Makes the chain's release key unless it exists; says whether it made it. The key is
    /// never replaced: every totem trusts the one it was given.
    @discardableResult
    public func makeKeyIfNeeded(chain: String) throws(HubError) -> Bool {
        if (try? fingerprint()) != nil, publicKey() != nil { return false }
        try makeDirectories()
        defer { stopAgent() }
        let name = "CLup releases of \(chain.filter { $0.isLetter || $0.isNumber || " .-".contains($0) }.prefix(60))"
        _ = try run("gpg", ["--batch", "--quiet", "--passphrase", "", "--quick-gen-key", name, "ed25519", "sign", "never"])
        let fingerprint = try fingerprint()
        let key = try run("gpg", ["--batch", "--export", fingerprint])
        try write(key, to: publicKeyPath)
        return true
    }

    /// The fingerprint of the release key (the only secret key of its GnuPG home).
    func fingerprint() throws(HubError) -> String {
        let listing = String(decoding: try run("gpg", ["--batch", "--with-colons", "--list-secret-keys"]), as: UTF8.self)
        guard let line = listing.split(separator: "\n").first(where: { $0.hasPrefix("fpr:") }),
              let fingerprint = line.split(separator: ":", omittingEmptySubsequences: false).dropFirst(9).first,
              fingerprint.count == 40
        else { throw HubError(.internalServerError, .releaseToolFailed, "no release key in \(gnupgHome): run clup-hub init") }
        return String(fingerprint)
    }

    // MARK: Adding a release

    /// Adds the package at `path` and publishes the repository signed anew. Refuses what is
    /// not a `clup-totem` package, and a version the repository holds with other contents
    /// (the same file again is taken, and changes nothing).
    public func add(packageAt path: String) throws(HubError) -> Release {
        let release = try Self.inspect(path)
        guard publicKey() != nil else {
            throw HubError(.internalServerError, .releaseToolFailed, "no release key in \(directory): run clup-hub init first")
        }
        return try locked { () throws(HubError) -> Release in
            try prepareRepository()
            let output: Data
            do throws(HubError) {
                output = try run("aptly", ["-config=\(aptlyConfig)", "repo", "add", Self.repository, path])
            } catch {
                guard error.coded.message.contains("conflict") else { throw error }
                throw HubError(.conflict, .releaseRefused,
                               "the repository holds \(release) already, with other contents: a new build needs a new version")
            }
            let said = String(decoding: output, as: UTF8.self)
            if said.contains("[!]") || said.lowercased().contains("error") {
                throw HubError(.conflict, .releaseRefused, "aptly did not add \(release): \(Self.oneLine(said))")
            }
            try publish()
            try publishSBOM(of: release, from: path)
            return release
        }
    }

    /// Where the hub serves a release's SBOM: `/repo/sbom/clup-totem_VERSION_ARCH.spdx.json`.
    public func sbomPath(of release: Release) -> String {
        publishedDirectory + "/sbom/\(release.package)_\(release.version)_\(release.architecture).spdx.json"
    }

    /// Publishes beside the release the SBOM its package carries
    /// (`/usr/share/doc/clup-totem/clup-totem.spdx.json`, written by `scripts/package`); a
    /// package without one (built before SBOMs) publishes none.
    func publishSBOM(of release: Release, from path: String) throws(HubError) {
        let member = "./usr/share/doc/\(release.package)/\(release.package).spdx.json"
        let listing = String(decoding: try ReleaseTool.run("dpkg-deb", ["--contents", path]), as: UTF8.self)
        guard listing.split(separator: "\n").contains(where: { $0.hasSuffix(" " + member) }) else { return }
        let sbom = try ReleaseTool.run("sh", ["-c", "dpkg-deb --fsys-tarfile \"$1\" | tar -xO \"$2\"", "sh", path, member])
        guard (try? JSONSerialization.jsonObject(with: sbom)) != nil else {
            throw HubError(.badRequest, .releaseRefused, "the SBOM in \(release) is not JSON")
        }
        do {
            try FileManager.default.createDirectory(atPath: publishedDirectory + "/sbom", withIntermediateDirectories: true)
        } catch {
            throw HubError(.internalServerError, .releaseToolFailed, "cannot make \(publishedDirectory)/sbom: \(error)")
        }
        try write(sbom, to: sbomPath(of: release))
    }

    /// The packages of the repository, oldest version first.
    public func releases() throws(HubError) -> [Release] {
        guard FileManager.default.fileExists(atPath: aptlyConfig) else { return [] }
        let listing = String(decoding: try run("aptly", ["-config=\(aptlyConfig)", "repo", "show", "-with-packages", Self.repository]),
                             as: UTF8.self)
        return listing.split(separator: "\n").drop { !$0.hasPrefix("Packages:") }.dropFirst().compactMap { line in
            // "  clup-totem_0.13.0_amd64"
            let parts = line.trimmingCharacters(in: .whitespaces).split(separator: "_")
            guard parts.count == 3 else { return nil }
            return Release(package: String(parts[0]), version: String(parts[1]), architecture: String(parts[2]))
        }.sorted { Self.versionOrder($0.version, $1.version) }
    }

    /// The clup-totem versions the published repository offers (what totems can fetch),
    /// newest first, read from its `Packages` lists: no tool is run, so the serving hub
    /// reads it too.
    public func publishedVersions() -> [String] {
        Set(publishedPackages().map(\.version)).sorted { DebianVersion.isOlder($1, than: $0) }
    }

    /// One clup-totem file the published repository offers, as its `Packages` list gives it.
    public struct PublishedPackage: Sendable, Equatable {
        public let version: String
        public let architecture: String
        public let sha256: String
    }

    /// Every clup-totem file the published repository offers, read from its `Packages` lists.
    public func publishedPackages() -> [PublishedPackage] {
        var found: [PublishedPackage] = []
        for architecture in Self.architectures {
            let path = publishedDirectory + "/dists/\(Self.suite)/\(Self.component)/binary-\(architecture)/Packages"
            guard let data = FileManager.default.contents(atPath: path), data.count <= 16 * 1024 * 1024 else { continue }
            for stanza in String(decoding: data, as: UTF8.self).components(separatedBy: "\n\n") {
                let fields = stanza.split(separator: "\n")
                func field(_ name: String) -> String? {
                    fields.first(where: { $0.hasPrefix("\(name): ") }).map { String($0.dropFirst(name.count + 2)) }
                }
                guard fields.contains("Package: \(Self.package)"), let version = field("Version"), Self.isVersion(version),
                      let sha256 = field("SHA256")
                else { continue }
                found.append(PublishedPackage(version: version, architecture: field("Architecture") ?? architecture, sha256: sha256))
            }
        }
        return found
    }

    // MARK: Deltas

    /// Where the hub serves the delta from `from` to `to`.
    public func deltaPath(from: String, to: String, architecture: String) -> String {
        publishedDirectory + "/" + DeltaName.urlPath(DeltaName.file(from: from, to: to, architecture: architecture))
    }

    /// Serves the deltas a manifest the hub vouched for lists, found beside it in `folder`
    /// (where `clup-release sign --delta-from` made them): each one whose SHA-256 and size
    /// are the manifest's is published; the hub makes none and alters none, and a totem
    /// checks each against the same manifest. Says, for each, what became of it.
    public func publishDeltas(of manifest: ReleaseManifest, from folder: String) -> [String] {
        (manifest.deltas ?? []).map { delta in
            let name = DeltaName.file(from: delta.from, to: manifest.release, architecture: delta.architecture)
            let target = deltaPath(from: delta.from, to: manifest.release, architecture: delta.architecture), part = target + ".part"
            let said = "delta from \(delta.from) (\(delta.architecture))"
            try? FileManager.default.createDirectory(atPath: publishedDirectory + "/" + DeltaName.folder, withIntermediateDirectories: true)
            try? FileManager.default.removeItem(atPath: part)
            // The copy is what is checked and served (the file beside the manifest could change
            // in between); one not served now is not left served from before either.
            guard let found = Self.regularFileSize(folder + "/" + name) else {
                try? FileManager.default.removeItem(atPath: target)
                return "\(said) not beside the manifest: totems running it fetch the whole package"
            }
            guard found == UInt64(delta.size), (try? FileManager.default.copyItem(atPath: folder + "/" + name, toPath: part)) != nil else {
                try? FileManager.default.removeItem(atPath: part)
                try? FileManager.default.removeItem(atPath: target)
                return "\(said) refused: \(name) is not the file the manifest lists"
            }
            guard let (sha256, size) = try? ReleaseFiles.digest(part, maximumBytes: Int64(Self.maximumPackageBytes)),
                  sha256 == delta.sha256, size == delta.size else {
                try? FileManager.default.removeItem(atPath: part)
                try? FileManager.default.removeItem(atPath: target)
                return "\(said) refused: \(name) is not the file the manifest lists"
            }
            guard rename(part, target) == 0 else {
                try? FileManager.default.removeItem(atPath: part)
                return "\(said) not served: cannot write \(target)"
            }
            return "\(said) served, \(size) bytes"
        }
    }

    /// The size of the regular file at `path` (a link followed), or nil if there is none.
    static func regularFileSize(_ path: String) -> UInt64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              attributes[.type] as? FileAttributeType == .typeRegular else { return nil }
        return (attributes[.size] as? NSNumber)?.uint64Value
    }

    /// What the package at `path` is, from its control fields; refused if it is not a
    /// clup-totem package this repository can hold.
    static func inspect(_ path: String) throws(HubError) -> Release {
        guard let size = regularFileSize(path) else {
            throw HubError(.badRequest, .releaseRefused, "\(path) is not a file")
        }
        guard size <= maximumPackageBytes else {
            throw HubError(.badRequest, .releaseRefused, "\(path) is over \(maximumPackageBytes / 1024 / 1024) MiB: not a totem package")
        }
        let fields: [String: String]
        do {
            let text = String(decoding: try ReleaseTool.run("dpkg-deb", ["--field", path, "Package", "Version", "Architecture"]),
                              as: UTF8.self)
            fields = Dictionary(text.split(separator: "\n").compactMap { line in
                let pair = line.split(separator: ":", maxSplits: 1)
                return pair.count == 2 ? (String(pair[0]), pair[1].trimmingCharacters(in: .whitespaces)) : nil
            }, uniquingKeysWith: { first, _ in first })
        } catch {
            throw HubError(.badRequest, .releaseRefused, "\(path) is not a Debian package: \(error.coded.message)")
        }
        guard fields["Package"] == package else {
            throw HubError(.badRequest, .releaseRefused, "\(path) is the package \"\(oneLine(fields["Package"] ?? "?"))\"; the repository holds \(package) only")
        }
        guard let version = fields["Version"], isVersion(version) else {
            throw HubError(.badRequest, .releaseRefused, "\(path) has version \"\(oneLine(fields["Version"] ?? ""))\", not a Debian version")
        }
        guard let architecture = fields["Architecture"], architectures.contains(architecture) else {
            throw HubError(.badRequest, .releaseRefused,
                           "\(path) is built for \(oneLine(fields["Architecture"] ?? "?")); totems are \(architectures.joined(separator: " or "))")
        }
        return Release(package: package, version: version, architecture: architecture)
    }

    /// A Debian version as a rollout may name it (`ReleaseManifest.isVersion`).
    public static func isVersion(_ text: String) -> Bool { ReleaseManifest.isVersion(text) }

    /// `a` before `b` as dpkg orders versions.
    public static func versionOrder(_ a: String, _ b: String) -> Bool { DebianVersion.isOlder(a, than: b) }

    // MARK: aptly

    /// The aptly configuration and the local repository, made the first time.
    private func prepareRepository() throws(HubError) {
        if !FileManager.default.fileExists(atPath: aptlyConfig) {
            let config: [String: Any] = ["rootDir": aptlyRoot, "gpgProvider": "gpg", "architectures": Self.architectures,
                                         "gpgDisableSign": false, "gpgDisableVerify": false, "downloadConcurrency": 1]
            let data = (try? JSONSerialization.data(withJSONObject: config, options: [.prettyPrinted, .sortedKeys])) ?? Data()
            try write(data, to: aptlyConfig)
        }
        if (try? run("aptly", ["-config=\(aptlyConfig)", "repo", "show", Self.repository])) == nil {
            _ = try run("aptly", ["-config=\(aptlyConfig)", "repo", "create", "-distribution=\(Self.suite)",
                                  "-component=\(Self.component)", Self.repository])
        }
    }

    /// Publishes the repository (the first time) or its new contents, signed with the release key.
    private func publish() throws(HubError) {
        defer { stopAgent() }
        let key = try fingerprint()
        let published = FileManager.default.fileExists(atPath: publishedDirectory + "/dists/\(Self.suite)/InRelease")
        let arguments = published
            ? ["-config=\(aptlyConfig)", "publish", "update", "-batch", "-gpg-key=\(key)", Self.suite]
            : ["-config=\(aptlyConfig)", "publish", "repo", "-batch", "-gpg-key=\(key)",
               "-architectures=\(Self.architectures.joined(separator: ","))", Self.repository]
        _ = try run("aptly", arguments)
    }

    // MARK: Files and tools

    /// gpg leaves an agent running in its home; a command that is done stops it.
    private func stopAgent() {
        _ = try? run("gpgconf", ["--kill", "gpg-agent"])
    }

    private func makeDirectories() throws(HubError) {
        for (path, mode) in [(directory, 0o755), (gnupgHome, 0o700)] {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: mode])
            } catch {
                throw HubError(.internalServerError, .releaseToolFailed, "cannot make \(path): \(error)")
            }
        }
    }

    private func write(_ data: Data, to path: String) throws(HubError) {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw HubError(.internalServerError, .releaseToolFailed, "cannot write \(path): \(error)")
        }
    }

    /// Runs `body` holding the repository's lock: two releases added at once go one after
    /// the other (aptly's database takes one writer).
    private func locked<T>(_ body: () throws(HubError) -> T) throws(HubError) -> T {
        try makeDirectories()
        let descriptor = open(directory + "/.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw HubError(.internalServerError, .releaseToolFailed, "cannot open \(directory)/.lock") }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else {
            throw HubError(.internalServerError, .releaseToolFailed, "cannot lock \(directory)/.lock")
        }
        return try body()
    }

    private func run(_ tool: String, _ arguments: [String]) throws(HubError) -> Data {
        try ReleaseTool.run(tool, arguments, environment: ["GNUPGHOME": gnupgHome])
    }

    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline || $0.asciiValue.map { $0 < 0x20 } == true ? " " : $0 }.prefix(300))
    }
}

/// A tool the repository is kept with (gpg, aptly, dpkg-deb), found on the PATH.
enum ReleaseTool {
    static let maximumOutput = 4 * 1024 * 1024

    /// Runs `tool`; its standard output, or a `releaseToolFailed` with what it printed.
    static func run(_ tool: String, _ arguments: [String], environment: [String: String] = [:]) throws(HubError) -> Data {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let executable = directories.map({ "\($0)/\(tool)" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { throw HubError(.internalServerError, .releaseToolFailed, "\(tool) is not installed (the clup-hub package depends on it)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        // What it says on standard error goes to a file of its own, read if it fails: a pipe
        // left unread could fill and stop it.
        let errorsPath = NSTemporaryDirectory() + "clup-hub-\(tool)-\(UUID().uuidString).err"
        guard FileManager.default.createFile(atPath: errorsPath, contents: nil), let errors = FileHandle(forWritingAtPath: errorsPath)
        else { throw HubError(.internalServerError, .releaseToolFailed, "cannot make a file in \(NSTemporaryDirectory())") }
        defer {
            try? errors.close()
            try? FileManager.default.removeItem(atPath: errorsPath)
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw HubError(.internalServerError, .releaseToolFailed, "\(tool) did not start: \(error)")
        }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let said = FileManager.default.contents(atPath: errorsPath) ?? Data()
            let text = String(decoding: (printed.suffix(1000) + said.suffix(1000)), as: UTF8.self)
            throw HubError(.internalServerError, .releaseToolFailed,
                           "\(tool) \(arguments.first ?? "") failed (status \(process.terminationStatus)): \(ReleaseRepository.oneLine(text))")
        }
        return printed.prefix(maximumOutput)
    }
}
