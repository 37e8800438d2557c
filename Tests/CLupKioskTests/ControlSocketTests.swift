import CLupCore
@testable import CLupKiosk
import CLupProtocol
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

    /// Serves the commands `route` registers on this thread's event loop (it is given the
    /// server's loop, for work answered later) while `client` runs on a worker thread;
    /// returns what `client` returned. Every caller counts as a logged-in technician here;
    /// `sessions` hears the session each request carried.
    func exchange<R: Sendable>(routes route: (ControlRouter, EventLoop) -> Void = { _, _ in },
                               sessions: @escaping (String?) -> Void = { _ in },
                               clock: any CLupCore.Clock = SystemClock(),
                               client: @escaping @Sendable (String, EventLoop.Waker) -> R) throws -> R {
        let server = try ControlServer(path: path, allowedGroup: nil, logger: Logger(label: "test"))
        defer { server.stopListening() }
        let loop = EventLoop(clock: clock)
        let router = ControlRouter(policy: ControlRouter.Policy(
            technician: { request, _ in sessions(request.session); return "tess" },
            missingTechnician: { _, _ in CodedError(.loginRequired, "log in") },
            bootstrap: { _, _ in false },
            audit: { _, _, _, _ in }), logger: Logger(label: "test"))
        route(router, loop)
        server.start(on: loop) { body, peer in router.answer(body, from: peer) }
        var result: R?
        let path = self.path!
        let waker = loop.waker
        loop.background({ client(path, waker) }) { value in
            result = value
            loop.stop()
        }
        loop.run()
        return try XCTUnwrap(result)
    }

    /// The day's (empty) tickets, answered at once.
    static func tickets(_ router: ControlRouter, _ loop: EventLoop) {
        router.on(Control.Tickets.self) { _, _ in TicketsReport(businessDay: "2026-11-22", tickets: []) }
    }

    func test_aRequestGetsItsResultAndAFailureItsCode() throws {
        let replies = try exchange(routes: { router, _ in
            router.on(Control.Tickets.self) { _, _ in TicketsReport(businessDay: "2026-11-21", tickets: []) }
            router.on(Control.Status.self) { _, _ in throw CodedError(.internalError, "refused for the test") }
        }, client: { path, _ in
            let client = ControlClient(socketPath: path)
            let tickets = (try? client.send(Control.Tickets()).businessDay) ?? "no reply"
            do {
                _ = try client.send(Control.Status())
                return (tickets, "no error")
            } catch {
                return (tickets, "\(error)")
            }
        })
        XCTAssertEqual(replies.0, "2026-11-21")
        XCTAssertEqual(replies.1, "E-CTL-013 refused for the test")
    }

    func test_slowWorkIsAnsweredLaterAndCancelledWhenTheClientGoesAway() throws {
        final class Box: @unchecked Sendable { var cancelled = 0; var sessions: [String?] = [] }
        let box = Box()
        let replies = try exchange(routes: { router, loop in
            router.later(Control.SelfTest.self) { command, _ in
                let pending = PendingReply<SelfTestResult>("a test", seconds: 10)
                loop.schedule(after: 0.2) {
                    pending.finish(.success(SelfTestResult(step: command.step, device: "printer", passed: true, reason: "done later",
                                                           check: nil)))
                }
                return .later(pending)
            }
            router.later(Control.CalibrationTarget.self) { _, _ in
                // Never finished: the client hangs up, and the work is cancelled.
                let pending = PendingReply<RawTouch>("a touch", seconds: 10)
                pending.onCancel = { box.cancelled += 1 }
                return .later(pending)
            }
            router.on(Control.Logout.self) { _, _ in MessageReply("now") }
        }, sessions: { box.sessions.append($0) }, client: { path, _ in
            let later = (try? ControlClient(socketPath: path, session: "token-of-the-test-session")
                .send(Control.SelfTest(.printer, timeoutSeconds: 5, force: false)).reason) ?? "no reply"
            // A client that gives up after 1 s.
            let impatient = ControlClient(socketPath: path, timeoutSeconds: 1)
            let gaveUp = (try? impatient.send(Control.CalibrationTarget(index: 0, timeoutSeconds: 5, force: false)).rawX)
                .map { "touched at \($0)" } ?? "timed out"
            // A bare request, as an older clupctl sends it, is still understood.
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { bytes in
                for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
            }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            let bare = Array(#"{"logout":{}}"#.utf8) + [0x0A]
            _ = send(fd, bare, bare.count, 0)
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_WAITALL))
            close(fd)
            return (later, gaveUp, String(decoding: buffer.prefix(max(0, count)), as: UTF8.self))
        })
        XCTAssertEqual(replies.0, "done later")
        XCTAssertEqual(replies.1, "timed out")
        XCTAssertEqual(box.cancelled, 1, "the client that went away cancelled its work")
        XCTAssertEqual(replies.2, #"{"ok":true,"result":{"message":"now"}}"# + "\n")
        XCTAssertEqual(box.sessions, ["token-of-the-test-session", nil, nil])
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
        XCTAssertThrowsError(try ControlClient(socketPath: path).send(Control.Status())) { error in
            guard case .daemonNotRunning? = error as? ControlClient.ConnectionError else {
                return XCTFail("\(error)")
            }
        }
    }

    func test_garbageOnTheSocketGetsAClearRefusal() throws {
        let reply = try exchange(client: { path, _ in
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

    /// What a request written by hand is answered: a command this clupd does not route, two
    /// commands in one request, fields of the wrong kind, no command at all. Each is refused
    /// as not understood, and the handler of a command that is routed never runs.
    func test_aRequestThatNamesNoRoutedCommandOrCarriesBadFieldsIsNotUnderstood() throws {
        final class Box: @unchecked Sendable { var skipped = 0 }
        let box = Box()
        let requests = [#"{"request":{"nosuch":{}}}"#, #"{"request":{"tickets":{},"skip":{"number":"A-001"}}}"#,
                        #"{"request":{"skip":{"number":5}}}"#, #"{"request":{}}"#, #"{"session":"x"}"#, #"[1,2]"#]
        let replies = try exchange(routes: { router, loop in
            Self.tickets(router, loop)
            router.on(Control.Skip.self) { command, _ in
                box.skipped += 1
                return TicketCareReply(number: command.number, state: "no-show", outcome: "skipped")
            }
        }, client: { path, _ in
            requests.map { Self.raw($0, to: path) } + [Self.raw(#"{"request":{"skip":{"number":"A-001"}}}"#, to: path)]
        })
        for (request, reply) in zip(requests, replies) {
            XCTAssertEqual(Self.failure(in: reply)?.errorCode, .requestNotUnderstood, "\(request) → \(reply)")
        }
        XCTAssertEqual(replies.last, #"{"ok":true,"result":{"number":"A-001","outcome":"skipped","state":"no-show"}}"# + "\n")
        XCTAssertEqual(box.skipped, 1, "only the well-formed skip reached its handler")
    }

    /// Sends `text` and a newline as one request; returns the raw reply.
    static func raw(_ text: String, to path: String) -> String {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        guard let address = try? UnixSocketAddress(path), address.withSockaddr({ connect(fd, $0, $1) }) == 0 else {
            return "connect failed"
        }
        let bytes = Array(text.utf8) + [0x0A]
        _ = send(fd, bytes, bytes.count, 0)
        var reply = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            reply += buffer[0..<count]
        }
        return String(decoding: reply, as: UTF8.self)
    }

    /// The refusal a raw reply carries, if it is one.
    static func failure(in reply: String) -> CodedError? {
        (try? JSONDecoder().decode(ReplyEnvelope<TicketsReport>.self, from: Data(reply.utf8)))?.error
    }

    /// A connected socket that has sent nothing.
    static func silentClient(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard let address = try? UnixSocketAddress(path), address.withSockaddr({ connect(fd, $0, $1) }) == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    /// Whether the server has written to or closed `fd` (a silent client it gave up on).
    static func heardBack(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) != -1 || errno != EAGAIN
    }

    func test_silentClientsDoNotHoldUpARequest() throws {
        // The clock stands still: a server that waited on the silent clients would answer
        // the request only after giving up on each of them, which never happens here.
        let clock = ManualClock()
        let outcome = try exchange(routes: Self.tickets, clock: clock, client: { path, _ in
            let silent = (0..<50).map { _ in Self.silentClient(path) }
            defer { silent.forEach { close($0) } }
            let answer = (try? ControlClient(socketPath: path).send(Control.Tickets()).businessDay) ?? "no answer"
            return (answer, silent.filter { $0 >= 0 }.count, silent.filter(Self.heardBack).count)
        })
        XCTAssertEqual(outcome.0, "2026-11-22")
        XCTAssertEqual(outcome.1, 50, "silent clients connected")
        XCTAssertEqual(outcome.2, 0, "silent clients answered or dropped before the request was")
    }

    func test_aClientThatSaysNothingIsDroppedWithAReason() throws {
        let clock = ManualClock()
        let reply = try exchange(clock: clock, client: { path, waker in
            let fd = Self.silentClient(path)
            defer { close(fd) }
            // Time passes (the server may not have accepted the connection yet, so a little
            // at a time) until the server gives up on the client.
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count >= 0 { return String(decoding: buffer[0..<count], as: UTF8.self) }
                clock.advance(0.25)
                waker.wake()
                usleep(1000)
            }
        })
        XCTAssertEqual(Self.failure(in: reply), CodedError(.noRequest, "no request within 2 s"), reply)
    }

    func test_moreConnectionsThanTheLimitMakeRoomForANewRequest() throws {
        let clock = ManualClock()
        let outcome = try exchange(routes: Self.tickets, clock: clock, client: { path, _ in
            let silent = (0..<(ControlServer.maxConnections + 8)).map { _ in Self.silentClient(path) }
            defer { silent.forEach { close($0) } }
            let answer = (try? ControlClient(socketPath: path).send(Control.Tickets()).businessDay) ?? "no answer"
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(silent[0], &buffer, buffer.count, 0)
            return (answer, String(decoding: buffer[0..<max(0, count)], as: UTF8.self))
        })
        XCTAssertEqual(outcome.0, "2026-11-22")
        XCTAssertEqual(Self.failure(in: outcome.1), CodedError(.tooManyConnections, "too many open connections; try again"),
                       outcome.1)
    }
}
