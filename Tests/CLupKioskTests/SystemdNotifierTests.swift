@testable import CLupKiosk
import CLupProtocol
import Foundation
import XCTest

final class SystemdNotifierTests: XCTestCase {
    func test_sendsStateAsOneDatagramToNotifySocket() throws {
        let path = "/tmp/clup-notify-\(getpid()).sock"
        unlink(path)
        defer { unlink(path) }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        XCTAssertEqual(try UnixSocketAddress(path).withSockaddr { bind(fd, $0, $1) }, 0)

        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "30000000"])
        XCTAssertTrue(notifier.notify("READY=1\nSTATUS=up"))
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        XCTAssertEqual(String(decoding: buffer[0..<max(0, count)], as: UTF8.self), "READY=1\nSTATUS=up")
        XCTAssertEqual(notifier.watchdogInterval, 15)
    }

    func test_withoutSystemdItDoesNothing() {
        let notifier = SystemdNotifier(environment: [:])
        XCTAssertFalse(notifier.notify("READY=1"))
        XCTAssertNil(notifier.watchdogInterval)
    }

    func test_aWatchdogMeantForAnotherProcessIsIgnored() {
        let notifier = SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"])
        XCTAssertNil(notifier.watchdogInterval)
    }
}
