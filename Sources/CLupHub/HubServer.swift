import UnixSignals
import CLupProtocol
import Hummingbird
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle

/// The hub's assembly: each feature's routes (its controller) composed into one router, and
/// the hub's services (the database's pools, then each feature's background round, then the
/// HTTPS server) run as one swift-service-lifecycle group.
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

    /// Every route of the hub: the features' controllers, each under its own guard (none, the
    /// panel's session, the app's token, a totem's signature).
    public func router() -> Router<HubRequestContext> {
        let router = Router(context: HubRequestContext.self)
        router.add(middleware: HubErrorMiddleware(logger: logger))
        let releases = ReleaseRepository(stateDirectory: settings.stateDirectoryPath)
        let origins = settings.origins.compactMap { WebOrigin($0) }
        let proxies = (try? TrustedProxies.parse(settings.trustedProxies).get()) ?? .none
        let bookings = Bookings(database: database), line = RemoteLine(database: database)
        let nearby = StoresNearby(database: database)

        HubStatusController(database: database, metrics: metrics, metricsToken: settings.metricsToken,
                            stateDirectory: settings.stateDirectoryPath, logger: logger)
            .addRoutes(to: router)
        RepositoryFiles(releases: releases).addRoutes(to: router)
        EnrolmentController(enrolment: Enrolment(database: database, releases: releases), logger: logger).addRoutes(to: router)
        Panel(database: database, releases: releases, origins: origins, proxies: proxies).addRoutes(to: router)
        LineSite(line: line, nearby: nearby, proxies: proxies, origins: origins, push: push).addRoutes(to: router)

        let app = router.group("/v1/stores/:store").add(middleware: BearerToken.app(settings.appToken, what: "the bookings API"))
        AppController(bookings: bookings, line: line).addRoutes(to: app)
        let near = router.group("/v1/nearby").add(middleware: BearerToken.app(settings.appToken, what: "the stores nearby"))
        NearbyController(nearby: nearby).addRoutes(to: near)

        let totems = router.group().add(middleware: DeviceAuthenticator(database: database))
        IngestController(ingest: Ingest(database: database)).addRoutes(to: totems)
        SettingsController(database: database, signals: signals).addRoutes(to: totems)
        LineController(database: database, signals: signals).addRoutes(to: totems)
        TotemBookingsController(bookings: bookings, screens: RemoteScreens(database: database)).addRoutes(to: totems)
        return router
    }

    /// The hub's background work, each a `Service` that starts once the pools run.
    func rounds() -> [any Service] {
        [SettingsListener(signals: signals, database: database, logger: logger),
         Rollouts.round(database, logger: logger),
         Retention.round(database, logger: logger),
         RemoteScreens.round(database, logger: logger),
         Bookings.reminderRound(database, logger: logger),
         NoticeService(database: database, gateway: gateway, push: push, logger: logger)]
    }

    /// Serves until SIGTERM or SIGINT: HTTPS on `[hub] host:port`. The pools start first and
    /// stop last; on SIGTERM the server drains, then the rounds end, then the pools. The
    /// whole stop takes `shutdownGrace` at most (a long poll, a batch waiting on a
    /// PostgreSQL that is stopping too, or gone); then what is left is cancelled.
    public func run(tls: TLSConfiguration) async throws {
        // A client that does not answer TLS's goodbye (close_notify) holds a stopping hub
        // for NIOSSL's 5 s by default; a second is plenty on a hub's network.
        var tls = tls
        tls.shutdownTimeout = .seconds(1)
        var app = Application(router: router(), server: try .tls(.http1(), tlsConfiguration: tls),
                              configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: nil),
                              logger: logger)
        app.beforeServerStarts { [database] in await database.running() }
        let services: [any Service] = [database] + rounds() + [app]
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint],
                                                      cancellationSignals: [], logger: logger)
        configuration.maximumGracefulShutdownDuration = Self.shutdownGrace
        try await ServiceGroup(configuration: configuration).run()
    }

    /// How long SIGTERM lets requests under way, then the rounds, finish before they are cancelled.
    static let shutdownGrace: Duration = .seconds(2)
}
