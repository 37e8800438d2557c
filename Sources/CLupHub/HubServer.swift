import AsyncHTTPClient
import CLupCore
import CLupProtocol
import Crypto
import Foundation
import Hummingbird
import HummingbirdTLS
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle

/// A request's context: which totem signed it, once `DeviceAuthenticator` has checked.
public struct HubRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var device: AuthenticatedDevice?
    /// The panel's session, once `PanelSessionMiddleware` has found it.
    var panel: PanelAccounts.Session?
    /// The panel's words, in the language the manager chose (`PanelSessionMiddleware`).
    var panelWords = PanelWords(.english)
    /// The peer of the connection (nil for a request made in process).
    let remoteAddress: SocketAddress?

    public init(source: Source) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    public var maxUploadSize: Int { HubWire.maximumBodyBytes }
}

/// The hub's HTTPS API: enrolment, the hub's time, event batches.
public struct HubServer: Sendable {
    let database: HubDatabase
    let settings: HubSettings
    let logger: Logger

    let metrics: HubMetrics?
    let signals = SettingsSignals()
    /// The chain's notification gateway; nil: the app's customers' notices stay queued.
    let gateway: NoticeGateway?
    /// Web Push to the website's visitors; nil: the website offers none.
    let push: PushService?

    public init(database: HubDatabase, settings: HubSettings, metrics: HubMetrics? = nil, gateway: NoticeGateway? = nil,
                push: PushService? = nil, logger: Logger) {
        self.database = database
        self.settings = settings
        self.metrics = metrics
        self.gateway = gateway
        self.push = push
        self.logger = logger
    }

