import Logging
import CLupCore
import HTTPTypes
import Hummingbird

/// An origin as a browser names it in `Origin`: https, a host and a port (443 left out).
struct WebOrigin: Hashable, Sendable {
    let text: String

    init?(_ text: String) {
        guard text.utf8.count <= 256, text.lowercased().hasPrefix("https://") else { return nil }
        let authority = text.dropFirst("https://".count).lowercased()
        guard !authority.isEmpty, !authority.contains(where: { "/?#@ \\".contains($0) || !$0.isASCII }) else { return nil }
        self.text = "https://" + (authority.hasSuffix(":443") ? String(authority.dropLast(4)) : authority)
    }

    /// The origin of a page served with `host` as its Host header.
    init?(host: String) {
        self.init("https://" + host)
    }
}

/// Lets a form's POST through only when the browser says it came from a page of this hub:
/// `Sec-Fetch-Site: same-origin` where the browser sends it, and an `Origin` that is this
/// hub's (the request's own Host, or one of `[hub] origins` behind a proxy that rewrites it).
/// `SameSite=Strict` cookies alone let a page of the same host at another port post in a
/// visitor's name (issue 40); a request with no `Origin` at all is no browser's form and is
/// refused too. What is refused gets `refusal`'s page, 403.
struct SameOriginMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext
    let origins: [WebOrigin]
    let refusal: @Sendable (Request) -> Response

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard [.get, .head, .options].contains(request.method) || Self.isSameOrigin(request.headers, host: request.head.authority, origins: origins)
        else {
            context.logger.notice("a cross-site form was refused", metadata: [
                "path": "\(request.uri.path.prefix(64))", "origin": "\(TypedText.kept(request.headers[.origin] ?? "none", maximum: 80))",
            ])
            return refusal(request)
        }
        return try await next(request, context)
    }

    /// Whether a state-changing request with `headers`, sent to `host`, came from this hub's pages.
    static func isSameOrigin(_ headers: HTTPFields, host: String?, origins: [WebOrigin]) -> Bool {
        if let site = headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin" { return false }
        guard let origin = headers[.origin], let sent = WebOrigin(origin) else { return false }
        return origins.contains(sent) || host.flatMap(WebOrigin.init(host:)) == sent
    }
}
