import Crypto
import Foundation

/// A message to a browser through its push service (RFC 8030), encrypted for that browser
/// alone (RFC 8291: aes128gcm, with a key agreed between a fresh key of the hub's and the
/// browser's, and the browser's secret) and signed as the chain's (RFC 8292, VAPID: an ES256
/// JWT whose key the browser was told when it subscribed). The push service sees the
/// endpoint, the size and the time; never what the message says.
enum WebPush {
    /// What a browser gave when its visitor asked to be told (`PushSubscription.toJSON()`).
    struct Subscription: Codable, Equatable, Sendable {
        let endpoint: String
        let keys: Keys

        struct Keys: Codable, Equatable, Sendable {
            /// The browser's P-256 public key, uncompressed (65 bytes), base64url.
            let p256dh: String
            /// Its 16-byte authentication secret, base64url.
            let auth: String
        }

        /// The browser's key and secret, if they are what RFC 8291 says they are.
        func material() -> (key: P256.KeyAgreement.PublicKey, auth: Data)? {
            guard let point = base64URL(keys.p256dh), point.count == 65, point.first == 4,
                  let key = try? P256.KeyAgreement.PublicKey(x963Representation: point),
                  let auth = base64URL(keys.auth), auth.count == 16
            else { return nil }
            return (key, auth)
        }
    }

    /// The record size the message declares: it is sent as one record.
    static let recordSize: UInt32 = 4096
    /// The largest message: one record, less the padding delimiter and the tag.
    static let maximumPlaintext = Int(recordSize) - 17

    /// `plaintext` encrypted for `subscriber` (RFC 8291, section 3.4), with the hub's fresh
    /// key `sender` and `salt` (both random for every message; given here for the RFC's test vector).
    static func encrypt(_ plaintext: Data, for subscriber: P256.KeyAgreement.PublicKey, auth: Data,
                        sender: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey(),
                        salt: Data = randomBytes(16)) throws -> Data {
        guard plaintext.count <= maximumPlaintext else { throw WebPushError.tooLarge(plaintext.count) }
        let secret = try sender.sharedSecretFromKeyAgreement(with: subscriber).withUnsafeBytes { Data($0) }
        let receiverKey = subscriber.x963Representation, senderKey = sender.publicKey.x963Representation
        // IKM = HKDF(auth, ecdh_secret, "WebPush: info" || 0 || ua_public || as_public, 32)
        let info = Data("WebPush: info".utf8) + [0] + receiverKey + senderKey
        let ikm = hkdf(salt: auth, secret: secret, info: info, length: 32)
        let cek = hkdf(salt: salt, secret: ikm, info: Data("Content-Encoding: aes128gcm".utf8) + [0], length: 16)
        let nonce = hkdf(salt: salt, secret: ikm, info: Data("Content-Encoding: nonce".utf8) + [0], length: 12)
        // One record, the last: the plaintext and the delimiter 2, no padding.
        let sealed = try AES.GCM.seal(plaintext + [2], using: SymmetricKey(data: cek), nonce: AES.GCM.Nonce(data: nonce))
        var body = salt
        body.append(contentsOf: withUnsafeBytes(of: recordSize.bigEndian) { Array($0) })
        body.append(UInt8(senderKey.count))
        body.append(senderKey)
        body.append(sealed.ciphertext)
        body.append(sealed.tag)
        return body
    }

    /// HKDF-SHA-256 (RFC 5869), at most one block of output.
    static func hkdf(salt: Data, secret: Data, info: Data, length: Int) -> Data {
        let prk = HMAC<SHA256>.authenticationCode(for: secret, using: SymmetricKey(data: salt))
        let okm = HMAC<SHA256>.authenticationCode(for: info + [1], using: SymmetricKey(data: Data(prk)))
        return Data(okm).prefix(length)
    }

    /// The `Authorization` header for a message to `endpoint` (RFC 8292): `vapid t=JWT, k=KEY`,
    /// the JWT for the endpoint's origin, good for 12 hours (a push service refuses over 24).
    static func authorization(endpoint: URL, subject: String, key: P256.Signing.PrivateKey, now: Date = Date()) throws -> String {
        guard let scheme = endpoint.scheme, let host = endpoint.host else { throw WebPushError.notAnEndpoint }
        let origin = "\(scheme)://\(host)" + (endpoint.port.map { ":\($0)" } ?? "")
        let header = base64URL(Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims = try JSONSerialization.data(withJSONObject: [
            "aud": origin, "exp": Int(now.timeIntervalSince1970) + 12 * 3600, "sub": subject,
        ], options: [.sortedKeys])
        let signed = header + "." + base64URL(claims)
        let signature = try key.signature(for: Data(signed.utf8)).rawRepresentation
        return "vapid t=\(signed).\(base64URL(signature)), k=\(base64URL(key.publicKey.x963Representation))"
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func base64URL(_ text: String) -> Data? {
        guard text.utf8.count <= 256 else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }

    static func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}

enum WebPushError: Error, Equatable {
    case tooLarge(Int)
    case notAnEndpoint
}
