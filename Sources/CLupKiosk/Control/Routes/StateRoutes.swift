import CLupCore
import CLupProtocol
import Foundation

/// The totem's state: status, configuration, metrics and the sync with the hub.
extension Daemon {
    func routeState(_ router: ControlRouter) {
        router.on(Control.Status.self) { [unowned self] _, _ in try statusReport() }
        router.on(Control.Configuration.self) { [unowned self] _, _ in
            ConfigurationReport(source: configuration.source, toml: config.toml(comments: true))
        }
        router.on(Control.Metrics.self) { [unowned self] _, _ in metricsText() }
        router.on(Control.Sync.self) { [unowned self] _, _ in syncReport() }
        router.on(Control.UpdateWindow.self) { [unowned self] _, _ in updateWindow() }
        router.on(Control.SyncNow.self) { [unowned self] _, context in
            guard let sync = hub.sync else { throw CodedError(.notEnrolled, "this totem is not enrolled at a hub, so it has nothing to sync") }
            sync.syncNow()
            logger.info("sync asked for", metadata: ["by": "\(context.who)"])
            return syncReport()
        }
    }
}
