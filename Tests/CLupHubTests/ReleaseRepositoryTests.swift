@testable import CLupHub
import CLupCore
import Foundation
import XCTest

/// What the hub serves from its repository and what a rollout may name as a version.
final class ReleaseRepositoryTests: XCTestCase {
    func test_onlyPlainNamesBelowRepoAreFilesOfTheRepository() {
        XCTAssertEqual(RepositoryFiles.relativePath("/repo/dists/stable/InRelease"), "dists/stable/InRelease")
        XCTAssertEqual(RepositoryFiles.relativePath("/repo/pool/main/c/clup-totem/clup-totem_0.13.0+b1~rc1_amd64.deb"),
                       "pool/main/c/clup-totem/clup-totem_0.13.0+b1~rc1_amd64.deb")
        XCTAssertEqual(RepositoryFiles.relativePath("/repo/pool/main/c/clup-totem/clup-totem_0.12.0%2bupdate1_amd64.deb"),
                       "pool/main/c/clup-totem/clup-totem_0.12.0+update1_amd64.deb", "as apt asks for it")
        for path in ["/repo/../hub/ca.key", "/repo/dists/../../ca.key", "/repo/", "/repo", "/repository/x", "/repo//etc/passwd",
                     "/repo/./dists", "/repo/dists/stable/In Release", "/repo/%2e%2e/ca.key", "/repo/dists\u{0}/x",
                     "/repo/" + String(repeating: "a/", count: 300)] {
            XCTAssertNil(RepositoryFiles.relativePath(path), path)
        }
    }

    func test_aLinkOutOfThePublishedDirectoryIsNotFollowed() throws {
        let root = NSTemporaryDirectory() + "repo-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/public/dists", withIntermediateDirectories: true)
        try Data("index".utf8).write(to: URL(fileURLWithPath: root + "/public/dists/InRelease"))
        try Data("secret".utf8).write(to: URL(fileURLWithPath: root + "/ca.key"))
        try FileManager.default.createSymbolicLink(atPath: root + "/public/dists/key", withDestinationPath: root + "/ca.key")
        XCTAssertEqual(RepositoryFiles.regularFile("dists/InRelease", in: root + "/public")?.size, 5)
        XCTAssertNil(RepositoryFiles.regularFile("dists/key", in: root + "/public"), "a link out of the repository")
        XCTAssertNil(RepositoryFiles.regularFile("dists", in: root + "/public"), "a directory")
        XCTAssertNil(RepositoryFiles.regularFile("dists/missing", in: root + "/public"))
    }

    func test_aVersionIsADebianVersionWithoutAnEpoch() {
        for good in ["0.13.0", "1.0~rc1", "0.12.0+b2", "2-1"] { XCTAssertTrue(ReleaseRepository.isVersion(good), good) }
        for bad in ["", "v1.0", "1:0.13.0", "0.13.0\n", "0.13 0", "1.0;rm", String(repeating: "1", count: 65)] {
            XCTAssertFalse(ReleaseRepository.isVersion(bad), bad)
        }
        XCTAssertTrue(ReleaseRepository.versionOrder("0.99.0", "0.100.0"), "as dpkg orders them, not as text")
        XCTAssertTrue(ReleaseRepository.versionOrder("1.0~rc1", "1.0"))
        XCTAssertFalse(ReleaseRepository.versionOrder("1.0", "1.0"))
    }

    func test_theVersionsOfferedAreThoseThePublishedListsHoldNewestFirst() throws {
        let state = NSTemporaryDirectory() + "releases-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let repository = ReleaseRepository(stateDirectory: state)
        XCTAssertEqual(repository.publishedVersions(), [], "nothing published yet")
        let folder = repository.publishedDirectory + "/dists/stable/main/binary-amd64"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("""
            Package: clup-totem
            Version: 0.99.0
            Architecture: amd64
            SHA256: 0d3b5a6f0e0a3f3f5f2a6a1f7b1e0c4a2b9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f

            Package: clup-totem
            Version: 0.100.0
            Architecture: amd64
            SHA256: 1d3b5a6f0e0a3f3f5f2a6a1f7b1e0c4a2b9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f

            Package: clup-totem
            Version: 0.101.0
            Architecture: amd64

            Package: clup-hub
            Version: 9.0.0

            Package: clup-totem
            Version: 1.0;rm -rf /

            """.utf8).write(to: URL(fileURLWithPath: folder + "/Packages"))
        XCTAssertEqual(repository.publishedVersions(), ["0.100.0", "0.99.0"], "numbers compared as numbers; other packages, a file without its SHA-256 and nonsense left out")
    }
}
