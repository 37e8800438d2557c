import CLupCore
import Crypto
import Foundation

/// The public half of a chain's release key (Ed25519), as totems trust it.
///
/// Written one key per line, `clup-release-ed25519 BASE64 [comment]`; its id is the first 16
/// hex digits of the SHA-256 of the key's 32 bytes. The private half never reaches the hub:
/// it stays with the release manager (`clup-release`).
public struct ReleaseKey: Sendable, Hashable, CustomStringConvertible {
    public let rawRepresentation: Data

    public static let prefix = "clup-release-ed25519"

    public init(rawRepresentation: Data) throws(CodedError) {
        guard rawRepresentation.count == 32, (try? Curve25519.Signing.PublicKey(rawRepresentation: rawRepresentation)) != nil else {
            throw CodedError(.releaseSigningKeyUnusable, "a release key is 32 bytes of Ed25519, not \(rawRepresentation.count) bytes")
        }
        self.rawRepresentation = rawRepresentation
    }

    /// A key from its line, `clup-release-ed25519 BASE64 [comment]`.
    public init(line: some StringProtocol) throws(CodedError) {
        let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard fields.count >= 2, fields[0] == Self.prefix, let raw = Data(base64Encoded: String(fields[1])) else {
            throw CodedError(.releaseSigningKeyUnusable, "\"\(TypedText.escaped(String(line.prefix(40))))\" is not a release key line (\(Self.prefix) BASE64)")
        }
        try self.init(rawRepresentation: raw)
    }

    /// The keys of a file of key lines (blank lines and `#` comments skipped); at most 16.
    public static func list(_ text: String) throws(CodedError) -> [ReleaseKey] {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard lines.count <= 16 else { throw CodedError(.releaseSigningKeyUnusable, "more than 16 release keys in one list") }
        return try lines.map { (line) throws(CodedError) in try ReleaseKey(line: line) }
    }

    public var id: String { HubWire.hex(SHA256.hash(data: rawRepresentation).prefix(8)) }
    public var line: String { "\(Self.prefix) \(rawRepresentation.base64EncodedString())" }
    public var description: String { "release key \(id)" }

    func verifies(_ signature: Data, of message: Data) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: rawRepresentation) else { return false }
        return key.isValidSignature(signature, for: message)
    }
}

/// What a release manager vouches for: the packages of one clup-totem release (name,
/// version, architecture, SHA-256 and size of each file), until when, and what goes with it:
/// the older versions it may replace (a downgrade allowed knowingly), the keys that take over
/// from the one signing it, and when the release line's support ends.
public struct ReleaseManifest: Codable, Sendable, Equatable {
    public struct Package: Codable, Sendable, Equatable {
        public var name: String
        public var version: String
        public var architecture: String
        /// The `.deb` file's SHA-256, 64 lowercase hex digits.
        public var sha256: String
        public var size: Int64

        public init(name: String, version: String, architecture: String, sha256: String, size: Int64) {
            self.name = name
            self.version = version
            self.architecture = architecture
            self.sha256 = sha256
            self.size = size
        }
    }

    /// A delta the release manager made from an earlier release's package to this one's
    /// (`DeltaName`, debdelta's format): a totem running `from` fetches it rather than the
    /// whole package, and checks it against this before anything reads it.
    public struct Delta: Codable, Sendable, Equatable {
        public var from: String
        public var architecture: String
        public var sha256: String
        public var size: Int64

        public init(from: String, architecture: String, sha256: String, size: Int64) {
            self.from = from
            self.architecture = architecture
            self.sha256 = sha256
            self.size = size
        }
    }

    public static let currentFormat = 1
    public var format: Int
    /// The clup-totem version this manifest is of.
    public var release: String
    public var packages: [Package]
    public var issued: Date
    /// After this, no totem installs on this manifest's word (a frozen hub serves old ones).
    public var expires: Date
    /// Installed versions from which going down to this release is allowed.
    public var downgradeFrom: [String]?
    /// Key lines that replace the signing key in the totems' trust once this is installed.
    public var nextKeys: [String]?
    /// When the release line's support ends (security fixes, SECURITY.md).
    public var supportEnds: Date?
    /// Deltas to this release from earlier ones (a manifest without is read by every totem;
    /// one from before deltas ignores them).
    public var deltas: [Delta]?

    public init(release: String, packages: [Package], issued: Date, expires: Date, downgradeFrom: [String]? = nil,
                nextKeys: [String]? = nil, supportEnds: Date? = nil, deltas: [Delta]? = nil) {
        format = Self.currentFormat
        self.release = release
        self.packages = packages
        self.issued = issued
        self.expires = expires
        self.downgradeFrom = downgradeFrom
        self.nextKeys = nextKeys
        self.supportEnds = supportEnds
        self.deltas = deltas
    }

