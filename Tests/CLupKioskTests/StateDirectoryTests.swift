@testable import CLupKiosk
import Foundation
import XCTest

/// The state folder and the spool beside or away from it.
final class StateDirectoryTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("clup-state-\(UUID())")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func test_aSpoolElsewhereTakesTheOldOneBesideTheDatabaseAway() throws {
        let state = folder.appendingPathComponent("state").path, run = folder.appendingPathComponent("run/spool").path
        try FileManager.default.createDirectory(atPath: state + "/spool", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: state + "/spool/A-007-2026-11-29.pdf", contents: Data("%PDF".utf8))
        let directory = try StateDirectory(path: state, spool: run)
        XCTAssertEqual(directory.spoolPath, run)
        XCTAssertTrue(FileManager.default.fileExists(atPath: run))
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + "/spool"), "an earlier release's spool goes")
    }

    func test_theSpoolGivenAsTheOldOneByAnotherSpellingIsKept() throws {
        // One state folder each: a StateDirectory holds its folder's lock while the process lives.
        for (index, spelling) in ["/spool/", "/./spool", "/spool/tickets"].enumerated() {
            let state = folder.appendingPathComponent("state-\(index)").path
            _ = try StateDirectory(path: state, spool: state + spelling)
            XCTAssertTrue(FileManager.default.fileExists(atPath: state + spelling), "\(spelling): the spool given, not removed")
        }
    }
}
