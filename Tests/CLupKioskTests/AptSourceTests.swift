@testable import CLupKiosk
import CLupCore
import Foundation
import XCTest

/// The apt source a totem writes from its enrolment: only an https address and a binary
/// OpenPGP key get through, nothing the hub sent can start a new line in apt's files, and
/// a key once trusted is never replaced.
final class AptSourceTests: XCTestCase {
    let key = (Data([0x98, 0x33]) + Data(repeating: 7, count: 60)).base64EncodedString()
    let ca = Data("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n".utf8)

    func test_theSourceNamesTheKeyAndTheCAIsForTheHubsHostOnly() throws {
        let source = try AptSource(repository: "https://hub.example:8443/repo", releaseKey: key, hubCA: ca)
        XCTAssertEqual(source.source(apt: "/etc/apt"), """
            # The chain's totem software, from its hub (written by clupd apt-source). apt takes
            # nothing from here that the chain's release key did not sign.
            Types: deb
            URIs: https://hub.example:8443/repo
            Suites: stable
            Components: main
            Signed-By: /etc/apt/keyrings/clup-chain.gpg

            """)
        XCTAssertTrue(source.config(apt: "/etc/apt").contains(#"Acquire::https::hub.example::CAInfo "/etc/apt/keyrings/clup-hub-ca.pem";"#))
    }

    func test_whatTheHubSentIsRefusedUnlessItIsAnHttpsAddressAndAKey() {
        for address in ["http://hub.example/repo", "https://hub.example/repo\nSigned-By: /tmp/evil.gpg", "https://user:pw@hub.example/repo",
                        "https://hub.example/repo?x=1", "https:///repo", "ftp://hub.example/repo", "https://hub.example/re po",
                        "https://hub.example/\"repo", String(repeating: "a", count: 300)] {
            XCTAssertThrowsError(try AptSource(repository: address, releaseKey: key, hubCA: ca), address) { error in
                XCTAssertEqual((error as? CodedError)?.errorCode, .noReleaseKey)
            }
        }
        for badKey in ["", "not base64!", Data(repeating: 0x41, count: 64).base64EncodedString(),
                       Data([0x99, 1]).base64EncodedString(), Data(repeating: 0x99, count: 20_000).base64EncodedString()] {
            XCTAssertThrowsError(try AptSource(repository: "https://hub.example/repo", releaseKey: badKey, hubCA: ca), badKey.prefix(20).description)
        }
    }

    func test_aKeyAlreadyTrustedIsNeverReplaced() throws {
        let apt = NSTemporaryDirectory() + "apt-source-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: apt) }
        let first = try AptSource(repository: "https://hub.example/repo", releaseKey: key, hubCA: ca)
        let written = try first.write(apt: apt)
        XCTAssertEqual(written.last, AptSource.sourcePath(in: apt), "the source is written last")
        XCTAssertEqual(FileManager.default.contents(atPath: AptSource.keyPath(in: apt)), Data(base64Encoded: key))
        XCTAssertNoThrow(try first.write(apt: apt), "the same key again")
        let other = (Data([0x98, 0x33]) + Data(repeating: 9, count: 60)).base64EncodedString()
        let second = try AptSource(repository: "https://hub.example/repo", releaseKey: other, hubCA: ca)
        XCTAssertThrowsError(try second.write(apt: apt)) { error in
            XCTAssertEqual((error as? CodedError)?.errorCode, .releaseKeyChanged)
        }
        XCTAssertEqual(FileManager.default.contents(atPath: AptSource.keyPath(in: apt)), Data(base64Encoded: key), "the first key stays")
        let mode = (try FileManager.default.attributesOfItem(atPath: AptSource.keyPath(in: apt))[.posixPermissions] as? Int) ?? 0
        XCTAssertEqual(mode, 0o644, "apt reads it as its own user")
    }
}