    /// The delta to this release from `version` for `architecture`, if listed.
    public func delta(from version: String, architecture: String) -> Delta? {
        deltas?.first { $0.from == version && $0.architecture == architecture }
    }

    /// The package of `name` for `architecture` at this release, if listed.
    public func package(_ name: String, architecture: String) -> Package? {
        packages.first { $0.name == name && $0.version == release && $0.architecture == architecture }
    }

    /// What makes this manifest unusable, in a line; nil if nothing does.
    public func problem() -> String? {
        guard format == Self.currentFormat else { return "manifest format \(format) is not \(Self.currentFormat)" }
        guard Self.isVersion(release) else { return "the release \"\(TypedText.escaped(String(release.prefix(20))))\" is not a Debian version" }
        guard (1...16).contains(packages.count) else { return "a manifest lists 1 to 16 packages, not \(packages.count)" }
        for package in packages {
            guard package.name.range(of: "^[a-z0-9][a-z0-9+.-]{1,63}\\z", options: .regularExpression) != nil, Self.isVersion(package.version),
                  package.architecture.range(of: "^[a-z0-9-]{1,16}\\z", options: .regularExpression) != nil
            else { return "a package of the manifest has no usable name, version or architecture" }
            guard package.sha256.range(of: "^[0-9a-f]{64}\\z", options: .regularExpression) != nil,
                  (1...(1 << 32)).contains(package.size)
            else { return "the package \(package.name) has no usable SHA-256 or size" }
        }
        guard issued < expires, expires.timeIntervalSince(issued) <= 400 * 86_400 else {
            return "a manifest expires after it is issued and within 400 days"
        }
        guard (downgradeFrom ?? []).count <= 64, (downgradeFrom ?? []).allSatisfy(Self.isVersion) else {
            return "downgradeFrom lists at most 64 Debian versions"
        }
        guard (deltas ?? []).count <= 16, (deltas ?? []).allSatisfy({ delta in
            Self.isVersion(delta.from) && delta.from != release && delta.architecture.range(of: "^[a-z0-9-]{1,16}\\z", options: .regularExpression) != nil
                && delta.sha256.range(of: "^[0-9a-f]{64}\\z", options: .regularExpression) != nil && (1...(1 << 32)).contains(delta.size)
        }) else { return "deltas lists at most 16, each from another Debian version, with an architecture, a SHA-256 and a size" }
        if let next = nextKeys {
            guard (1...16).contains(next.count), next.allSatisfy({ (try? ReleaseKey(line: $0)) != nil }) else {
                return "nextKeys lists 1 to 16 release key lines"
            }
        }
        return nil
    }

