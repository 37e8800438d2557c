import CLupCore
import Logging
import ServiceLifecycle

/// One of the hub's background rounds (the rollout moved on, old days retired, reminders
/// queued): `body` every `interval`, as a swift-service-lifecycle `Service` in the hub's
/// group (`HubServer.services`). It starts once the database's pool runs (so nothing leases
/// from a pool not yet running), and ends at the hub's graceful shutdown. A round that fails
/// (the database away) is logged, once until one succeeds, and the next one tries again.
struct Round: Service {
    let name: String
    let interval: Duration
    let database: HubDatabase
    let logger: Logger
    let body: @Sendable () async throws -> Void

    func run() async {
        await database.running()
        await cancelWhenGracefulShutdown { [self] in await repeatUntilCancelled() }
    }

    private func repeatUntilCancelled() async {
        var failing = false
        while !Task.isCancelled {
            do {
                try await body()
                failing = false
            } catch {
                if !failing { logger.warning("\(name) failed; trying again", metadata: ["error": "\(HubDatabase.hubError(error).coded.message)"]) }
                failing = true
            }
            try? await Task.sleep(for: interval)
        }
    }
}
