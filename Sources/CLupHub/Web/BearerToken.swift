import CLupCore
import Crypto
import Foundation
import Hummingbird

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

extension BearerToken {
    /// The app's API (`[hub] app_token`): with no token, "no bookings on this hub".
    static func app(_ token: String?, what: String) -> Self {
        Self(token: token, minimumLength: 32, what: what, key: "app_token", whenMissing: .bookingsOff)
    }
}