    /// A Debian version as a rollout may name it: a digit first, then letters, digits and
    /// `.+~-`, at most 64 bytes (no epoch: totem versions never need one).
    public static func isVersion(_ text: String) -> Bool {
        text.utf8.count <= 64 && text.range(of: "^[0-9][A-Za-z0-9.+~-]*\\z", options: .regularExpression) != nil
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// A release manifest with its signatures: a DSSE envelope (in-toto's Dead Simple Signing
/// Envelope): the manifest's JSON bytes in base64, signed as they are (over DSSE's
/// pre-authentication encoding of the payload type and the bytes), so no one needs a
/// canonical JSON to check it.
public struct SignedReleaseManifest: Codable, Sendable, Equatable {
    public struct Signature: Codable, Sendable, Equatable {
        public var keyid: String
        public var sig: String
    }

    public static let payloadType = "application/vnd.clup.release-manifest+json"
    /// Bigger is not a manifest: the hub refuses it, and the totem too.
    public static let maximumBytes = 64 * 1024

    public var payloadType: String
    public var payload: String
    public var signatures: [Signature]

    /// `manifest` signed with `key`.
    public static func sign(_ manifest: ReleaseManifest, with key: Curve25519.Signing.PrivateKey) throws -> SignedReleaseManifest {
        let body = try ReleaseManifest.encoder.encode(manifest)
        let signature = try key.signature(for: preAuthenticationEncoding(body))
        let keyid = try ReleaseKey(rawRepresentation: key.publicKey.rawRepresentation).id
        return SignedReleaseManifest(payloadType: payloadType, payload: body.base64EncodedString(),
                                     signatures: [Signature(keyid: keyid, sig: signature.base64EncodedString())])
    }

    /// An envelope read from its JSON: bounded, and its fields of the right shape.
    public init(json: Data) throws(CodedError) {
        guard json.count <= Self.maximumBytes else {
            throw CodedError(.releaseNotVouched, "the release manifest is over \(Self.maximumBytes / 1024) KiB")
        }
        guard let envelope = try? JSONDecoder().decode(SignedReleaseManifest.self, from: json) else {
            throw CodedError(.releaseNotVouched, "the release manifest is not a signed manifest (a DSSE envelope in JSON)")
        }
        guard envelope.payloadType == Self.payloadType else {
            throw CodedError(.releaseNotVouched, "the envelope's payload is \"\(TypedText.escaped(String(envelope.payloadType.prefix(60))))\", not a release manifest")
        }
        guard (1...8).contains(envelope.signatures.count) else {
            throw CodedError(.releaseNotVouched, "the release manifest carries \(envelope.signatures.count) signatures, not 1 to 8")
        }
        self = envelope
    }

    init(payloadType: String, payload: String, signatures: [Signature]) {
        self.payloadType = payloadType
        self.payload = payload
        self.signatures = signatures
    }

    /// The envelope as it is sent and kept.
    public var json: Data { (try? JSONEncoder().encode(self)) ?? Data() }
    public var text: String { String(decoding: json, as: UTF8.self) }

    /// SHA-256 of the signed manifest's bytes, in hex: which manifest a decision was about.
    public var digest: String {
        HubWire.hex(SHA256.hash(data: Data(base64Encoded: payload) ?? Data()))
    }

    /// The manifest, checked: a signature by one of `keys` over its bytes, the manifest
    /// usable, and not expired at `now` (unless `expiryMatters` is false: what a manifest of
    /// the version already running says of its files holds after its expiry). Each refusal
    /// says which.
    public func verify(trusting keys: [ReleaseKey], now: Date, expiryMatters: Bool = true) throws(CodedError) -> ReleaseManifest {
        // Canonical base64 only: one signed manifest has one text (the padding bits of a
        // last character could otherwise vary and the same bytes read the same).
        guard let body = Data(base64Encoded: payload), body.base64EncodedString() == payload else {
            throw CodedError(.releaseNotVouched, "the release manifest's payload is not canonical base64")
        }
        let message = Self.preAuthenticationEncoding(body)
        let trusted = Dictionary(keys.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let named = signatures.map { TypedText.escaped(String($0.keyid.prefix(16))) }
        guard signatures.contains(where: { signature in
            guard let key = trusted[signature.keyid], let bytes = Data(base64Encoded: signature.sig),
                  bytes.base64EncodedString() == signature.sig else { return false }
            return key.verifies(bytes, of: message)
        }) else {
            if let known = signatures.first(where: { trusted[$0.keyid] != nil }) {
                throw CodedError(.releaseNotVouched, "the signature of release key \(known.keyid) does not verify: the manifest was altered after signing, or signed by another key")
            }
            throw CodedError(.releaseNotVouched, "the release manifest is signed by \(named.joined(separator: ", ")), not by a release key trusted here (\(keys.map(\.id).joined(separator: ", ")))")
        }
        let manifest: ReleaseManifest
        do {
            manifest = try ReleaseManifest.decoder.decode(ReleaseManifest.self, from: body)
        } catch {
            throw CodedError(.releaseNotVouched, "the signed release manifest is not a manifest this version reads")
        }
        if let problem = manifest.problem() { throw CodedError(.releaseNotVouched, "the signed release manifest is unusable: \(problem)") }
        guard now < manifest.expires || !expiryMatters else {
            throw CodedError(.releaseManifestExpired, "the release manifest of \(manifest.release) expired at \(manifest.expires.formatted(.iso8601))")
        }
        return manifest
    }

    /// The manifest as it says it is, not checked: for showing what a refused one claimed.
    public func unverified() -> ReleaseManifest? {
        Data(base64Encoded: payload).flatMap { try? ReleaseManifest.decoder.decode(ReleaseManifest.self, from: $0) }
    }

    /// DSSE's PAE: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body.
    static func preAuthenticationEncoding(_ body: Data) -> Data {
        Data("DSSEv1 \(payloadType.utf8.count) \(payloadType) \(body.count) ".utf8) + body
    }
}

/// Files of a release, as a manifest names them.
public enum ReleaseFiles {
    /// The SHA-256 (hex) and size of the regular file at `path`, read 1 MiB at a time.
    public static func digest(_ path: String, maximumBytes: Int64 = 1 << 32) throws(CodedError) -> (sha256: String, size: Int64) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CodedError(.releaseNotVouched, "cannot read \(path)") }
        defer { try? handle.close() }
        var hash = SHA256()
        var size: Int64 = 0
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw CodedError(.releaseNotVouched, "cannot read \(path): \(error)")
            }
            if chunk.isEmpty { break }
            size += Int64(chunk.count)
            guard size <= maximumBytes else { throw CodedError(.releaseNotVouched, "\(path) is over \(maximumBytes) bytes") }
            hash.update(data: chunk)
        }
        return (HubWire.hex(hash.finalize()), size)
    }
}
