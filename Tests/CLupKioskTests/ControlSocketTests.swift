@testable import CLupKiosk
import Foundation
import Logging
import XCTest

final class ControlSocketTests: XCTestCase {
    var path: String!

    override func setUp() {
        path = "/tmp/clup-ctl-\(getpid())-\(UInt16.random(in: 0...UInt16.max)).sock"
    }

    override func tearDown() {
        unlink(path)
    }

    /// Serves requests with `handle` on this thread's event loop while `client` runs on a
    /// worker thread; returns what `client` returned.
    func exchange<R: Sendable>(_ handle: @escaping (ControlRequest, ControlServer.Peer) throws -> Data,
                               client: @escaping @Sendable (String) -> R) throws -> R {
        let server = try ControlServer(path: path, allowedGroup: nil, logger: Logger(label: "test"))
        defer { server.stopListening() }
        let loop = EventLoop()
        server.start(on: loop, handle: handle)
        var result: R?
        let path = self.path!
        loop.background({ client(path) }) { value in
            result = value
            loop.stop()
        }
        loop.run()
        return try XCTUnwrap(result)
    }

    func test_aRequestGetsItsResultAndAFailureItsCode() throws {
        let replies = try exchange({ request, _ in
            switch request {
            case .tickets: return try JSONEncoder().encode(TicketsReport(businessDay: "2026-11-21", tickets: []))
            default: throw ControlFailure(code: "E-TST-001", message: "refused for the test")
            }
        }, client: { path in
            let client = ControlClient(socketPath: path)
            let tickets = (try? client.send(.tickets, expecting: TicketsReport.self).businessDay) ?? "no reply"
            do {
                _ = try client.send(.status, expecting: StatusReport.self)
                return (tickets, "no error")
            } catch {
                return (tickets, "\(error)")
            }
        })
        XCTAssertEqual(replies.0, "2026-11-21")
        XCTAssertEqual(replies.1, "E-TST-001 refused for the test")
    }

    func test_aLiveSocketIsNotTakenOver() throws {
        let server = try ControlServer(path: path, allowedGroup: nil, logger: Logger(label: "test"))
        defer { server.stopListening() }
        XCTAssertThrowsError(try ControlServer(path: path, allowedGroup: nil, logger: Logger(label: "test"))) { error in
            XCTAssertTrue("\(error)".contains("another clupd is already answering"), "\(error)")
        }
    }

    func test_aFileThatIsNotASocketIsLeftAlone() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("keep me".utf8)))
        XCTAssertThrowsError(try ControlServer(path: path, allowedGroup: nil, logger: Logger(label: "test")))
        XCTAssertEqual(FileManager.default.contents(atPath: path), Data("keep me".utf8))
    }

    func test_noDaemonMeansDaemonNotRunning() {
        XCTAssertThrowsError(try ControlClient(socketPath: path).send(.status, expecting: StatusReport.self)) { error in
            guard case .daemonNotRunning? = error as? ControlClient.ConnectionError else {
                return XCTFail("\(error)")
            }
        }
    }

    func test_garbageOnTheSocketGetsAClearRefusal() throws {
        let reply = try exchange({ _, _ in Data("{}".utf8) }, client: { path in
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            guard let address = try? UnixSocketAddress(path), address.withSockaddr({ connect(fd, $0, $1) }) == 0 else {
                return "connect failed"
            }
            let garbage: [UInt8] = [0xFF, 0x00, 0x7B, 0x0A]
            _ = send(fd, garbage, garbage.count, 0)
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &buffer, buffer.count, 0)
            return String(decoding: buffer[0..<max(0, count)], as: UTF8.self)
        })
        XCTAssertTrue(reply.contains("E-CTL-005"), reply)
    }
}
