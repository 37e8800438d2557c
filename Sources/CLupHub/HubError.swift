import CLupCore
import HTTPTypes

/// An error the hub answers with: the HTTP status and, as the body, the coded error.
public struct HubError: Error, CodedErrorConvertible {
    public let status: HTTPResponse.Status
    public let coded: CodedError

    public init(_ status: HTTPResponse.Status, _ code: ErrorCode, _ message: String) {
        self.status = status
        coded = CodedError(code, message)
    }

    static func badRequest(_ message: String) -> HubError { HubError(.badRequest, .badHubRequest, message) }
    static func unauthorized(_ code: ErrorCode, _ message: String) -> HubError { HubError(.unauthorized, code, message) }
}
