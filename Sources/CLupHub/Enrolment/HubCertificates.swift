import HTTPTypes
import CLupCore
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import NIOSSL
import SwiftASN1
import X509

/// The hub's own CA and its server certificate, in the hub's state directory.
///
/// `clup-hub init` makes a CA (P-256, ten years) and a server certificate it signs for the
/// names totems use (`[hub] names`). A totem is given `ca.pem` with its enrolment code and
/// trusts nothing else for the hub, so a network that can redirect it still cannot talk to it.
public struct HubCertificates: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    public var caPath: String { directory + "/ca.pem" }
    var caKeyPath: String { directory + "/ca.key" }
    public var certificatePath: String { directory + "/server.pem" }
    var keyPath: String { directory + "/server.key" }

    public var exist: Bool { FileManager.default.fileExists(atPath: certificatePath) }

    /// Makes the CA and the server certificate for `names` (DNS names or IP addresses).
    /// Refuses to replace existing files: totems trust the CA they were given.
    public func create(names: [String], now: Date = Date()) throws(HubError) {
        guard !FileManager.default.fileExists(atPath: caPath) else {
            throw HubError(.internalServerError, .hubKeysUnusable, "\(caPath) exists already; totems trust it, so it is kept")
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let caKey = P256.Signing.PrivateKey()
            let caName = try DistinguishedName { CommonName("CLup hub CA") }
            let ca = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(caKey.publicKey),
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
                issuer: caName, subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                },
                issuerPrivateKey: .init(caKey))
            let serverKey = P256.Signing.PrivateKey()
            let alternativeNames: [GeneralName] = names.map { name in
                if let address = Self.ipv4(name) { return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(address))) }
                return .dnsName(name)
            }
            let server = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(serverKey.publicKey),
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(2 * 365 * 86_400),
                issuer: caName, subject: try DistinguishedName { CommonName(names.first ?? "clup-hub") },
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.serverAuth])
                    SubjectAlternativeNames(alternativeNames)
                },
                issuerPrivateKey: .init(caKey))
            try Self.write(caKey.pemRepresentation, to: caKeyPath, mode: 0o600)
            try Self.write(serverKey.pemRepresentation, to: keyPath, mode: 0o600)
            try Self.write(try server.serializeAsPEM().pemString + "\n", to: certificatePath, mode: 0o644)
            try Self.write(try ca.serializeAsPEM().pemString + "\n", to: caPath, mode: 0o644)
        } catch let error as HubError {
            throw error
        } catch {
            throw HubError(.internalServerError, .hubKeysUnusable, "cannot make the hub's certificates in \(directory): \(error)")
        }
    }

    /// The server's TLS configuration: its certificate and the CA's, and its key.
    public func serverTLS() throws(HubError) -> TLSConfiguration {
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(certificatePath) + NIOSSLCertificate.fromPEMFile(caPath)
            let key = try NIOSSLPrivateKey(file: HubSecret.serverKey.path(else: keyPath) ?? keyPath, format: .pem)
            var tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            tls.minimumTLSVersion = .tlsv12
            return tls
        } catch {
            throw HubError(.internalServerError, .hubKeysUnusable,
                           "cannot use the hub's certificate (\(certificatePath), \(keyPath)): \(error); run `clup-hub init` first")
        }
    }

    private static func ipv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let bytes = parts.compactMap { UInt8($0) }
        return bytes.count == 4 ? bytes : nil
    }

    /// Writes a new file (never one that exists) with `mode`, and fsyncs it.
    static func write(_ text: String, to path: String, mode: mode_t) throws(HubError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw HubError(.internalServerError, .hubKeysUnusable, "cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard Glibc.write(fd, bytes, bytes.count) == bytes.count, fsync(fd) == 0 else {
            throw HubError(.internalServerError, .hubKeysUnusable, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
