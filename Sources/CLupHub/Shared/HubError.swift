import CLupCore
import HTTPTypes

/// An error the hub answers with: the HTTP status and, as the body, the coded error.
///
/// `detail` is for the hub's log only (PostgreSQL's own words, a SQLSTATE): no database text
/// ever reaches a client.
public struct HubError: Error, CodedErrorConvertible {
    public let status: HTTPResponse.Status
    public let coded: CodedError
    public let detail: String?

    public init(_ status: HTTPResponse.Status, _ code: ErrorCode, _ message: String, detail: String? = nil) {
        self.status = status
        coded = CodedError(code, message)
        self.detail = detail
    }

    static func badRequest(_ message: String) -> HubError { HubError(.badRequest, .badHubRequest, message) }
    static func unauthorized(_ code: ErrorCode, _ message: String) -> HubError { HubError(.unauthorized, code, message) }
}
