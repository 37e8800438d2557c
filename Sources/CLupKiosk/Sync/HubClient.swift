import AsyncHTTPClient
import CLupCore
import CLupProtocol
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// HTTPS to the hub, trusting only the hub's own CA, with bounded time and answer sizes.
///
/// All of clupd's hub traffic goes through one client and its one event loop thread, and
/// nothing waits for the hub by holding a thread: the upload and the long polls are async
/// tasks (`upload`, `settings`, `line`, `time`; their pauses are `WakeUp`s on the same loop);
/// a customer's booking is answered on the loop (`slotOffers(signer:_:)`,
/// `book(slotStart:signer:_:)`) and handed to the kiosk's. Only `clupd enrol`, a command
/// with nothing else to do, waits for its answer (`enrol`).
final class HubClient: Sendable {
    let base: String
    private let client: HTTPClient
    private let group: MultiThreadedEventLoopGroup
    /// An answer larger than this is refused.
    static let maximumAnswerBytes = 1 << 20

    /// `caPEM` is the hub's CA certificate (from `clup-hub init`).
    init(hub: String, caPEM: String) throws(CodedError) {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(Array(caPEM.utf8))
        } catch {
            throw CodedError(.hubCertificateUnusable, "the hub's CA certificate cannot be read: \(error)")
        }
        guard !certificates.isEmpty else { throw CodedError(.hubCertificateUnusable, "the hub's CA file holds no certificate") }
        guard hub.hasPrefix("https://"), URL(string: hub)?.host != nil else {
            throw CodedError(.hubUnreachable, "the hub's address must be https://HOST[:PORT], not \(hub)")
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(certificates)
        tls.certificateVerification = .fullVerification
        tls.minimumTLSVersion = .tlsv12
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, timeout: .init(connect: .seconds(5), read: .seconds(15)))
        // A connection that cannot be made fails its request at once: the sync and the long
        // poll back off by themselves, and `sync now` tries at once. Left on, the client's own
        // pool retries behind their backs with a pause that grows to a minute, and after a cut
        // of 40 s a request waits out that pause and fails with the cut's stale error while
        // the link is back (issue 40).
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
        base = hub.hasSuffix("/") ? String(hub.dropLast()) : hub
    }

    deinit {
        try? client.syncShutdown()
        try? group.syncShutdownGracefully()
    }

    /// A pause for a task of the hub link, timed by this client's loop.
    func wakeUp() -> WakeUp {
        WakeUp(on: group.next())
    }

    /// Joins the store (`clupd enrol`): waits for the hub's answer, blocking the caller.
    func enrol(_ request: EnrolmentRequest) throws(CodedError) -> EnrolmentReply {
        let request = try self.request("POST", HubWire.enrolPath, query: "", body: encode(request), signer: nil)
        let response: HTTPClient.Response
        do {
            response = try execute(request, deadline: 20).wait()
        } catch {
            throw CodedError(.hubUnreachable, "\(base) cannot be reached: \(Self.describe(error))")
        }
        return try decode(response, HubWire.enrolPath)
    }

    func time() async throws(CodedError) -> HubTime {
        try await call("GET", HubWire.timePath, body: Data(), signer: nil)
    }

    func upload(_ batch: EventBatch, signer: Signer) async throws(CodedError) -> BatchReply {
        try await call("POST", HubWire.eventsPath, body: encode(batch), signer: signer)
    }

    /// The store's settings once newer than `after` (the hub holds the request up to
    /// `HubWire.settingsWait` seconds for a change).
    func settings(after: Int64, signer: Signer) async throws(CodedError) -> StoreSettingsDocument {
        try await call("GET", HubWire.settingsPath, query: "?after=\(after)", body: Data(), signer: signer)
    }

    /// This door's line once newer than `after` (a long poll, as the settings').
    func line(after: Int64, signer: Signer) async throws(CodedError) -> DoorLine {
        try await call("GET", HubWire.linePath, query: "?after=\(after)&\(HubWire.lineTakesDoorLimit)=1", body: Data(), signer: signer)
    }

    /// Today's slots the hub can still book, for a customer at the totem: `answer` is told
    /// within `customerDeadline` seconds, on the client's thread.
    func slotOffers(signer: Signer, _ answer: @escaping @Sendable (Result<SlotOffers, CodedError>) -> Void) {
        send("GET", HubWire.totemSlotsPath, body: Data(), signer: signer, deadline: Self.customerDeadline, answer)
    }

    /// Books a place in the slot starting at `slotStart` (Unix seconds) for a customer at the
    /// totem; `answer` is told as `slotOffers` tells it.
    func book(slotStart: Double, signer: Signer, _ answer: @escaping @Sendable (Result<TotemBooking, CodedError>) -> Void) {
        let body: Data
        do {
            body = try encode(TotemBookingRequest(slotStart: slotStart))
        } catch {
            return answer(.failure(error))
        }
        send("POST", HubWire.totemBookingsPath, body: body, signer: signer, deadline: Self.customerDeadline, answer)
    }

    /// Sends the frame of the screen the panel asked for; `answer` is told as `slotOffers`
    /// tells it.
    func sendScreen(_ frame: ScreenFrame, signer: Signer, _ answer: @escaping @Sendable (Result<OK, CodedError>) -> Void) {
        let body: Data
        do {
            body = try encode(frame)
        } catch {
            return answer(.failure(error))
        }
        send("POST", HubWire.totemScreenPath, body: body, signer: signer, deadline: 20, answer)
    }

    /// The hub's `{"ok": true}`.
    struct OK: Decodable, Sendable {
        let ok: Bool
    }

    /// How long a customer in front of the totem is kept waiting for the hub.
    static let customerDeadline: Int64 = 4

    /// Who signs requests, and with which estimate of the hub's clock.
    struct Signer {
        let deviceID: String
        let key: Curve25519.Signing.PrivateKey
        /// The totem's clock minus the hub's, in seconds.
        let clockOffset: Double
    }

    private func encode(_ value: some Encodable) throws(CodedError) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw CodedError(.internalError, "cannot encode a request: \(error)")
        }
    }

    /// `path` is signed; `query` (none of whose values is a secret or an authority) is not.
    /// Returns when the hub answers or `deadline` seconds pass.
    private func call<T: Decodable>(_ method: String, _ path: String, query: String = "", body: Data, signer: Signer?,
                                    deadline: Int64 = 20) async throws(CodedError) -> T {
        let request = try self.request(method, path, query: query, body: body, signer: signer)
        let response: HTTPClient.Response
        do {
            response = try await execute(request, deadline: deadline).get()
        } catch {
            throw CodedError(.hubUnreachable, "\(base) cannot be reached: \(Self.describe(error))")
        }
        return try decode(response, path)
    }

    /// The same, without blocking: `answer` is told on the client's thread.
    private func send<T: Decodable>(_ method: String, _ path: String, query: String = "", body: Data, signer: Signer?,
                                    deadline: Int64, _ answer: @escaping @Sendable (Result<T, CodedError>) -> Void) {
        let request: HTTPClient.Request
        do {
            request = try self.request(method, path, query: query, body: body, signer: signer)
        } catch {
            return answer(.failure(error))
        }
        execute(request, deadline: deadline).whenComplete { [self] result in
            switch result {
            case let .success(response):
                answer(Result { () throws(CodedError) in try decode(response, path) })
            case let .failure(error):
                answer(.failure(CodedError(.hubUnreachable, "\(base) cannot be reached: \(Self.describe(error))")))
            }
        }
    }

    private func request(_ method: String, _ path: String, query: String, body: Data, signer: Signer?) throws(CodedError)
        -> HTTPClient.Request {
        var headers = HTTPHeaders([("Content-Type", "application/json")])
        if let signer {
            let millis = Int64(((Date().timeIntervalSince1970 - signer.clockOffset) * 1000).rounded())
            do {
                let signature = try RequestSignature.sign(method: method, path: path, deviceID: signer.deviceID, timeMillis: millis,
                                                          body: body, key: signer.key)
                headers.add(contentsOf: signature.headers)
            } catch {
                throw CodedError(.internalError, "cannot sign a request: \(error)")
            }
        }
        do {
            return try HTTPClient.Request(url: base + path + query, method: HTTPMethod(rawValue: method), headers: headers,
                                          body: method == "GET" ? nil : .bytes(body))
        } catch {
            throw CodedError(.hubUnreachable, "\(base) cannot be reached: \(Self.describe(error))")
        }
    }

    private func execute(_ request: HTTPClient.Request, deadline: Int64) -> EventLoopFuture<HTTPClient.Response> {
        let accumulator = ResponseAccumulator(request: request, maxBodySize: Self.maximumAnswerBytes)
        return client.execute(request: request, delegate: accumulator, deadline: .now() + .seconds(deadline)).futureResult
    }

    /// The answer as `T`, or the hub's refusal, or why it is not one.
    private func decode<T: Decodable>(_ response: HTTPClient.Response, _ path: String) throws(CodedError) -> T {
        let data = response.body.map { Data($0.readableBytesView) } ?? Data()
        guard (200..<300).contains(response.status.code) else {
            if let refusal = try? JSONDecoder().decode(ErrorBody.self, from: data) {
                throw refusal.error
            }
            throw CodedError(.hubError, "\(base)\(path) answered HTTP \(response.status.code)")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw CodedError(.hubAnswerUnreadable, "\(base)\(path) answered what is not a \(T.self)")
        }
    }

    private struct ErrorBody: Decodable {
        let error: CodedError
    }

    private static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}
