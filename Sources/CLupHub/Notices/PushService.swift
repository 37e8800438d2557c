import NIOFoundationCompat
import NIOHTTP1
import AsyncHTTPClient
import CLupConfig
import CLupCore
import Crypto
import Foundation
import NIOCore
import PostgresNIO

/// Web Push for the website's visitors who asked to be told (`PushSubscriptions`): their
/// notices (`called`, `delayed`, `cancelled`) go to their browser's push service, encrypted
/// for the browser and signed as the chain's (`WebPush`), in the language they chose.
/// The hub posts only to the push services the chain lists (`[notices] push_services`):
/// the endpoint is the visitor's to choose, the hosts the hub reaches are not.
public struct PushService: Sendable {
    /// The VAPID key's raw bytes (the key type is not `Sendable`).
    let key: Data
    let subject: String
    let services: [String]

    /// The key's file in the hub's state directory, made by `clup-hub init`.
    public static func keyPath(stateDirectory: String) -> String { stateDirectory + "/push-key.pem" }

    /// Makes the VAPID key if there is none yet (readable by the hub alone); whether it made one.
    public static func makeKeyIfNeeded(stateDirectory: String) throws(HubError) -> Bool {
        let path = keyPath(stateDirectory: stateDirectory)
        guard !FileManager.default.fileExists(atPath: path), !HubSecret.pushKey.isSealed() else { return false }
        try HubCertificates.write(P256.Signing.PrivateKey().pemRepresentation, to: path, mode: 0o600)
        return true
    }

    /// Web Push as `settings` configure it, or nil when it is off (no `push_subject`).
    public init?(_ settings: NoticeSettings, stateDirectory: String, file: String) throws(ConfigurationError) {
        guard let subject = settings.pushSubject, !subject.isEmpty else { return nil }
        guard subject.utf8.count <= 200, subject.hasPrefix("mailto:") || subject.hasPrefix("https://") else {
            throw ConfigurationError(file: file, line: nil, key: "notices.push_subject",
                                     problem: "\(subject.prefix(64)) is not a mailto: or https: contact (RFC 8292)")
        }
        let path = HubSecret.pushKey.path(else: Self.keyPath(stateDirectory: stateDirectory)) ?? ""
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8), let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
            throw ConfigurationError(file: file, line: nil, key: "notices.push_subject",
                                     problem: "Web Push needs the hub's key \(path), which clup-hub init makes")
        }
        self.init(key: key, subject: subject, services: settings.pushServices)
    }

    init(key: P256.Signing.PrivateKey, subject: String, services: [String]) {
        self.key = key.rawRepresentation
        self.subject = subject
        self.services = services
    }

    /// The key a browser subscribes with (`applicationServerKey`), base64url.
    public var publicKey: String {
        WebPush.base64URL((try? P256.Signing.PrivateKey(rawRepresentation: key))?.publicKey.x963Representation ?? Data())
    }

    /// `endpoint` if the hub sends there: https (http on loopback, for a push service that
    /// runs there) to a host the chain lists.
    func allowed(_ endpoint: String) -> URL? {
        guard endpoint.utf8.count <= 1024, let url = URL(string: endpoint), let host = url.host?.lowercased(), url.user == nil,
              url.scheme == "https" || (url.scheme == "http" && ["127.0.0.1", "localhost", "::1"].contains(host))
        else { return nil }
        let listed = services.contains { service in
            let service = service.lowercased()
            return service.hasPrefix("*.") ? host.hasSuffix(service.dropFirst()) : host == service
        }
        return listed ? url : nil
    }

    /// One attempt at `notice`: to the browser that subscribed for its customer, if one did.
    func send(_ notice: NoticeDelivery.Leased, database: HubDatabase, client: HTTPClient, timeout: TimeAmount) async -> NoticeDelivery.Outcome {
        let found: (String, Data, Data, String)?
        do {
            found = try await database.withDeadline { [logger = database.logger] in
                try await database.withConnection { connection in
                    try await connection.rows("""
                        SELECT endpoint, p256dh, auth, language FROM push_subscription WHERE customer_ref = \(notice.customerRef)
                        """, as: (String, Data, Data, String).self, logger).first
                }
            }
        } catch {
            return .failed("the visitor's subscription could not be read: \(HubDatabase.hubError(error).coded.message)", final: false)
        }
        guard let (endpoint, p256dh, auth, language) = found else { return .dropped("the visitor did not ask to be told") }
        guard let url = allowed(endpoint), let browser = try? P256.KeyAgreement.PublicKey(x963Representation: p256dh),
              let signer = try? P256.Signing.PrivateKey(rawRepresentation: key)
        else { return .failed("the subscription's endpoint is not a push service this hub sends to", final: true) }
        let words = SiteWords(SiteLanguage(rawValue: language) ?? .english)
        let message = PushMessage(notice, words: words)
        let request: HTTPClientRequest
        do {
            var built = HTTPClientRequest(url: url.absoluteString)
            built.method = .POST
            built.headers.add(name: "Content-Type", value: "application/octet-stream")
            built.headers.add(name: "Content-Encoding", value: "aes128gcm")
            // A call is worth little an hour on; the push service keeps the others a day.
            built.headers.add(name: "TTL", value: notice.kind == "called" ? "3600" : "86400")
            built.headers.add(name: "Urgency", value: notice.kind == "called" ? "high" : "normal")
            // A message sent again replaces one the push service still holds (RFC 8030, 5.4).
            built.headers.add(name: "Topic", value: "clup-notice-\(notice.id)")
            built.headers.add(name: "Authorization", value: try WebPush.authorization(endpoint: url, subject: subject, key: signer))
            built.body = .bytes(ByteBuffer(data: try WebPush.encrypt(try JSONEncoder.hub.encode(message), for: browser, auth: auth)))
            request = built
        } catch {
            return .failed("the message could not be made: \(error)", final: true)
        }
        let outcome = await NoticeDelivery.attempt(request, client: client, timeout: timeout, to: "the push service")
        if case let .failed(reason, _) = outcome, reason.hasSuffix(": 404") || reason.hasSuffix(": 410") {
            // The browser unsubscribed, or the push service forgot it: nothing will reach it.
            _ = try? await database.transaction { [logger = database.logger] connection in
                try await connection.query("DELETE FROM push_subscription WHERE customer_ref = \(notice.customerRef)", logger: logger)
            }
            return .failed("the browser's subscription is gone (\(reason.suffix(3)))", final: true)
        }
        return outcome
    }
}

/// What the browser's service worker shows (`LinePages.serviceWorker`): a title, a line,
/// the place's page to open, and a tag so that a message sent again replaces the first.
struct PushMessage: Codable, Equatable {
    let kind: String
    let store: StoreID
    let number: String
    let title: String
    let body: String
    let url: String
    let tag: String

    init(_ notice: NoticeDelivery.Leased, words: SiteWords) {
        kind = notice.kind
        store = notice.store
        number = notice.number
        (title, body) = words.push(notice.kind, number: notice.number)
        url = "/line/\(notice.store)/\(notice.number)?lang=\(words.language.rawValue)"
        tag = "clup-\(notice.store)-\(notice.number)"
    }
}
