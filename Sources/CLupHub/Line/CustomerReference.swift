import CLupProtocol
import Crypto
import Foundation

/// Whose a place in a line is. The chain's app names its customer by an opaque reference
/// it chose (the app is the bearer of `[hub] app_token`); the website gives each visitor
/// who joins a token of its own, 256 random bits, which only their browser holds (the hub
/// keeps its SHA-256). The two never share a name: a website reference is stored as
/// `web:` and a digest, and an app's reference cannot hold a colon. So a cookie set to an
/// app customer's reference, or to anything a client made up, finds nothing.
enum CustomerReference: Hashable, Sendable {
    case app(String)
    case website(token: String)

    /// The app's reference for its customer: opaque, short, no spaces (never a name or a phone number).
    static func app(checking reference: String) throws -> CustomerReference {
        guard (8...64).contains(reference.utf8.count),
              reference.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else { throw HubError.badRequest("customerRef is the app's opaque reference: 8 to 64 letters, digits, - or _") }
        return .app(reference)
    }

    /// A visitor's token as their browser sends it back, if it is one the website could have made.
    static func website(cookie: String?) -> CustomerReference? {
        guard let cookie, cookie.utf8.count == tokenLength,
              cookie.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else { return nil }
        return .website(token: cookie)
    }

    /// A new visitor's token: 32 bytes from the system's CSPRNG, base64url without padding.
    static func newWebsiteToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static let tokenLength = 43

    /// What the hub keeps: the app's reference, or `web:` and the token's SHA-256.
    var stored: String {
        switch self {
        case let .app(reference): reference
        case let .website(token): "web:" + HubWire.hex(SHA256.hash(data: Data(token.utf8)))
        }
    }

    var isWebsite: Bool { if case .website = self { true } else { false } }
}
