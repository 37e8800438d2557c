import CLupCore
import PostgresNIO
import CLupProtocol
import Foundation
import Hummingbird
import Logging
import NIOCore

/// What anyone may ask of the hub itself: whether it and its database answer, the hub's
/// time (totems measure their clock's offset against it), and its metrics for Prometheus
/// (for the bearer of `[hub] metrics_token`).
struct HubStatusController {
    let database: HubDatabase
    let metrics: HubMetrics?
    let metricsToken: String?
    /// The hub's state directory, whose filesystem's fill the metrics give.
    let stateDirectory: String
    let logger: Logger

    func addRoutes(to router: some RouterMethods<HubRequestContext>) {
        router.get("/v1/health") { [database, logger] _, _ in
            _ = try await database.withDeadline { try await database.client.query("SELECT 1", logger: logger) }
            return HubMessage.json(["ok": true])
        }
        router.get(RouterPath(HubWire.timePath)) { _, _ in
            HubMessage.json(HubTime(hubTime: Date().timeIntervalSince1970))
        }
        // What to check and do for each alert the shipped rules raise (docs/runbooks.md).
        router.get("/runbooks") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(string: RunbookPage.html)))
        }
        router.group().add(middleware: BearerToken(token: metrics == nil ? nil : metricsToken, minimumLength: 16, what: "metrics",
                                                   key: "metrics_token", whenMissing: .badHubRequest))
            .get("/metrics") { [metrics, database, stateDirectory] _, _ in
                guard let metrics else { throw HubError(.notFound, .badHubRequest, "metrics are off") }
                return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                                body: .init(byteBuffer: ByteBuffer(string: await metrics.scrape(database, stateDirectory: stateDirectory))))
            }
    }
}
