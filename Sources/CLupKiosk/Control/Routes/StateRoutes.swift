import Logging
import CLupCore
import CLupProtocol
import Foundation

/// The totem's state: status, configuration, metrics and the sync with the hub.
extension Daemon {
    func routeState(_ router: ControlRouter) {
        router.on(Control.Hello.self) { [unowned self] _, context in hello(technician: context.technician) }
        router.on(Control.Status.self) { [unowned self] _, _ in try statusReport() }
        router.on(Control.Configuration.self) { [unowned self] _, _ in
            ConfigurationReport(source: configuration.source, toml: config.toml(comments: true))
        }
        router.on(Control.Metrics.self) { [unowned self] _, _ in metricsText() }
        router.on(Control.Sync.self) { [unowned self] _, _ in syncReport() }
        router.on(Control.UpdateWindow.self) { [unowned self] _, _ in updateWindow() }
        // Answered once the attempt it starts has ended (or `SyncClient.askedWait` has passed):
        // the technician sees how that attempt went, not the state before it.
        router.later(Control.SyncNow.self) { [unowned self] _, context in
            guard hub.sync != nil else { throw CodedError(.notEnrolled, "this totem is not enrolled at a hub, so it has nothing to sync") }
            logger.info("sync asked for", metadata: ["by": "\(context.who)"])
            let pending = PendingReply<SyncReport>("the sync asked for", seconds: SyncClient.askedWait + 5)
            let tried = loop.expect { [unowned self] (_: Bool) in pending.finish(.success(syncReport())) }
            // The attempt carries the totem's health as it is now (a check of its files just
            // run, a device just fixed), not as of the last look at the printer (up to a minute ago).
            hub.sync?.report(healthForTheHub)
            hub.syncNow { tried.send(true) }
            return .later(pending)
        }
    }
}
