@testable import CLupKiosk
import CLupProtocol
import Foundation
import XCTest

/// The real `clupd` binary under the systemd notify protocol, as systemd would run it.
final class SystemdProtocolTests: XCTestCase {
    /// `clupd`, built next to this test bundle by `swift build --build-tests`.
    var clupd: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("clupd")
    }

    func test_readyOnlyOnceServingThenWatchdogFromTheLoopThenStopping() throws {
        let directory = URL(fileURLWithPath: "/tmp/clup-notify-\(getpid())-\(UInt16.random(in: 0...UInt16.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let notifyPath = directory.appendingPathComponent("notify.sock").path
        let controlPath = directory.appendingPathComponent("control.sock").path
        let configPath = directory.appendingPathComponent("clupd.toml").path
        XCTAssertTrue(FileManager.default.createFile(atPath: configPath, contents: Data()), "an empty configuration: the defaults")
        let receiver = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(receiver) }
        XCTAssertEqual(try UnixSocketAddress(notifyPath).withSockaddr { bind(receiver, $0, $1) }, 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(receiver, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        let process = Process()
        process.executableURL = clupd
        process.arguments = ["--simulate", "--state-dir", directory.appendingPathComponent("state").path,
                             "--socket", controlPath, "--config", configPath]
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notifyPath
        environment["WATCHDOG_USEC"] = "300000"
        environment["CUPS_SERVER"] = directory.appendingPathComponent("no-cups.sock").path
        process.environment = environment
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        func receive() -> String? {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(receiver, &buffer, buffer.count, 0)
            return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
        }

        // Before the database opens (copied first if a migration is due), systemd is told to
        // wait longer for READY; then READY, once serving.
        let extend = try XCTUnwrap(receive(), "no notification within 10 s")
        XCTAssertTrue(extend.hasPrefix("EXTEND_TIMEOUT_USEC=600000000\nSTATUS="), extend)
        let first = try XCTUnwrap(receive(), "no READY within 10 s")
        XCTAssertTrue(first.hasPrefix("READY=1\nSTATUS="), first)
        // READY means serving: the control socket answers now, without waiting.
        XCTAssertEqual(try ControlClient(socketPath: controlPath).send(Control.Status()).screen, "asleep")

        var watchdogs = 0
        let start = Date()
        while watchdogs < 3, Date().timeIntervalSince(start) < 3, let message = receive() {
            if message == "WATCHDOG=1" { watchdogs += 1 }
        }
        XCTAssertEqual(watchdogs, 3, "WATCHDOG=1 every half WatchdogSec")

        process.terminate()
        var stopping = false
        while let message = receive() {
            if message == "STOPPING=1" { stopping = true; break }
        }
        XCTAssertTrue(stopping)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: controlPath), "the socket is removed on the way out")
    }
}
