import CLupIPP
@testable import CLupPrinting
import Foundation
import Glibc
import XCTest

/// IPP's encoding, an HTTP answer read in pieces, and what the client does with a server that
/// asks for credentials, answers nonsense or nothing. cupsd itself is in CUPSPrinterTests.
final class IPPMessageTests: XCTestCase {
    func test_aRequestReadsBackAsItsAttributesInOrder() throws {
        var request = IPPRequest(operation: 0x000A, requestID: 7)
        request.add(.uri, "printer-uri", "ipp://localhost/printers/clup-ticket")
        request.add(.integer, "limit", integer: 500)
        request.add(.keyword, "requested-attributes", strings: ["job-id", "job-name", "job-state"])
        // A request and an answer share their layout: the operation sits where the status does.
        let parsed = try IPPResponse(parsing: request.encoded())
        XCTAssertEqual(parsed.status, 0x000A)
        XCTAssertEqual(parsed.requestID, 7)
        XCTAssertEqual(parsed.groups.map(\.tag), [1])
        XCTAssertEqual(parsed.groups[0].attributes.map(\.name),
                       ["attributes-charset", "attributes-natural-language", "printer-uri", "limit", "requested-attributes"])
        XCTAssertEqual(parsed.first("limit")?.values, [.integer(500)])
        XCTAssertEqual(parsed.first("requested-attributes")?.values, [.string("job-id"), .string("job-name"), .string("job-state")])
    }

    func test_anAnswerWithJobsLanguagesAndACollectionIsReadGroupByGroup() throws {
        var bytes: [UInt8] = [2, 0, 0, 0, 0, 0, 0, 9]
        bytes += [0x01] + attribute(0x47, "attributes-charset", Array("utf-8".utf8))
        bytes += [0x02] + attribute(0x21, "job-id", [0, 0, 0, 41]) + attribute(0x23, "job-state", [0, 0, 0, 9])
        bytes += attribute(0x36, "job-name", [0, 2] + Array("en".utf8) + [0, 5] + Array("A-041".utf8))
        bytes += [0x02] + attribute(0x21, "job-id", [0, 0, 0, 42]) + attribute(0x23, "job-state", [0, 0, 0, 3])
        bytes += attribute(0x44, "job-state-reasons", Array("job-incoming".utf8)) + attribute(0x44, "", Array("none".utf8))
        // A collection: its members come as additional values, read by nobody.
        bytes += [0x04] + attribute(0x34, "media-col", []) + attribute(0x4A, "", Array("media-size".utf8))
        bytes += attribute(0x37, "", []) + attribute(0x22, "printer-is-accepting-jobs", [1])
        bytes += [0x03] + Array("a document".utf8)
        let answer = try IPPResponse(parsing: bytes)
        XCTAssertTrue(answer.succeeded)
        XCTAssertEqual(answer.requestID, 9)
        let jobs = answer.groups(.job)
        XCTAssertEqual(jobs.count, 2)
        XCTAssertEqual(jobs[0]["job-name"]?.values, [.string("A-041")])
        XCTAssertEqual(jobs[1]["job-state-reasons"]?.values, [.string("job-incoming"), .string("none")])
        XCTAssertEqual(QueuedJob(jobs[1]), QueuedJob(id: 42, name: "", state: .pending, reasons: ["job-incoming"], documents: nil))
        XCTAssertEqual(answer.first("media-col")?.values.count, 3)
        XCTAssertEqual(answer.first("printer-is-accepting-jobs")?.values, [.boolean(true)])
    }

