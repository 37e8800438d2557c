import CLupCore
import CLupProtocol
import Foundation
import Logging
import PostgresNIO

/// The signed release manifests the hub holds, and the release keys it checks them with.
///
/// The hub chooses which version goes where (rollouts); it cannot say which packages are
/// real. That is the release manager's, who signs a manifest of each release with the
/// chain's release key on a machine of their own (`clup-release sign`); the hub keeps the
/// manifest as it was signed and sends it with the version to the totems, whose update
/// helper installs a package only if a manifest signed by the key it trusts lists its
/// SHA-256. The hub checks manifests too, against the public keys it was given
/// (`clup-hub release trust`), and only lets a rollout name a version a current manifest
/// vouches for: a mistake is caught at the hub. A hub taken over can skip its own checks,
/// not the totems'.
public struct ReleaseManifests: Sendable {
    let database: HubDatabase

    public init(database: HubDatabase) {
        self.database = database
    }

    /// One manifest as `clup-hub release list` shows it.
    public struct Held: Sendable, Equatable {
        public let version: String
        public let keyID: String
        public let issued: Date
        public let expires: Date
        public let supportEnds: Date?
    }

    /// Trusts `key` for manifests from now on (kept, and audited); says whether it is new.
    @discardableResult
    public func trust(_ key: ReleaseKey, by actor: AuditActor) async throws -> Bool {
        let logger = database.logger
        return try await database.transaction { connection in
            let added = try await connection.all("""
                INSERT INTO release_key (key_id, key_line, added_by) VALUES (\(key.id), \(key.line), \(actor.who))
                ON CONFLICT (key_id) DO NOTHING RETURNING key_id
                """, as: String.self, logger)
            if !added.isEmpty {
                try await Audit.record(by: actor, store: nil, action: "release key \(key.id) trusted", before: nil, after: key.line,
                                       connection, logger)
            }
            return !added.isEmpty
        }
    }

    /// The release keys the hub checks manifests with.
    public func keys() async throws -> [ReleaseKey] {
        let logger = database.logger
        let lines = try await database.transaction { connection in
            try await connection.all("SELECT key_line FROM release_key ORDER BY added_at", as: String.self, logger)
        }
        return lines.compactMap { try? ReleaseKey(line: $0) }
    }

