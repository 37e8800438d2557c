import CLupCore
import Hummingbird
import Logging

/// Every error leaves the hub as `{"error": {code, message, action}}` with its status; an
/// error the hub did not expect is logged and answered as an internal error, nothing more.
struct HubErrorMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {  // Hummingbird's own (HubError is not one)
            return HubMessage.json(["error": CodedError(.badHubRequest, "\(error.status.reasonPhrase)")], status: error.status)
        } catch {
            let hub = HubDatabase.hubError(error)
            if hub.status.code >= 500 {
                logger.error("request failed", metadata: ["error": "\(hub.coded)", "detail": "\(hub.detail ?? "-")", "path": "\(request.uri.path)"])
            }
            return HubMessage.json(["error": hub.coded], status: hub.status)
        }
    }
}
