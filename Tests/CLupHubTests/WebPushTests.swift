@testable import CLupHub
import Crypto
import Foundation
import XCTest

/// A push message as RFC 8291 and RFC 8292 say it is made; the RFC's own example first.
final class WebPushTests: XCTestCase {
    func data(_ text: String) throws -> Data { try XCTUnwrap(WebPush.base64URL(text)) }

    /// RFC 8291, appendix A: the same keys, salt and secret give the same bytes.
    func test_theRFCsExampleIsEncryptedToTheRFCsBytes() throws {
        let sender = try P256.KeyAgreement.PrivateKey(rawRepresentation: data("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"))
        XCTAssertEqual(WebPush.base64URL(sender.publicKey.x963Representation),
                       "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
        let subscription = WebPush.Subscription(endpoint: "https://push.example.net/push/JzLQ3raZJfFBR0aqvOMsLrt54w4rJUsV",
                                                keys: .init(p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                                                            auth: "BTBZMqHH6r4Tts7J_aSIgg"))
        let (key, auth) = try XCTUnwrap(subscription.material())
        let body = try WebPush.encrypt(Data("When I grow up, I want to be a watermelon".utf8), for: key, auth: auth, sender: sender,
                                       salt: data("DGv6ra1nlYgDCS1FRnbzlw"))
        XCTAssertEqual(WebPush.base64URL(body), """
            DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN
            """)
    }

    func test_aSubscriptionWhoseKeysAreNotWhatTheRFCSaysIsRefused() {
        let good = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        for (p256dh, auth) in [(String(good.dropLast(4)), "BTBZMqHH6r4Tts7J_aSIgg"), (good, "BTBZMqHH6r4T"), ("not base64!", "BTBZMqHH6r4Tts7J_aSIgg"),
                               // A point that is not on the curve.
                               ("BAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "BTBZMqHH6r4Tts7J_aSIgg")] {
            XCTAssertNil(WebPush.Subscription(endpoint: "https://push.example.net/x", keys: .init(p256dh: p256dh, auth: auth)).material(), p256dh)
        }
    }

    /// The VAPID header: a JWT for the endpoint's origin, no longer than a day, signed with
    /// the key it names (checked here with the public key alone, as a push service does).
    func test_theVapidHeaderIsAJWTForTheEndpointsOriginSignedByTheKeyItNames() throws {
        let key = P256.Signing.PrivateKey()
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let header = try WebPush.authorization(endpoint: URL(string: "https://push.example.net:8443/push/abc")!, subject: "mailto:ops@chain.example",
                                               key: key, now: now)
        let parts = header.split(separator: " ")
        XCTAssertEqual(parts.first, "vapid")
        let token = String(try XCTUnwrap(parts.first { $0.hasPrefix("t=") }).dropFirst(2).dropLast())
        let named = String(try XCTUnwrap(parts.first { $0.hasPrefix("k=") }).dropFirst(2))
        let pieces = token.split(separator: ".").map(String.init)
        XCTAssertEqual(pieces.count, 3)
        let claims = try XCTUnwrap(try JSONSerialization.jsonObject(with: data(pieces[1])) as? [String: Any])
        XCTAssertEqual(claims["aud"] as? String, "https://push.example.net:8443")
        XCTAssertEqual(claims["sub"] as? String, "mailto:ops@chain.example")
        XCTAssertEqual(claims["exp"] as? Int, 1_795_000_000 + 12 * 3600)
        let publicKey = try P256.Signing.PublicKey(x963Representation: data(named))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: data(pieces[2]))
        XCTAssertTrue(publicKey.isValidSignature(signature, for: Data("\(pieces[0]).\(pieces[1])".utf8)))
    }

    func test_aMessageLargerThanOneRecordIsRefused() throws {
        let browser = P256.KeyAgreement.PrivateKey()
        XCTAssertThrowsError(try WebPush.encrypt(Data(count: WebPush.maximumPlaintext + 1), for: browser.publicKey, auth: Data(count: 16)))
        XCTAssertNoThrow(try WebPush.encrypt(Data(count: WebPush.maximumPlaintext), for: browser.publicKey, auth: Data(count: 16)))
    }
}