    func test_aMalformedAnswerIsRefusedWithWhatIsWrong() {
        let header: [UInt8] = [2, 0, 0, 0, 0, 0, 0, 1]
        let cases: [(String, [UInt8], String)] = [
            ("short", [2, 0, 0], "shorter than an IPP header"),
            ("version", [9, 0, 0, 0, 0, 0, 0, 1, 3], "IPP version 9.x, not 1.x or 2.x"),
            ("no end", header + [0x01], "ends before its end tag"),
            ("no group", header + attribute(0x21, "job-id", [0, 0, 0, 1]) + [3], "an attribute before any group"),
            ("cut", header + [0x01, 0x21, 0, 6] + Array("job-".utf8), "an attribute cut short"),
            ("long value", header + [0x01, 0x21, 0, 1, 0x61, 0xFF, 0xFF, 0, 0] + [3], "an attribute cut short"),
            ("integer", header + [0x01] + attribute(0x21, "job-id", [0, 1]) + [3], "an integer of 2 bytes"),
            ("boolean", header + [0x01] + attribute(0x22, "b", [7]) + [3], "a boolean of 1 bytes"),
            ("orphan value", header + [0x01] + attribute(0x44, "", [0x61]) + [3], "an additional value with no attribute before it"),
            ("language", header + [0x01] + attribute(0x35, "t", [0, 9, 0x65]) + [3], "a text with language that does not fill its value"),
            ("delimiter 0", header + [0x00, 0x03], "reserved delimiter tag 0x00"),
            ("too many", header + [UInt8](repeating: 0x01, count: IPPResponse.partLimit + 1) + [3],
             "more than \(IPPResponse.partLimit) groups, attributes and values"),
        ]
        for (name, bytes, expected) in cases {
            XCTAssertThrowsError(try IPPResponse(parsing: bytes), name) { error in
                XCTAssertEqual((error as? IPPFormatError)?.description, expected, name)
            }
        }
    }

    func test_anHTTPAnswerIsWholeOnlyWhenItsBodyIs() throws {
        let ipp: [UInt8] = [2, 0, 0, 0, 0, 0, 0, 1, 3]
        let plain = Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/ipp\r\nContent-Length: 9\r\n\r\n".utf8) + ipp
        for cut in 0..<plain.count {
            XCTAssertNil(try HTTPAnswer.parse(Array(plain[..<cut]), atEnd: false, bodyLimit: 100), "\(cut) bytes are not whole")
        }
        let whole = try XCTUnwrap(try HTTPAnswer.parse(plain, atEnd: false, bodyLimit: 100))
        XCTAssertEqual(whole.status, 200)
        XCTAssertEqual(whole.field("content-type"), "application/ipp")
        XCTAssertEqual(whole.body, ipp)

        let chunked = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\n".utf8) + ipp[0..<4]
            + Array("\r\n5\r\n".utf8) + ipp[4...] + Array("\r\n0\r\nX-Trailer: 1\r\n\r\n".utf8)
        XCTAssertNil(try HTTPAnswer.parse(Array(chunked.dropLast(2)), atEnd: false, bodyLimit: 100))
        XCTAssertEqual(try HTTPAnswer.parse(chunked, atEnd: false, bodyLimit: 100)?.body, ipp)

        let closing = Array("HTTP/1.0 200 OK\r\n\r\n".utf8) + ipp
        XCTAssertNil(try HTTPAnswer.parse(closing, atEnd: false, bodyLimit: 100), "without a length, the body ends with the connection")
        XCTAssertEqual(try HTTPAnswer.parse(closing, atEnd: true, bodyLimit: 100)?.body, ipp)
    }

    func test_aBrokenOrOversizedHTTPAnswerIsRefusedWithWhatIsWrong() {
        let cases: [(String, [UInt8], Bool, String)] = [
            ("status line", Array("SMTP 220 hello\r\n\r\n".utf8), false, "not an HTTP/1.x status line: \"SMTP 220 hello\""),
            ("status digits", Array("HTTP/1.1 2x0 OK\r\n\r\n".utf8), false, "not an HTTP/1.x status line: \"HTTP/1.1 2x0 OK\""),
            ("colon", Array("HTTP/1.1 200 OK\r\nbroken\r\n\r\n".utf8), false, "a header line without a colon"),
            ("length", Array("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n".utf8), false, "a Content-Length of \"-1\""),
            ("too big", Array("HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n".utf8), false, "a body of 101 bytes, more than 100"),
            ("chunk too big", Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFF\r\n".utf8), false,
             "a chunked body of more than 100 bytes"),
            ("chunk size", Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8), false, "a chunk size of \"zz\""),
            ("encoding", Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n".utf8), false, "transfer encoding \"gzip\""),
            ("endless header", [UInt8](repeating: 0x41, count: HTTPAnswer.headerLimit + 1), false,
             "a header longer than \(HTTPAnswer.headerLimit) bytes"),
            ("closed early", Array("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n12".utf8), true, "the connection closed after 2 of 9 bytes"),
            ("closed silent", [], true, "the connection closed with no answer"),
            ("interim", Array(String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: HTTPAnswer.interimLimit + 1).utf8), false,
             "more than \(HTTPAnswer.interimLimit) interim answers"),
        ]
        for (name, bytes, atEnd, expected) in cases {
            XCTAssertThrowsError(try HTTPAnswer.parse(bytes, atEnd: atEnd, bodyLimit: 100), name) { error in
                XCTAssertEqual((error as? HTTPAnswerError)?.description, expected, name)
            }
        }
    }

    func test_cupsServerIsReadAsLibcupsReadsIt() {
        XCTAssertEqual(IPPServerAddress.fromEnvironment(nil), .unix(path: "/run/cups/cups.sock"))
        XCTAssertEqual(IPPServerAddress.fromEnvironment("/tmp/x/cups.sock"), .unix(path: "/tmp/x/cups.sock"))
        XCTAssertEqual(IPPServerAddress.fromEnvironment("printhost"), .tcp(host: "printhost", port: 631))
        XCTAssertEqual(IPPServerAddress.fromEnvironment("127.0.0.1:8631"), .tcp(host: "127.0.0.1", port: 8631))
        XCTAssertEqual(IPPServerAddress.fromEnvironment("[::1]:8631"), .tcp(host: "::1", port: 8631))
        XCTAssertEqual(IPPServerAddress.fromEnvironment("[::1]"), .tcp(host: "::1", port: 631))
    }

    private func attribute(_ tag: UInt8, _ name: String, _ value: [UInt8]) -> [UInt8] {
        [tag, UInt8(name.utf8.count >> 8), UInt8(name.utf8.count & 0xFF)] + Array(name.utf8)
            + [UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
    }
}