    public func router() -> Router<HubRequestContext> {
        let router = Router(context: HubRequestContext.self)
        router.add(middleware: HubErrorMiddleware(logger: logger))
        let releases = ReleaseRepository(stateDirectory: settings.stateDirectoryPath)
        let enrolment = Enrolment(database: database, releases: releases)
        RepositoryFiles(releases: releases).add(to: router)
        let ingest = Ingest(database: database)
        router.get("/v1/health") { _, _ in
            try await database.withDeadline { try await database.client.query("SELECT 1", logger: logger) }
            return Self.json(["ok": true])
        }
        router.get(RouterPath(HubWire.timePath)) { _, _ in
            Self.json(HubTime(hubTime: Date().timeIntervalSince1970))
        }
        router.post(RouterPath(HubWire.enrolPath)) { request, context in
            var request = request
            let body = try await Self.body(of: &request, context: context)
            let asked = try Self.decode(EnrolmentRequest.self, from: body)
            let reply = try await enrolment.enrol(asked)
            logger.info("totem enrolled", metadata: ["device": "\(reply.deviceID)", "store": "\(reply.storeID)", "letter": "\(reply.letter)"])
            return Self.json(reply, status: .created)
        }
        let scraped = router.group().add(middleware: BearerToken(token: metrics == nil ? nil : settings.metricsToken, minimumLength: 16,
                                                                 what: "metrics", key: "metrics_token", whenMissing: .badHubRequest))
        scraped.get("/metrics") { [metrics] _, _ in
            guard let metrics else { throw HubError(.notFound, .badHubRequest, "metrics are off") }
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                            body: .init(byteBuffer: ByteBuffer(string: try await metrics.scrape(database))))
        }
        let origins = settings.origins.compactMap { WebOrigin($0) }
        Panel(database: database, releases: releases, origins: origins).add(to: router)
        let proxies = (try? TrustedProxies.parse(settings.trustedProxies).get()) ?? .none
        LineSite(line: RemoteLine(database: database), nearby: StoresNearby(database: database), proxies: proxies, origins: origins,
                 push: push).add(to: router)
        let bookings = Bookings(database: database)
        let app = router.group("/v1/stores/:store").add(middleware: BearerToken(token: settings.appToken, minimumLength: 32,
                                                                                 what: "the bookings API", key: "app_token",
                                                                                 whenMissing: .bookingsOff))
        app.get("slots") { request, context in
            Self.json(try await bookings.slots(store: try context.parameters.require("store"),
                                               day: request.uri.queryParameters.get("day")))
        }
        // Each request that changes something may carry an Idempotency-Key: sent again, it is answered as the first time.
        app.post("bookings") { request, context in
            var request = request
            let body = try await Self.body(of: &request, context: context, limit: Self.appBodyLimit)
            let asked = try Self.decode(Bookings.Request.self, from: body, isoDates: true)
            return Self.json(try await bookings.book(store: try context.parameters.require("store"), asked,
                                                     once: try IdempotencyKey.of(request, body: body)), status: .created)
        }
        app.post("bookings/:number/cancel") { request, context in
            var request = request
            let body = try await Self.body(of: &request, context: context, limit: Self.appBodyLimit)
            let asked = try Self.decode(Bookings.Cancellation.self, from: body)
            return Self.json(try await bookings.cancel(store: try context.parameters.require("store"),
                                                       number: try context.parameters.require("number"), reference: asked.customerRef,
                                                       once: try IdempotencyKey.of(request, body: body)))
        }
        let nearby = StoresNearby(database: database)
        router.group("/v1/nearby").add(middleware: BearerToken(token: settings.appToken, minimumLength: 32, what: "the stores nearby",
                                                               key: "app_token", whenMissing: .bookingsOff))
            .get { request, _ in
                let query = request.uri.queryParameters
                let number = { (name: String) throws -> Double? in
                    guard let text = query.get(name) else { return nil }
                    guard text.utf8.count <= 32, let value = Double(text) else { throw HubError.badRequest("\(name) is a number") }
                    return value
                }
                guard let latitude = try number("latitude"), let longitude = try number("longitude") else {
                    throw HubError.badRequest("latitude and longitude are the point to search around (WGS 84 degrees)")
                }
                return Self.json(try await nearby.near(latitude: latitude, longitude: longitude, radiusKm: try number("radiusKm")))
            }
        let line = RemoteLine(database: database)
        app.post("line") { request, context in
            var request = request
            let body = try await Self.body(of: &request, context: context, limit: Self.appBodyLimit)
            let asked = try Self.decode(RemoteLine.Request.self, from: body)
            return Self.json(try await line.join(store: try context.parameters.require("store"), asked,
                                                 once: try IdempotencyKey.of(request, body: body)), status: .created)
        }
        app.get("line/:number") { request, context in
            Self.json(try await line.place(store: try context.parameters.require("store"), number: try context.parameters.require("number"),
                                           reference: request.uri.queryParameters.get("customerRef") ?? ""))
        }
        app.post("line/:number/leave") { request, context in
            var request = request
            let body = try await Self.body(of: &request, context: context, limit: Self.appBodyLimit)
            let asked = try Self.decode(RemoteLine.Leaving.self, from: body)
            return Self.json(try await line.leave(store: try context.parameters.require("store"), number: try context.parameters.require("number"),
                                                  reference: asked.customerRef, once: try IdempotencyKey.of(request, body: body)))
        }
        let signed = router.group().add(middleware: DeviceAuthenticator(database: database))
        signed.post(RouterPath(HubWire.eventsPath)) { request, context in
            guard let device = context.device else { throw HubError.unauthorized(.badSignature, "unsigned request") }
            var request = request
            let body = try await Self.body(of: &request, context: context)
            // Read by hand when it is the usual shape; else, with its error, by JSONDecoder.
            let scanned = body.withUnsafeReadableBytes { $0.withMemoryRebound(to: UInt8.self) { EventBatch.scanned($0) } }
            let batch = try scanned ?? Self.decode(EventBatch.self, from: body)
            return Self.json(try await ingest.apply(batch, from: device))
        }
        signed.get(RouterPath(HubWire.settingsPath)) { request, context in
            guard let device = context.device else { throw HubError.unauthorized(.badSignature, "unsigned request") }
            let after = request.uri.queryParameters.get("after").flatMap { Int64($0) } ?? 0
            return Self.json(try await StoreSettingsReader.next(store: device.storeID, device: device.deviceID, after: after,
                                                          wait: HubWire.settingsWait, database: database, signals: signals))
        }
        signed.get(RouterPath(HubWire.totemSlotsPath)) { _, context in
            guard let device = context.device else { throw HubError.unauthorized(.badSignature, "unsigned request") }
            let today = try await bookings.slots(store: device.storeID, day: nil)
            return Self.json(SlotOffers(slots: today.slots.filter(\.bookable).map {
                SlotOffers.Slot(start: $0.start.timeIntervalSince1970, free: $0.free)
            }))
        }
        signed.post(RouterPath(HubWire.totemBookingsPath)) { request, context in
            guard let device = context.device else { throw HubError.unauthorized(.badSignature, "unsigned request") }
            var request = request
            let asked = try Self.decode(TotemBookingRequest.self, from: try await Self.body(of: &request, context: context))
            guard asked.slotStart.isFinite, (0...Double(UInt32.max)).contains(asked.slotStart) else {
                throw HubError.badRequest("slotStart is a slot's start in Unix seconds")
            }
            let made = try await bookings.book(store: device.storeID, .init(
                slotStart: Date(timeIntervalSince1970: asked.slotStart), customerRef: Bookings.totemReference(device.deviceID),
                forSomeoneElse: false))
            return Self.json(TotemBooking(number: made.number, code: made.code, slotStart: made.slotStart.timeIntervalSince1970),
                             status: .created)
        }
        return router
    }

    /// Serves until SIGTERM or SIGINT: HTTPS on `[hub] host:port`, the pool beside it.
    public func run(tls: TLSConfiguration) async throws {
        // A client that does not answer TLS's goodbye (close_notify) holds a stopping hub
        // for NIOSSL's 5 s by default; a second is plenty on a hub's network.
        var tls = tls
        tls.shutdownTimeout = .seconds(1)
        let app = Application(router: router(), server: try .tls(.http1(), tlsConfiguration: tls),
                              configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: nil),
                              logger: logger)
        // The pool runs beside the server rather than as one of its services: on SIGTERM the
        // server drains and returns, and the process ends without waiting for the pool to
        // say goodbye to a PostgreSQL that may be stopping too (or gone). Draining waits
        // `shutdownGrace` at most (a long poll, a batch waiting on the database); then what
        // is left is cancelled.
        let server = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint],
                                                       cancellationSignals: [], logger: logger)
                                  .withMaximumGracefulShutdown(Self.shutdownGrace))
        let pool = Task { await database.run() }
        let listening = Task { [signals, database, logger] in await signals.listen(on: database, logger: logger) }
        let conducting = Task { [database, logger] in await Self.conductRollouts(database, logger) }
        let retiring = Task { [database, logger] in await Self.retireOldDays(database, logger) }
        let delivering = Task { [database, gateway, push, logger] in await Self.deliverNotices(database, gateway: gateway, push: push, logger) }
        // Reminders are queued whether or not a gateway takes them yet, as every notice is.
        let reminding = Task { [database, logger] in
            await Self.repeating(every: Self.reminderRound, firstAfter: Self.noticeRound, "queueing reminders", logger) {
                _ = try await Bookings.queueReminders(database)
            }
        }
        defer {
            reminding.cancel()
            delivering.cancel()
            retiring.cancel()
            conducting.cancel()
            listening.cancel()
            pool.cancel()
        }
        try await server.run()
    }

    /// Moves the running rollout on (`Rollouts.advance`) every `rolloutRound`, until cancelled.
    static func conductRollouts(_ database: HubDatabase, _ logger: Logger) async {
        let rollouts = Rollouts(database: database)
        await repeating(every: rolloutRound, "the rollout's round", logger) {
            if let said = try await rollouts.advance() { logger.notice("\(said)") }
        }
    }

    /// Reads how long the chain keeps events and retires the days older than that
    /// (`Retention.retire`) every `retentionRound`, until cancelled.
    static func retireOldDays(_ database: HubDatabase, _ logger: Logger) async {
        let retention = Retention(database: database)
        await repeating(every: retentionRound, "retiring old days", logger) {
            let retired = try await retention.retire()
            if let first = retired.first, let last = retired.last {
                logger.notice("retired the events of \(retired.count) days older than the chain keeps",
                              metadata: ["first": "\(first)", "last": "\(last)"])
            }
        }
    }

    /// Sends the notices due (`NoticeDelivery.run`), until cancelled.
    static func deliverNotices(_ database: HubDatabase, gateway: NoticeGateway?, push: PushService?, _ logger: Logger) async {
        if gateway == nil { logger.info("the app's customers' notices are kept queued: no [notices] webhook_url") }
        if push == nil { logger.info("the website offers no Web Push: no [notices] push_subject") }
        guard gateway != nil || push != nil else { return }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: NoticeDelivery.clientConfiguration)
        // The pool is running by then.
        try? await Task.sleep(for: noticeRound)
        await NoticeDelivery(database: database, gateway: gateway, push: push, client: client).run(pause: noticeRound)
        try? await client.shutdown()
    }

    /// Runs `round` every `interval` until cancelled, the first after `first` (the pool is
    /// running by then); a round that fails (the database away) is logged, once until one
    /// succeeds, and the next one tries again.
    private static func repeating(every interval: Duration, firstAfter first: Duration = rolloutRound, _ what: String,
                                  _ logger: Logger, _ round: () async throws -> Void) async {
        var failing = false
        try? await Task.sleep(for: first)
        while !Task.isCancelled {
            do {
                try await round()
                failing = false
            } catch {
                if !failing { logger.warning("\(what) failed; trying again", metadata: ["error": "\(HubDatabase.hubError(error).coded.message)"]) }
                failing = true
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// How often the chain's retention is read and old days retired.
    static let retentionRound: Duration = .seconds(600)

    /// How often notices due are sent: a notice leaves the hub about a second after it is queued.
    static let noticeRound: Duration = .seconds(1)
    /// How often bookings due a reminder are looked for.
    static let reminderRound: Duration = .seconds(15)

    /// How often the running rollout is looked at.
    static let rolloutRound: Duration = .seconds(5)

    /// How long SIGTERM lets requests under way finish before they are cancelled.
    static let shutdownGrace: Duration = .seconds(2)

    /// The request's body, at most `limit` bytes (a totem's batch may be large; what the app
    /// sends is a few fields, `appBodyLimit`).
    static func body(of request: inout Request, context: HubRequestContext, limit: Int? = nil) async throws -> ByteBuffer {
        let limit = min(limit ?? context.maxUploadSize, context.maxUploadSize)
        do {
            return try await request.collectBody(upTo: limit)
        } catch {
            throw HubError(.contentTooLarge, .badHubRequest, "the request body exceeds \(limit) bytes")
        }
    }

    /// The most the bookings API reads of a body: its requests are a few short fields.
    static let appBodyLimit = 4096

    /// `body` as a `T`; the app's dates are ISO 8601 text, the totems' are numbers.
    static func decode<T: Decodable>(_ type: T.Type, from body: ByteBuffer, isoDates: Bool = false) throws -> T {
        do {
            let decoder = JSONDecoder()
            if isoDates { decoder.dateDecodingStrategy = .iso8601 }
            return try decoder.decode(T.self, from: Data(buffer: body))
        } catch {
            throw HubError.badRequest("the body is not a \(T.self) (\(Self.describe(error)))")
        }
    }

    static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case let .keyNotFound(key, _)?: "no \"\(key.stringValue)\""
        case let .typeMismatch(_, context)?, let .valueNotFound(_, context)?, let .dataCorrupted(context)?:
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default: "not JSON"
        }
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONEncoder.hub.encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Every error leaves the hub as `{"error": {code, message, action}}` with its status; an
/// error the hub did not expect is logged and answered as an internal error, nothing more.
struct HubErrorMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError where !(error is HubError) {
            return HubServer.json(["error": CodedError(.badHubRequest, "\(error.status.reasonPhrase)")], status: error.status)
        } catch {
            let hub = HubDatabase.hubError(error)
            if hub.status.code >= 500 {
                logger.error("request failed", metadata: ["error": "\(hub.coded)", "detail": "\(hub.detail ?? "-")", "path": "\(request.uri.path)"])
            }
            return HubServer.json(["error": hub.coded], status: hub.status)
        }
    }
}

