import CLupCore
import Hummingbird
import NIOCore
import CLupProtocol

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

extension HubRequestContext {
    /// The totem that signed the request (`DeviceAuthenticator`), on routes only totems use.
    func totem() throws -> AuthenticatedDevice {
        guard let device else { throw HubError.unauthorized(.badSignature, "unsigned request") }
        return device
    }
}