/// The client against a scripted server on a Unix socket.
final class IPPClientTests: XCTestCase {
    static let okAnswer: [UInt8] = {
        let ipp: [UInt8] = [2, 0, 0, 0, 0, 0, 0, 1, 0x02, 0x21, 0, 6] + Array("job-id".utf8) + [0, 4, 0, 0, 0, 77, 3]
        return Array("HTTP/1.1 200 OK\r\nContent-Length: \(ipp.count)\r\n\r\n".utf8) + ipp
    }()

    func test_whenCupsdAsksWhoIsCancellingTheRequestIsSentAgainWithPeerCredentials() throws {
        let server = try ScriptedServer(answers: [
            Array("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"CUPS\", PeerCred\r\nContent-Length: 0\r\n\r\n".utf8),
            Self.okAnswer,
        ])
        CUPSPrinter(queue: "q", environment: ["CUPS_SERVER": server.path, "CUPS_USER": "clup"]).cancel(job: 77)
        let requests = server.requests()
        XCTAssertEqual(requests.count, 2)
        XCTAssertFalse(requests[0].contains("Authorization:"), requests[0])
        XCTAssertTrue(requests[1].hasPrefix("POST /jobs/ HTTP/1.1\r\n"), requests[1])
        XCTAssertTrue(requests[1].contains("\r\nAuthorization: PeerCred clup\r\n"), requests[1])
    }

    func test_aJobsDocumentFollowsItsRequest() throws {
        let server = try ScriptedServer(answers: [Self.okAnswer])
        let printer = CUPSPrinter(queue: "q", environment: ["CUPS_SERVER": server.path, "CUPS_USER": "clup"])
        XCTAssertEqual(try printer.printFile(try temporaryDocument(), title: "A-001", format: "application/vnd.cups-raw"), 77)
        let request = try XCTUnwrap(server.requests().first)
        XCTAssertTrue(request.hasPrefix("POST /printers/q HTTP/1.1\r\n"), request)
        XCTAssertTrue(request.contains("A-001"), "the job is named after the ticket")
        XCTAssertTrue(request.hasSuffix("ticket bytes"), "the document follows the request")
    }

    func test_aServerThatNeverAnswersIsUnreachableAtTheDeadline() throws {
        let server = try ScriptedServer(answers: [])
        let client = IPPClient(server: .unix(path: server.path), timeoutSeconds: 1)
        XCTAssertThrowsError(try client.send(IPPRequest(operation: 0x000B, requestID: 1), to: "/", user: "clup")) { error in
            XCTAssertEqual(error as? IPPClientError,
                           .unreachable("cupsd at \(server.path) gave no answer within 1 s (waiting for cupsd's answer)"))
        }
    }

