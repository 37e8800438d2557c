import CLupCore
import NIOFoundationCompat
import CLupProtocol
import Crypto
import Foundation
import Hummingbird
import PostgresNIO

/// The totem that signed a request, as the hub knows it.
public struct AuthenticatedDevice: Sendable {
    public let deviceID: DeviceID
    public let storeID: StoreID
    public let letter: String
    /// The door it was enrolled at: the only door its passages and corrections may name.
    public let door: DoorName
}

/// Checks a signed request: a known, unrevoked totem, signed with its device key, within the
/// replay window of the hub's clock, with a nonce never seen before.
struct DeviceAuthenticator: RouterMiddleware {
    typealias Context = HubRequestContext
    let database: HubDatabase

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let deviceText = request.headers[.init(RequestSignature.deviceHeader)!],
              let timeText = request.headers[.init(RequestSignature.timeHeader)!], let time = Int64(timeText),
              let nonce = request.headers[.init(RequestSignature.nonceHeader)!],
              let signature = request.headers[.init(RequestSignature.signatureHeader)!],
              deviceText.utf8.count <= 64, nonce.utf8.count == 32, signature.utf8.count <= 128
        else { throw HubError.unauthorized(.badSignature, "the request is not signed (CLup-Device, -Time, -Nonce, -Signature)") }
        let deviceID = DeviceID(deviceText)
        let now = Date()
        let offset = Double(time) / 1000 - now.timeIntervalSince1970
        guard abs(offset) <= RequestSignature.replayWindow else {
            throw HubError.unauthorized(.staleRequest, "signed \(Int(offset)) s from the hub's time; at most \(Int(RequestSignature.replayWindow)) s")
        }
        var request = request
        let body = try await HubMessage.body(of: &request, context: context)
        let logger = database.logger
        let found = try await database.withDeadline { [database] in
            try await database.withConnection { connection in
                try await connection.rows(BatchStatements.TotemKey(device: deviceID), logger).first
            }
        }
        guard let (store, letter, door, keyData, revoked) = found else {
            throw HubError.unauthorized(.unknownDevice, "no totem \(deviceID) is enrolled")
        }
        if let revoked { throw HubError(.forbidden, .revokedDevice, "totem \(deviceID) was revoked on \(revoked)") }
        let signed = RequestSignature(deviceID: deviceText, timeMillis: time, nonce: nonce, signature: signature)
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: keyData),
              signed.verifies(method: request.method.rawValue, path: request.uri.path, body: Data(buffer: body), key: key)
        else { throw HubError.unauthorized(.badSignature, "the signature is not totem \(deviceID)'s") }
        let accepted = try await database.withDeadline { [database] in
            try await database.withConnection { connection in
                try await !connection.rows(BatchStatements.KeepNonce(device: deviceID, nonce: nonce), logger).isEmpty
            }
        }
        guard accepted else { throw HubError(.conflict, .replayedRequest, "this request was received before") }
        // Nonces older than the window can no longer be replayed (the time check refuses them).
        if UInt8.random(in: 0...99) == 0 {
            try await database.client.query("""
                DELETE FROM request_nonce WHERE seen_at < now() - make_interval(secs => \(RequestSignature.replayWindow * 2))
                """, logger: logger)
        }
        var context = context
        context.device = AuthenticatedDevice(deviceID: deviceID, storeID: store, letter: letter, door: door)
        return try await next(request, context)
    }
}
