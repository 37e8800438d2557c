@testable import CLupKiosk
import CLupProtocol
import Foundation
import XCTest

/// The daily integrity check against a real dpkg: each test makes a dpkg database of its own
/// under a folder (`--root`), holding clup-totem as if installed there, and changes its files.
final class IntegrityCheckTests: XCTestCase {
    var root = ""
    var state = ""
    var work = ""

    override func setUpWithError() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("clup-integrity-\(UUID())").path
        (root, state, work) = (base + "/root", base + "/state", base + "/work")
        for folder in [root + "/usr/bin", root + "/etc/clup", root + "/var/lib/dpkg/info", root + "/var/lib/dpkg/updates", state, work] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try Data("clupd 0.12.0\n".utf8).write(to: URL(fileURLWithPath: root + "/usr/bin/clupd"))
        // As the package installs it: clupctl a link to clupd.
        try FileManager.default.createSymbolicLink(atPath: root + "/usr/bin/clupctl", withDestinationPath: "clupd")
        try Data("[store]\n".utf8).write(to: URL(fileURLWithPath: root + "/etc/clup/clupd.toml"))
        // What dpkg keeps of an installed package: its status, its files, their MD5 sums.
        try """
            Package: clup-totem
            Status: install ok installed
            Architecture: amd64
            Version: 0.12.0
            Maintainer: CLup <clup@example.org>
            Description: the totem
            Conffiles:
             /etc/clup/clupd.toml \(md5(root + "/etc/clup/clupd.toml"))

            """.write(toFile: root + "/var/lib/dpkg/status", atomically: true, encoding: .utf8)
        try "/usr\n/usr/bin\n/usr/bin/clupd\n/usr/bin/clupctl\n/etc/clup\n/etc/clup/clupd.toml\n"
            .write(toFile: root + "/var/lib/dpkg/info/clup-totem.list", atomically: true, encoding: .utf8)
        try "\(md5(root + "/usr/bin/clupd"))  usr/bin/clupd\n"
            .write(toFile: root + "/var/lib/dpkg/info/clup-totem.md5sums", atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: root).deletingLastPathComponent().path)
    }

    func md5(_ path: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/md5sum")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try! process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: output, as: UTF8.self).prefix(32))
    }

    var check: IntegrityCheck { IntegrityCheck.dpkg(root: root, stateDirectory: state, workDirectory: work) }

    func test_filesAsInstalledAreOkAndAConfigurationFileEditedIsNotCounted() throws {
        try Data("[store]\nid = 7\n".utf8).write(to: URL(fileURLWithPath: root + "/etc/clup/clupd.toml"))
        let report = check.run(now: Date(timeIntervalSince1970: 1_800_000_000))
        XCTAssertEqual(report.summary, "ok: 3 files of clup-totem 0.12.0 as installed")
        XCTAssertTrue(report.isClean)
        XCTAssertEqual(IntegrityCheck.lastReport(in: state), report, "the report is left for clupd")
    }

    func test_aBinaryChangedAndOneRemovedAreNamed() throws {
        try Data("something else\n".utf8).write(to: URL(fileURLWithPath: root + "/usr/bin/clupd"))
        try FileManager.default.removeItem(atPath: root + "/usr/bin/clupctl")
        let report = check.run(now: Date())
        XCTAssertEqual(report.changed.sorted(), ["/usr/bin/clupctl missing", "/usr/bin/clupd changed"])
        XCTAssertEqual(report.summary.prefix(56), "2 files of clup-totem 0.12.0 changed outside an update: ")
        XCTAssertFalse(report.isClean)
    }

    /// dpkg keeps no sum for a link and `dpkg --verify` passes over it: the check looks at
    /// clupctl's link itself.
    func test_clupctlsLinkReplacedOrPointedElsewhereIsNamed() throws {
        let link = root + "/usr/bin/clupctl"
        try FileManager.default.removeItem(atPath: link)
        try Data("#!/bin/sh\n".utf8).write(to: URL(fileURLWithPath: link))
        XCTAssertEqual(check.run(now: Date()).changed, ["/usr/bin/clupctl changed"], "a file in the link's place")
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/bin/sh")
        XCTAssertEqual(check.run(now: Date()).changed, ["/usr/bin/clupctl changed"], "a link elsewhere")
        try FileManager.default.removeItem(atPath: link)
        XCTAssertEqual(check.run(now: Date()).changed, ["/usr/bin/clupctl missing"])
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "clupd")
        XCTAssertTrue(check.run(now: Date()).isClean, "the link put back")
    }

    func test_aPackageNotInstalledIsACheckThatDidNotRunNotAClearance() throws {
        try FileManager.default.removeItem(atPath: root + "/var/lib/dpkg/status")
        try Data().write(to: URL(fileURLWithPath: root + "/var/lib/dpkg/status"))
        let report = check.run(now: Date())
        XCTAssertEqual(report.problem, "clup-totem is not installed from a package")
        XCTAssertFalse(report.isClean)
        XCTAssertEqual(report.summary, "not checked: clup-totem is not installed from a package")
    }

    /// Holds dpkg's lock under `root` as a running dpkg does (an open-file-description lock,
    /// which the check sees from the same process), until the descriptor is closed.
    func holdDpkgLock() throws -> Int32 {
        let descriptor = open(root + "/var/lib/dpkg/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        XCTAssertEqual(fcntl(descriptor, 37 /* F_OFD_SETLK */, &lock), 0, "dpkg's lock taken")
        return descriptor
    }

    func setStatus(_ status: String) throws {
        let path = root + "/var/lib/dpkg/status"
        try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: #"Status: install ok [a-z-]+"#, with: "Status: install ok \(status)", options: .regularExpression)
            .write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// The package's own configure starts the helper's timer: files a running dpkg has not
    /// finished with are not reported (to the hub) and the check stays due.
    func test_aPackageARunningDpkgIsConfiguringIsCheckedOnceItIsDone() throws {
        try setStatus("half-configured")
        let lock = try holdDpkgLock()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let report = try XCTUnwrap(check.runIfDue(now: start))
        XCTAssertEqual(report.summary, "not checked: dpkg is still at work on clup-totem (half-configured): checked once it is done")
        XCTAssertNil(IntegrityCheck.lastReport(in: state), "nothing left for clupd to send")
        try setStatus("installed")
        close(lock)
        XCTAssertEqual(check.runIfDue(now: start.addingTimeInterval(60))?.summary, "ok: 3 files of clup-totem 0.12.0 as installed",
                       "configured: checked at once, not a day later")
    }

    /// A power cut or a failed configure leaves the package unfinished with no dpkg running:
    /// that is a finding the hub hears, every day, not a check put off for ever.
    func test_aPackageDpkgLeftUnfinishedIsReported() throws {
        try setStatus("half-configured")
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let report = try XCTUnwrap(check.runIfDue(now: start))
        XCTAssertEqual(report.summary, "not checked: dpkg left clup-totem half-configured, not configured (dpkg -i of its package mends it)")
        XCTAssertEqual(IntegrityCheck.lastReport(in: state), report, "left for clupd to send")
        XCTAssertNil(check.runIfDue(now: start.addingTimeInterval(60)), "the day's check was made")
    }

    func test_itRunsOnceADayAndAgainWhenTheClockWentBack() throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        XCTAssertNotNil(check.runIfDue(now: start), "never checked: due")
        XCTAssertNil(check.runIfDue(now: start.addingTimeInterval(3600)), "an hour later: not due")
        XCTAssertNil(check.runIfDue(now: start.addingTimeInterval(86_399)))
        XCTAssertNotNil(check.runIfDue(now: start.addingTimeInterval(86_400)), "a day later: due")
        XCTAssertNotNil(check.runIfDue(now: start), "a clock set back a day: due, not a day without a check")
    }

    /// Only dpkg's lines about files count: a changed digest (the third flag) or a file
    /// missing, configuration files left out, whatever else it prints ignored, and a path
    /// with a control character in it kept escaped.
    func test_dpkgsOutputIsReadLineByLine() {
        let output = """
            ??5??????   /usr/bin/clupd
            ??5?????? c /etc/clup/clupd.toml
            missing     /usr/share/doc/clup-totem/copyright
            missing   c /etc/clup/other.toml
            ?????????   /usr/bin/unchanged
            dpkg: warning: something about /usr/bin/x
            ??5??????   /usr/bin/a\u{1B}[2Jb
            ??5??????   relative/path
            """
        XCTAssertEqual(IntegrityCheck.changedFiles(in: output),
                       ["/usr/bin/clupd changed", "/usr/share/doc/clup-totem/copyright missing", #"/usr/bin/a\u{1B}[2Jb changed"#])
    }
}
