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
/// that CA for the hub's host. The key and the CA are kept once written: the enrolment file
/// is clupd's, so a changed key there is refused, never taken.
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

    /// Writes the four files into `apt` (`/etc/apt`) and says which. A key or CA already
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
            // The source last: apt never reads it before its key and CA are in place.
            (Self.sourcePath(in: apt), Data(source(apt: apt).utf8)),
        ]
        // Readable by all: apt drops to its own user to fetch.
        for (path, data) in files { try DurableFile.write(data, to: path, mode: 0o644) }
        return files.map(\.0)
    }
}
