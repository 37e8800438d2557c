import NIOFoundationCompat
import CLupCore
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import PostgresNIO

/// An app request sent again after a lost answer is answered as the first time, never done
/// twice: the `Idempotency-Key` header of the IETF draft "The Idempotency-Key HTTP Header
/// Field". The key, what was asked (method, path, body) and the answer are kept in the
/// same transaction as what the request did (`HubDatabase.transaction(once:_:)`), so a
/// request either happened and its answer is kept, or neither; keys are kept 24 hours.
/// The same key again: the kept answer. The same key with another request: 422. The same
/// key twice at once: the second waits for the first and gets its answer.
struct IdempotencyKey: Sendable {
    let key: String
    /// SHA-256 of the method, the path and the body.
    let fingerprint: Data

    static let header = HTTPField.Name("Idempotency-Key")!
    /// How long a key and its answer are kept.
    static let keptSeconds = 86_400.0

    /// The request's key, if it sent one; a key that is no key is a 400.
    static func of(_ request: Request, body: ByteBuffer) throws -> IdempotencyKey? {
        guard var key = request.headers[header] else { return nil }
        // The draft writes the key as a structured-field string ("…"); a bare token is taken too.
        if key.count >= 2, key.hasPrefix("\""), key.hasSuffix("\"") { key = String(key.dropFirst().dropLast()) }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\"") }) else {
            throw HubError.badRequest("Idempotency-Key is 1 to 255 printable characters, without spaces or quotes inside")
        }
        var hash = SHA256()
        hash.update(data: Data("\(request.method.rawValue) \(request.uri.path)\n".utf8))
        hash.update(data: Data(buffer: body))
        return IdempotencyKey(key: key, fingerprint: Data(hash.finalize()))
    }
}

extension HubDatabase {
    /// `body` in a transaction, once for `key`: its answer is kept with the key, and the same
    /// request under the same key is answered with it, without running `body` again.
    func transaction<T: Codable & Sendable>(once key: IdempotencyKey?, _ body: @escaping @Sendable (PostgresConnection) async throws -> T)
        async throws -> T {
        guard let key else { return try await transaction(body) }
        let logger = self.logger
        return try await transaction { connection in
            // A second request with this key waits here for the first one's transaction.
            let fresh = try await connection.all("""
                INSERT INTO app_request (idempotency_key, fingerprint) VALUES (\(key.key), \(key.fingerprint))
                ON CONFLICT (idempotency_key) DO UPDATE SET fingerprint = excluded.fingerprint, answer = NULL, made_at = now()
                    WHERE app_request.made_at < now() - make_interval(secs => \(IdempotencyKey.keptSeconds))
                RETURNING true
                """, as: Bool.self, logger).first ?? false
            if !fresh {
                guard let (fingerprint, answer) = try await connection.rows("""
                    SELECT fingerprint, answer FROM app_request WHERE idempotency_key = \(key.key)
                    """, as: (Data, Data?).self, logger).first, fingerprint == key.fingerprint, let answer
                else {
                    throw HubError(.unprocessableContent, .idempotencyKeyReused,
                                   "Idempotency-Key \"\(TypedText.kept(key.key, maximum: 64))\" came with another request before")
                }
                return try JSONDecoder.hub.decode(T.self, from: answer)
            }
            let value = try await body(connection)
            try await connection.query("""
                UPDATE app_request SET answer = \(try JSONEncoder.hub.encode(value)) WHERE idempotency_key = \(key.key)
                """, logger: logger)
            return value
        }
    }
}

extension JSONEncoder {
    /// The hub's answers: keys sorted, dates in ISO 8601.
    static var hub: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

extension JSONDecoder {
    static var hub: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