    func test_noSocketHTTPErrorsAndNonsenseAreErrorsThatSayWhich() throws {
        let missing = CUPSPrinter(queue: "q", environment: ["CUPS_SERVER": "/nonexistent/cups.sock"])
        XCTAssertThrowsError(try missing.status()) { error in
            XCTAssertEqual(error as? PrintError, .serverUnreachable("cannot connect to /nonexistent/cups.sock: No such file or directory"))
        }
        let failing = try ScriptedServer(answers: [Array("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n".utf8)])
        XCTAssertThrowsError(try CUPSPrinter(queue: "q", environment: ["CUPS_SERVER": failing.path]).status()) { error in
            XCTAssertEqual(error as? PrintError, .submitFailed("cupsd answered HTTP 500"))
        }
        let nonsense = try ScriptedServer(answers: [Array("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc".utf8)])
        XCTAssertThrowsError(try CUPSPrinter(queue: "q", environment: ["CUPS_SERVER": nonsense.path]).status()) { error in
            XCTAssertEqual(error as? PrintError, .submitFailed("cupsd's answer is not IPP: shorter than an IPP header"))
        }
        // What cupsd passes on from a backend is bounded and escaped before it is logged.
        let forged = Array("busy\nE-FAKE forged line".utf8) + [UInt8](repeating: 0x61, count: 500)
        let noisy: [UInt8] = [2, 0, 0x04, 0x00, 0, 0, 0, 1, 0x01, 0x41, 0, 14] + Array("status-message".utf8)
            + [UInt8(forged.count >> 8), UInt8(forged.count & 0xFF)] + forged + [3]
        let refusing = try ScriptedServer(answers: [Array("HTTP/1.1 200 OK\r\nContent-Length: \(noisy.count)\r\n\r\n".utf8) + noisy])
        XCTAssertThrowsError(try CUPSPrinter(queue: "q", environment: ["CUPS_SERVER": refusing.path]).status()) { error in
            let expected = "busy\\nE-FAKE forged line" + String(repeating: "a", count: 200 - 23)
            XCTAssertEqual(error as? PrintError, .submitFailed("\(expected) (IPP status 0x400)"))
        }
        let busy: [UInt8] = [2, 0, 0x05, 0x07, 0, 0, 0, 1, 0x01, 0x41, 0, 14] + Array("status-message".utf8) + [0, 4] + Array("busy".utf8) + [3]
        let unavailable = try ScriptedServer(answers: [Array("HTTP/1.1 200 OK\r\nContent-Length: \(busy.count)\r\n\r\n".utf8) + busy])
        XCTAssertThrowsError(try CUPSPrinter(queue: "q", environment: ["CUPS_SERVER": unavailable.path]).status()) { error in
            XCTAssertEqual(error as? PrintError, .serverUnreachable("busy (IPP status 0x507)"))
        }
    }

    private func temporaryDocument() throws -> String {
        let folder = temporaryFolder()
        let path = folder.appendingPathComponent("ticket.prn").path
        try Data("ticket bytes".utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A folder removed when the test ends.
    private func temporaryFolder() -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clup-ipp-\(UUID())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder
    }
}

/// A server on a Unix socket that reads each request whole (its header and Content-Length
/// bytes), keeps it, and sends the next scripted answer; with none left, it keeps the
/// connection open and says nothing.
final class ScriptedServer: @unchecked Sendable {
    let path: String
    private let listener: Int32
    private let received = Received()

    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var requests: [String] = []
        func append(_ request: String) { lock.withLock { requests.append(request) } }
        var all: [String] { lock.withLock { requests } }
    }

    init(answers: [[UInt8]]) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("clup-ipp-\(UUID().uuidString.prefix(8)).sock").path
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 4) == 0 else { throw POSIXError(.EADDRINUSE) }
        let socket = listener
        let received = received
        Thread.detachNewThread {
            var answers = answers
            var silent: [Int32] = []
            defer { silent.forEach { close($0) } }
            while true {
                let connection = accept(socket, nil, nil)
                guard connection >= 0 else { return }
                let request = Self.readRequest(connection)
                received.append(request)
                guard !answers.isEmpty else { silent.append(connection); continue }
                let answer = answers.removeFirst()
                _ = answer.withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(connection)
            }
        }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        unlink(path)
    }

    func requests() -> [String] { received.all }

    private static func readRequest(_ connection: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let text = String(decoding: bytes, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n"),
               let length = text.split(separator: "\r\n").first(where: { $0.hasPrefix("Content-Length: ") })
                .flatMap({ Int($0.dropFirst("Content-Length: ".count)) }),
               text.utf8.distance(from: text.utf8.startIndex, to: end.upperBound) + length <= bytes.count {
                return text
            }
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return text }
            bytes += buffer[0..<count]
        }
    }
}
