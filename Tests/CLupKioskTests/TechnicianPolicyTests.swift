import CLupCore
@testable import CLupKiosk
import CLupProtocol
import Foundation
import XCTest

/// What decides who may do what on the control socket, and what is written down of it.
final class TechnicianPolicyTests: XCTestCase {
    func test_whatChangesTheTotemNeedsATechnicianAndWhatReadsDoesNot() {
        XCTAssertTrue(Control.CallNext.needsTechnician)
        XCTAssertTrue(Control.VoidTicket.needsTechnician)
        XCTAssertTrue(Control.SelfTest.needsTechnician)
        XCTAssertTrue(Control.CalibrationEnd.needsTechnician)
        XCTAssertFalse(Control.Status.needsTechnician)
        XCTAssertFalse(Control.Audit.needsTechnician)
        XCTAssertFalse(Control.SimPress.needsTechnician, "a simulated customer, not a technician")
    }

    /// Routine reads are not audited (a monitoring loop would flood the event log); what
    /// changes the totem, drives it, or takes its data away on purpose is.
    func test_routineReadsAreLeftOutOfTheTrailAndChangesAndDiagnosticsAreNot() {
        let reads: [any ControlCommand.Type] = [Control.Status.self, Control.Metrics.self, Control.Queue.self, Control.Tickets.self,
                                                Control.Screen.self, Control.Ledger.self, Control.Printer.self, Control.Devices.self,
                                                Control.Hello.self, Control.Sync.self, Control.Audit.self, Control.LogSource.self,
                                                Control.LogRead.self]
        for read in reads { XCTAssertEqual(read.trail, .routineRead, read.wireName) }
        let changes: [any ControlCommand.Type] = [Control.VoidTicket.self, Control.Skip.self, Control.CallNext.self,
                                                  Control.Diagnostics.self, Control.CorrectLedger.self, Control.SyncNow.self,
                                                  Control.SimPress.self]
        for change in changes { XCTAssertEqual(change.trail, .kept, change.wireName) }
        XCTAssertEqual(Control.Login.trail, .keptWhereDecided)
        // Nothing that changes the totem is a routine read, and each command has a name of its own.
        for command in Control.all where command.needsTechnician { XCTAssertEqual(command.trail, .kept, command.wireName) }
        XCTAssertEqual(Set(Control.all.map { $0.wireName }).count, Control.all.count)
    }

    func test_theSummaryKeptAndLoggedNeverHoldsASecretOrAHash() throws {
        let secret = "correct-horse-2026"
        let hash = PinHash(kdf: PinHash.defaultKDF, salt: Data(repeating: 7, count: 16), hash: Data(repeating: 9, count: 32))
        let summaries = [Control.Login(name: "tess", secret: secret).summary,
                         Control.PutTechnician(name: "tess", secret: hash, replacing: false).summary,
                         Control.PutEmployee(staffNumber: "104", pin: hash, replacing: true).summary]
        for summary in summaries {
            XCTAssertFalse(summary.contains(secret))
            XCTAssertFalse(summary.contains(hash.hash.base64EncodedString()))
            XCTAssertFalse(summary.contains(hash.salt.base64EncodedString()))
        }
        XCTAssertEqual(Control.Login(name: "tess", secret: secret).summary, "login tess")
        XCTAssertEqual(Control.VoidTicket(number: "A-017", reason: "printed \"twice\"\n").summary,
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
