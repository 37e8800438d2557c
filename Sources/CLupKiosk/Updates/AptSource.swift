import CLupCore
import Foundation

/// The apt source of the chain's repository on a totem: what makes apt take the totem's
/// software from its hub, and only when the chain's release key signed it.
///
/// Written by root (`clupd apt-source`) from the enrolment, into apt's own directory
/// (`/etc/apt`): the release key as `keyrings/clup-chain.gpg`, named by the source's
/// `Signed-By` (apt then trusts no other key for it, and this key for nothing else); the
/// hub's CA as `keyrings/clup-hub-ca.pem`, which apt uses for the hub's HTTPS only; the
/// deb822 source `sources.list.d/clup.sources`; and `apt.conf.d/60clup-hub`, pointing apt at
/// that CA for the hub's host; and `preferences.d/clup-hub.pref`, which pins everything from
/// the hub's host to -1: apt installs nothing from there by itself (no dependency, no
/// upgrade), only the update helper takes clup-totem from it, once a release manifest signed
/// by the chain's release key vouches for the file. The key and the CA are kept once
/// written: the enrolment file is clupd's, so a changed key there is refused, never taken.
public struct AptSource: Sendable, Equatable {
    public let repository: URL
    public let releaseKey: Data
    public let hubCA: Data

    static let maximumKeyBytes = 16_384

    /// The source of an enrolment and the CA beside it in `stateDirectory`.
    public init(enrolment: TotemEnrolment, stateDirectory: String) throws(CodedError) {
        guard let key = enrolment.releaseKey, let repository = enrolment.repository else {
            throw CodedError(.noReleaseKey, "\(stateDirectory)/enrolment.json holds no release key")
        }
        guard let ca = FileManager.default.contents(atPath: TotemEnrolment.caPath(in: stateDirectory)), ca.count < 64 * 1024,
              String(decoding: ca, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----")
        else { throw CodedError(.hubCertificateUnusable, "cannot read the hub's CA in \(stateDirectory)") }
        try self.init(repository: repository, releaseKey: key, hubCA: ca)
    }

    /// Checks what the hub sent: an https address without credentials, query or anything
    /// that could break a line of apt's files; a key that is binary OpenPGP of a sane size.
    public init(repository: String, releaseKey: String, hubCA: Data) throws(CodedError) {
        guard let key = Data(base64Encoded: releaseKey), (32...Self.maximumKeyBytes).contains(key.count),
              key[key.startIndex] & 0x80 != 0
        else { throw CodedError(.noReleaseKey, "the release key from the hub is not a binary OpenPGP key") }
        guard repository.utf8.count <= 256, repository.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "\"" && $0 != ";" }),
              let url = URL(string: repository), url.scheme == "https", let host = url.host, !host.isEmpty,
              url.user == nil, url.password == nil, url.query == nil, url.fragment == nil
        else { throw CodedError(.noReleaseKey, "the repository address \"\(repository.prefix(80))\" is not an https address") }
        self.repository = url
        self.releaseKey = key
        self.hubCA = hubCA
    }

    public static func keyPath(in apt: String) -> String { apt + "/keyrings/clup-chain.gpg" }
    public static func caPath(in apt: String) -> String { apt + "/keyrings/clup-hub-ca.pem" }
    public static func sourcePath(in apt: String) -> String { apt + "/sources.list.d/clup.sources" }
    public static func configPath(in apt: String) -> String { apt + "/apt.conf.d/60clup-hub" }
    public static func preferencesPath(in apt: String) -> String { apt + "/preferences.d/clup-hub.pref" }

    /// apt's pin: nothing from the hub's host is installed by apt on its own.
    public var preferences: String {
        """
        # Nothing from the chain's hub is installed by apt on its own (written by clupd
        # apt-source): the update helper fetches clup-totem from there itself, and installs it
        # only when a release manifest signed by the chain's release key lists the file.
        Package: *
        Pin: origin "\(repository.host ?? "")"
        Pin-Priority: -1

        """
    }

    /// Writes the pin alone (a totem whose source was written before pins); says whether it did.
    @discardableResult
    public func writePreferencesIfMissing(apt: String) throws(CodedError) -> Bool {
        guard !FileManager.default.fileExists(atPath: Self.preferencesPath(in: apt)) else { return false }
        try DurableFile.write(Data(preferences.utf8), to: Self.preferencesPath(in: apt), mode: 0o644)
        return true
    }

    /// The deb822 source, its key named by an absolute path.
    public func source(apt: String) -> String {
        """
        # The chain's totem software, from its hub (written by clupd apt-source). apt takes
        # nothing from here that the chain's release key did not sign.
        Types: deb
        URIs: \(repository.absoluteString)
        Suites: stable
        Components: main
        Signed-By: \(Self.keyPath(in: apt))

        """
    }

    /// apt's setting that trusts the hub's CA for the hub's host, and for nothing else.
    public func config(apt: String) -> String {
        """
        // The hub's own CA, for its HTTPS only (written by clupd apt-source).
        Acquire::https::\(repository.host ?? "")::CAInfo "\(Self.caPath(in: apt))";

        """
    }

    /// Writes the five files into `apt` (`/etc/apt`) and says which. A key or CA already
    /// there and different is refused, and nothing is written.
    @discardableResult
    public func write(apt: String) throws(CodedError) -> [String] {
        for (path, wanted) in [(Self.keyPath(in: apt), releaseKey), (Self.caPath(in: apt), hubCA)] {
            if let present = FileManager.default.contents(atPath: path), present != wanted {
                throw CodedError(.releaseKeyChanged, "\(path) holds another key than the enrolment's")
            }
        }
        let files: [(String, Data)] = [
            (Self.keyPath(in: apt), releaseKey), (Self.caPath(in: apt), hubCA),
            (Self.configPath(in: apt), Data(config(apt: apt).utf8)),
            (Self.preferencesPath(in: apt), Data(preferences.utf8)),
            // The source last: apt never reads it before its key and CA are in place.
            (Self.sourcePath(in: apt), Data(source(apt: apt).utf8)),
        ]
        // Readable by all: apt drops to its own user to fetch.
        for (path, data) in files { try DurableFile.write(data, to: path, mode: 0o644) }
        return files.map(\.0)
    }
}
