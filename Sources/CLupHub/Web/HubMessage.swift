import CLupCore
import NIOFoundationCompat
import Foundation
import Hummingbird
import NIOCore

/// Reading a request's body and writing a JSON answer, the same way for every feature's routes.
enum HubMessage {
    /// The request's body, at most `limit` bytes (a totem's batch may be large; what the app
    /// sends is a few fields, `appBodyLimit`).
    static func body(of request: inout Request, context: HubRequestContext, limit: Int? = nil) async throws -> ByteBuffer {
        let limit = min(limit ?? context.maxUploadSize, context.maxUploadSize)
        do {
            return try await request.collectBody(upTo: limit)
        } catch {
            throw HubError(.contentTooLarge, .badHubRequest, "the request body exceeds \(limit) bytes")
        }
    }

    /// The most the bookings API reads of a body: its requests are a few short fields.
    static let appBodyLimit = 4096

    /// `body` as a `T`; the app's dates are ISO 8601 text, the totems' are numbers.
    static func decode<T: Decodable>(_ type: T.Type, from body: ByteBuffer, isoDates: Bool = false) throws -> T {
        do {
            let decoder = JSONDecoder()
            if isoDates { decoder.dateDecodingStrategy = .iso8601 }
            return try decoder.decode(T.self, from: Data(buffer: body))
        } catch {
            throw HubError.badRequest("the body is not a \(T.self) (\(Self.describe(error)))")
        }
    }

    static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case let .keyNotFound(key, _)?: "no \"\(key.stringValue)\""
        case let .typeMismatch(_, context)?, let .valueNotFound(_, context)?, let .dataCorrupted(context)?:
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default: "not JSON"
        }
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONEncoder.hub.encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
