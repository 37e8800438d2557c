import CLupCore
@testable import CLupKiosk
import CLupProtocol
import Foundation
import XCTest

/// What decides who may do what on the control socket, and what is written down of it.
final class TechnicianPolicyTests: XCTestCase {
    func test_whatChangesTheTotemNeedsATechnicianAndWhatReadsDoesNot() {
        XCTAssertTrue(ControlRequest.callNext.needsTechnician)
        XCTAssertTrue(ControlRequest.void(number: "A-001", reason: "dup").needsTechnician)
        XCTAssertTrue(ControlRequest.selfTest(.release, timeoutSeconds: 5, force: false).needsTechnician)
        XCTAssertTrue(ControlRequest.calibrationEnd(matrix: nil).needsTechnician)
        XCTAssertFalse(ControlRequest.status.needsTechnician)
        XCTAssertFalse(ControlRequest.audit(since: nil).needsTechnician)
        XCTAssertFalse(ControlRequest.simPress(name: "get-ticket").needsTechnician, "a simulated customer, not a technician")
    }

    /// Routine reads are not audited (a monitoring loop would flood the event log); what
    /// changes the totem, drives it, or takes its data away on purpose is.
    func test_routineReadsAreLeftOutOfTheTrailAndChangesAndDiagnosticsAreNot() {
        for read: ControlRequest in [.status, .metrics, .queue, .tickets, .screen, .ledger, .printer, .devices, .hello, .sync,
                                     .audit(since: nil), .logSource, .logRead(offset: 0, maxBytes: 10)] {
            XCTAssertTrue(read.isRoutineRead, read.summary)
        }
        for change: ControlRequest in [.void(number: "A-001", reason: "dup"), .skip(number: "A-001"), .callNext, .diagnostics,
                                       .correctLedger(delta: 1, reason: "x"), .syncNow, .simPress(name: "get-ticket")] {
            XCTAssertFalse(change.isRoutineRead, change.summary)
        }
    }

    func test_theSummaryKeptAndLoggedNeverHoldsASecretOrAHash() throws {
        let secret = "correct-horse-2026"
        let hash = PinHash(kdf: PinHash.defaultKDF, salt: Data(repeating: 7, count: 16), hash: Data(repeating: 9, count: 32))
        let requests: [ControlRequest] = [.login(name: "tess", secret: secret),
                                          .putTechnician(name: "tess", secret: hash, replacing: false),
                                          .putEmployee(staffNumber: "104", pin: hash, replacing: true)]
        for request in requests {
            XCTAssertFalse(request.summary.contains(secret))
            XCTAssertFalse(request.summary.contains(hash.hash.base64EncodedString()))
            XCTAssertFalse(request.summary.contains(hash.salt.base64EncodedString()))
        }
        XCTAssertEqual(ControlRequest.login(name: "tess", secret: secret).summary, "login tess")
        XCTAssertEqual(ControlRequest.void(number: "A-017", reason: "printed \"twice\"\n").summary,
                       #"void A-017 --reason "printed ?twice??""#, "quotes and control characters cannot forge a line")
    }

    func test_aLockIsRebuiltFromTheTrailAndTriesWhileLockedCountForNothing() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var lock = FailureLock(lockSeconds: 300)
        for second in 0..<5 { lock.replay(.loginRefused, at: start.addingTimeInterval(Double(second)), refused: .loginRefused, locked: .nameLocked) }
        lock.replay(.nameLocked, at: start.addingTimeInterval(4), refused: .loginRefused, locked: .nameLocked)
        XCTAssertTrue(lock.isLocked(at: start.addingTimeInterval(100)))
        lock.replay(.loginRefused, at: start.addingTimeInterval(100), refused: .loginRefused, locked: .nameLocked)
        XCTAssertEqual(lock.failures, 0, "refused unheard while locked")
        XCTAssertFalse(lock.isLocked(at: start.addingTimeInterval(305)))
        lock.replay(.loginRefused, at: start.addingTimeInterval(400), refused: .loginRefused, locked: .nameLocked)
        XCTAssertEqual(lock.failures, 1)
        lock.replay(.login, at: start.addingTimeInterval(401), refused: .loginRefused, locked: .nameLocked)
        XCTAssertEqual(lock.failures, 0)
    }

    func test_diagnosticsLeaveOutSecretsTokensPasswordsAndKeys() {
        let toml = """
            [hub]
            url = "https://hub.example"
            api_token = "abc"
            # a comment about the key = "kept"
            [store]
            name = "Market"
            """
        XCTAssertEqual(Daemon.redacted(toml), """
            [hub]
            url = "https://hub.example"
            api_token = "<removed>"
            # a comment about the key = "kept"
            [store]
            name = "Market"
            """)
    }
}