/// Lets through only the bearer of a configured token (compared as digests, so the time
/// taken says nothing of how much of it matched); with no token configured, the API is off.
struct BearerToken: RouterMiddleware {
    typealias Context = HubRequestContext
    let token: String?
    let minimumLength: Int
    let what: String
    let key: String
    let whenMissing: ErrorCode

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token, token.utf8.count >= minimumLength else {
            throw HubError(.notFound, whenMissing, "no \(what) on this hub: set [hub] \(key) (\(minimumLength) characters or more)")
        }
        let presented = request.headers[.authorization] ?? ""
        guard Data(SHA256.hash(data: Data(presented.utf8))) == Data(SHA256.hash(data: Data("Bearer \(token)".utf8))) else {
            throw HubError.unauthorized(.badSignature, "\(what): only for the bearer of [hub] \(key)")
        }
        return try await next(request, context)
    }
}

/// Checks a signed request: a known, unrevoked totem, signed with its device key, within the
/// replay window of the hub's clock, with a nonce never seen before.
struct DeviceAuthenticator: RouterMiddleware {
    typealias Context = HubRequestContext
    let database: HubDatabase

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let deviceID = request.headers[.init(RequestSignature.deviceHeader)!],
              let timeText = request.headers[.init(RequestSignature.timeHeader)!], let time = Int64(timeText),
              let nonce = request.headers[.init(RequestSignature.nonceHeader)!],
              let signature = request.headers[.init(RequestSignature.signatureHeader)!],
              deviceID.utf8.count <= 64, nonce.utf8.count == 32, signature.utf8.count <= 128
        else { throw HubError.unauthorized(.badSignature, "the request is not signed (CLup-Device, -Time, -Nonce, -Signature)") }
        let now = Date()
        let offset = Double(time) / 1000 - now.timeIntervalSince1970
        guard abs(offset) <= RequestSignature.replayWindow else {
            throw HubError.unauthorized(.staleRequest, "signed \(Int(offset)) s from the hub's time; at most \(Int(RequestSignature.replayWindow)) s")
        }
        var request = request
        let body = try await HubServer.body(of: &request, context: context)
        let logger = database.logger
        let found = try await database.withDeadline { [database] in
            try await database.client.withConnection { connection in
                try await connection.rows(BatchStatements.TotemKey(device: deviceID), logger).first
            }
        }
        guard let (store, letter, door, keyData, revoked) = found else {
            throw HubError.unauthorized(.unknownDevice, "no totem \(deviceID) is enrolled")
        }
        if let revoked { throw HubError(.forbidden, .revokedDevice, "totem \(deviceID) was revoked on \(revoked)") }
        let signed = RequestSignature(deviceID: deviceID, timeMillis: time, nonce: nonce, signature: signature)
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: keyData),
              signed.verifies(method: request.method.rawValue, path: request.uri.path, body: Data(buffer: body), key: key)
        else { throw HubError.unauthorized(.badSignature, "the signature is not totem \(deviceID)'s") }
        let accepted = try await database.withDeadline { [database] in
            try await database.client.withConnection { connection in
                try await !connection.rows(BatchStatements.KeepNonce(device: deviceID, nonce: nonce), logger).isEmpty
            }
        }
        guard accepted else { throw HubError(.conflict, .replayedRequest, "this request was received before") }
        // Nonces older than the window can no longer be replayed (the time check refuses them).
        if UInt8.random(in: 0...99) == 0 {
            try await database.client.query("""
                DELETE FROM request_nonce WHERE seen_at < now() - make_interval(secs => \(RequestSignature.replayWindow * 2))
                """, logger: logger)
        }
        var context = context
        context.device = AuthenticatedDevice(deviceID: deviceID, storeID: store, letter: letter, door: door)
        return try await next(request, context)
    }
}

extension ServiceGroupConfiguration {
    func withMaximumGracefulShutdown(_ duration: Duration) -> Self {
        var configuration = self
        configuration.maximumGracefulShutdownDuration = duration
        return configuration
    }
}
