import AsyncHTTPClient
import Logging
import ServiceLifecycle

/// The hub's service that sends the notices due (`NoticeDelivery.run`), over an HTTP client
/// of its own, from once the database's pool runs until the hub's graceful shutdown. With
/// neither a gateway nor Web Push configured, notices stay queued and it only waits.
struct NoticeService: Service {
    let database: HubDatabase
    let gateway: NoticeGateway?
    let push: PushService?
    let logger: Logger
    /// With none due, how long until it looks again: a notice leaves about a second after it is queued.
    var pause: Duration = .seconds(1)

    func run() async {
        if gateway == nil { logger.info("the app's customers' notices are kept queued: no [notices] webhook_url") }
        if push == nil { logger.info("the website offers no Web Push: no [notices] push_subject") }
        guard gateway != nil || push != nil else {
            try? await gracefulShutdown()
            return
        }
        await database.running()
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: NoticeDelivery.clientConfiguration)
        let delivery = NoticeDelivery(database: database, gateway: gateway, push: push, client: client)
        await cancelWhenGracefulShutdown { [pause] in await delivery.run(pause: pause) }
        try? await client.shutdown()
    }
}
