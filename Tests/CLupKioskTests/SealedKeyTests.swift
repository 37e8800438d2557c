@testable import CLupKiosk
import CLupCore
import Crypto
import Foundation
import XCTest

/// The totem's keys sealed with the real systemd-creds. The "machine" is the host secret
/// `SYSTEMD_CREDENTIAL_SECRET` names (systemd-creds' own switch; this machine has no TPM,
/// so `--with-key=auto` seals to the host key alone): a key sealed on one does not open on
/// another. Sealing is root's; the tests run as root (CI), and as another user check that
/// it is refused.
final class SealedKeyTests: XCTestCase {
    var folder = ""

    override func setUp() {
        folder = NSTemporaryDirectory() + "sealed-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        setenv("SYSTEMD_CREDENTIAL_SECRET", folder + "/first-machine.secret", 1)
    }

    override func tearDown() {
        unsetenv("SYSTEMD_CREDENTIAL_SECRET")
        try? FileManager.default.removeItem(atPath: folder)
    }

    func test_aPlainKeyIsSealedThenErasedAndOpensOnlyOnItsMachine() throws {
        let state = folder + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let ticket = try TotemKey.loadOrCreate(at: state + "/totem.key")
        guard getuid() == 0 else {
            XCTAssertThrowsError(try SealedKey.sealAll(in: state)) { XCTAssertEqual(($0 as? CodedError)?.code, ErrorCode.keySealingFailed.rawValue) }
            return
        }
        let said = try SealedKey.sealAll(in: state)
        XCTAssertEqual(said, ["totem.key: sealed in \(state)/totem.key.cred, the file \(state)/totem.key overwritten and removed",
                              "device.key: none (the totem is not enrolled)"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + "/totem.key"), "the plain key is gone")
        let sealed = try XCTUnwrap(FileManager.default.contents(atPath: state + "/totem.key.cred"))
        XCTAssertNil(sealed.range(of: ticket.rawRepresentation), "the credential holds the key in clear")
        XCTAssertEqual(try SealedKey.open("totem.key", in: state).rawRepresentation, ticket.rawRepresentation)
        // Sealing again changes nothing; the key opens.
        XCTAssertEqual(try SealedKey.sealAll(in: state).first, "totem.key: sealed in \(state)/totem.key.cred, opens on this machine")
        // clupd started by hand on that folder, without systemd's credentials, refuses
        // rather than make a plain key beside the sealed one.
        XCTAssertThrowsError(try TotemKey.load(SealedKey.ticketKey, in: state, create: true)) {
            XCTAssertEqual(($0 as? TotemKey.KeyError)?.coded.code, ErrorCode.keyNotSealed.rawValue)
        }

        // Another machine: the key does not open, and the error names it.
        setenv("SYSTEMD_CREDENTIAL_SECRET", folder + "/second-machine.secret", 1)
        _ = try SealedKey.sealAll(in: folder + "/second")
        XCTAssertThrowsError(try SealedKey.checkAll(in: state)) { error in
            XCTAssertEqual((error as? CodedError)?.code, ErrorCode.keySealedElsewhere.rawValue)
            XCTAssertTrue((error as? CodedError)?.message.hasPrefix("the sealed key totem.key (\(state)/totem.key.cred) cannot be opened") == true,
                          "\(error)")
        }
    }

    func test_aPlainKeyAndASealedOneThatDifferAreRefusedAndUnsealingWritesTheKeyBack() throws {
        guard getuid() == 0 else { return XCTAssertThrowsError(try SealedKey.unsealAll(in: folder)) }
        let state = folder + "/state"
        _ = try SealedKey.sealAll(in: state)
        let ticket = try SealedKey.open("totem.key", in: state)
        // A downgrade to a release from before sealed keys gets the same key as a file.
        XCTAssertEqual(try SealedKey.unsealAll(in: state), ["totem.key: written to \(state)/totem.key for a release from before sealed keys"])
        XCTAssertEqual(try TotemKey.loadOrCreate(at: state + "/totem.key").rawRepresentation, ticket.rawRepresentation)
        // The next upgrade seals again: the same key, so the file is erased.
        XCTAssertTrue(try SealedKey.sealAll(in: state)[0].hasSuffix("overwritten and removed"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + "/totem.key"))
        // A plain key that is not the sealed one: neither is thrown away.
        let other = Curve25519.Signing.PrivateKey().rawRepresentation
        XCTAssertTrue(FileManager.default.createFile(atPath: state + "/totem.key", contents: other, attributes: [.posixPermissions: 0o600]))
        XCTAssertThrowsError(try SealedKey.sealAll(in: state)) { XCTAssertEqual(($0 as? CodedError)?.code, ErrorCode.keySealingFailed.rawValue) }
        XCTAssertEqual(FileManager.default.contents(atPath: state + "/totem.key"), other)
        XCTAssertEqual(try SealedKey.open("totem.key", in: state).rawRepresentation, ticket.rawRepresentation)
    }

    /// The state folder is clupd's user's: what root reads there is never through a link,
    /// and an enrolled totem that lost a key gets no new one in silence.
    func test_aLinkedKeyFileIsRefusedAndAnEnrolledTotemGetsNoNewKey() throws {
        guard getuid() == 0 else { return XCTAssertThrowsError(try SealedKey.sealAll(in: folder)) }
        let state = folder + "/state", elsewhere = folder + "/root-only.bin"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: elsewhere, contents: Data(repeating: 7, count: 32),
                                                    attributes: [.posixPermissions: 0o600]))
        try FileManager.default.createSymbolicLink(atPath: state + "/totem.key", withDestinationPath: elsewhere)
        XCTAssertThrowsError(try SealedKey.sealAll(in: state)) { XCTAssertEqual(($0 as? CodedError)?.code, ErrorCode.keyUnreadable.rawValue) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + "/totem.key.cred"), "a linked file was sealed")
        XCTAssertEqual(FileManager.default.contents(atPath: elsewhere), Data(repeating: 7, count: 32), "the link's target was touched")

        try FileManager.default.removeItem(atPath: state + "/totem.key")
        XCTAssertTrue(FileManager.default.createFile(atPath: state + "/enrolment.json", contents: Data("{}".utf8)))
        XCTAssertThrowsError(try SealedKey.sealAll(in: state)) { error in
            XCTAssertEqual((error as? CodedError)?.code, ErrorCode.keyNotSealed.rawValue)
            XCTAssertTrue("\(error)".contains("clupd enrol --again"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + "/totem.key.cred"), "a new ticket key on an enrolled totem")
    }

    /// clup-keys seals as root in the folder clupd's user owns before clupd first starts: the
    /// lock it takes there must be that user's, or clupd, as that user, could not open it.
    func test_theLockRootTakesBeforeClupdsFirstStartIsTheFoldersOwners() throws {
        guard getuid() == 0 else { return XCTAssertThrowsError(try SealedKey.sealAll(in: folder)) }
        let state = folder + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        XCTAssertEqual(chown(state, 65534, 65534), 0)
        _ = try SealedKey.sealAll(in: state)
        let lock = try FileManager.default.attributesOfItem(atPath: state + "/clupd.lock")
        XCTAssertEqual(lock[.ownerAccountID] as? Int, 65534, "clupd.lock is not the folder owner's")
        let sealed = try FileManager.default.attributesOfItem(atPath: state + "/totem.key.cred")
        XCTAssertEqual(sealed[.ownerAccountID] as? Int, 0, "the sealed key is not root's")
    }
}