    /// Keeps the manifest `json` once it is checked: signed by a trusted key, not expired, and
    /// every clup-totem file it lists that the repository offers is that very file (its
    /// SHA-256), at least one of them. A manifest of the same version issued later replaces
    /// the one held (a fresh expiry); an older one is refused. Totems taken in by a live
    /// rollout of that version are told.
    public func vouch(_ json: Data, repository: ReleaseRepository, by actor: AuditActor, now: Date = Date()) async throws -> ReleaseManifest {
        let envelope: SignedReleaseManifest
        do {
            envelope = try SignedReleaseManifest(json: json)
        } catch {
            throw HubError(.badRequest, .releaseNotVouched, error.message)
        }
        let keys = try await keys()
        guard !keys.isEmpty else {
            throw HubError(.conflict, .releaseNotVouched, "the hub trusts no release key yet: clup-hub release trust the chain's public key first")
        }
        let manifest: ReleaseManifest
        do {
            manifest = try envelope.verify(trusting: keys, now: now)
        } catch {
            throw HubError(.conflict, ErrorCode(rawValue: error.code) ?? .releaseNotVouched, error.message)
        }
        let listed = manifest.packages.filter { $0.name == ReleaseRepository.package && $0.version == manifest.release }
        let offered = repository.publishedPackages().filter { $0.version == manifest.release }
        guard !listed.isEmpty else {
            throw HubError(.conflict, .releaseNotVouched, "the manifest of \(manifest.release) lists no \(ReleaseRepository.package) \(manifest.release)")
        }
        for file in offered {
            guard let entry = listed.first(where: { $0.architecture == file.architecture }) else { continue }
            guard entry.sha256 == file.sha256 else {
                throw HubError(.conflict, .releaseNotVouched,
                               "the repository's \(ReleaseRepository.package) \(file.version) (\(file.architecture)) is not the package the manifest vouches for: its SHA-256 is \(file.sha256.prefix(16))…, the manifest's \(entry.sha256.prefix(16))…")
            }
        }
        guard offered.contains(where: { file in listed.contains { $0.architecture == file.architecture } }) else {
            throw HubError(.conflict, .releaseNotVouched,
                           "the repository holds no \(ReleaseRepository.package) \(manifest.release) the manifest lists: clup-hub release add the package first")
        }
        let logger = database.logger
        let signer = envelope.signatures.first { signature in keys.contains { $0.id == signature.keyid } }?.keyid ?? ""
        let live = try await database.transaction { connection -> Int64? in
            let held = try await connection.all("SELECT issued FROM release_manifest WHERE version = \(manifest.release) FOR UPDATE",
                                                as: Date.self, logger).first
            if let held, held >= manifest.issued {
                guard held == manifest.issued else {
                    throw HubError(.conflict, .releaseNotVouched,
                                   "the hub holds a manifest of \(manifest.release) issued later (\(held.formatted(.iso8601))): it is kept")
                }
                return nil
            }
            try await connection.query("""
                INSERT INTO release_manifest (version, envelope, key_id, issued, expires, support_ends, added_by)
                VALUES (\(manifest.release), \(envelope.text), \(signer), \(manifest.issued), \(manifest.expires), \(manifest.supportEnds), \(actor.who))
                ON CONFLICT (version) DO UPDATE SET envelope = excluded.envelope, key_id = excluded.key_id, issued = excluded.issued,
                    expires = excluded.expires, support_ends = excluded.support_ends, added_at = now(), added_by = excluded.added_by
                -- Two first vouches at once both find no row to lock: the later manifest wins.
                WHERE release_manifest.issued < excluded.issued
                """, logger: logger)
            try await Audit.record(by: actor, store: nil, action: "release \(manifest.release) vouched for",
                                   before: held.map { "manifest issued \($0.formatted(.iso8601))" },
                                   after: "manifest \(envelope.digest.prefix(16)) by key \(signer), expires \(manifest.expires.formatted(.iso8601))",
                                   connection, logger)
            // The keys that take over are trusted for the next manifests.
            for line in manifest.nextKeys ?? [] {
                guard let key = try? ReleaseKey(line: line) else { continue }
                try await connection.query("""
                    INSERT INTO release_key (key_id, key_line, added_by) VALUES (\(key.id), \(key.line), \("manifest of \(manifest.release)"))
                    ON CONFLICT (key_id) DO NOTHING
                    """, logger: logger)
            }
            return try await connection.all("""
                SELECT rollout_id FROM rollout WHERE version = \(manifest.release) AND state IN ('running', 'paused')
                """, as: Int64.self, logger).first
        }
        if let live { try await Rollouts(database: database).tellStores(ofRollout: live) }
        return manifest
    }

    /// The manifests held, oldest version first.
    public func held() async throws -> [Held] {
        let logger = database.logger
        let rows = try await database.transaction { connection in
            try await connection.rows("SELECT version, key_id, issued, expires, support_ends FROM release_manifest",
                                      as: (String, String, Date, Date, Date?).self, logger)
        }
        return rows.map { Held(version: $0.0, keyID: $0.1, issued: $0.2, expires: $0.3, supportEnds: $0.4) }
            .sorted { DebianVersion.isOlder($0.version, than: $1.version) }
    }

    /// Why a rollout may not name `version` now, or nil: no manifest, or only an expired one.
    static func refusal(of version: String, now: Date, _ connection: PostgresConnection, _ logger: Logger) async throws -> HubError? {
        guard let expires = try await connection.all("SELECT expires FROM release_manifest WHERE version = \(version)",
                                                     as: Date.self, logger).first
        else {
            return HubError(.conflict, .releaseNotVouched,
                            "no signed release manifest vouches for \(ReleaseRepository.package) \(version): the release manager signs one (clup-release sign) and it is added with clup-hub release vouch")
        }
        guard now < expires else {
            return HubError(.conflict, .releaseManifestExpired,
                            "the release manifest of \(version) expired at \(expires.formatted(.iso8601)): the release manager signs a fresh one")
        }
        return nil
    }

    /// The signed manifest of the version `device` last said it runs, if the hub holds one.
    static func envelopeOfRunningVersion(device: DeviceID, _ connection: PostgresConnection, _ logger: Logger) async throws -> String? {
        try await connection.all("""
            SELECT m.envelope FROM release_manifest m JOIN totem t ON t.software_version = m.version WHERE t.device_id = \(device)
            """, as: String.self, logger).first
    }

    /// The signed manifest of `version` as it was signed, for the totems it goes to.
    static func envelope(of version: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> String? {
        try await connection.all("SELECT envelope FROM release_manifest WHERE version = \(version)", as: String.self, logger).first
    }
}
