import NIOHTTP1
import AsyncHTTPClient
import CLupConfig
import CLupProtocol
import Crypto
import Foundation
import NIOCore

/// The chain's notification gateway, which reaches the app's customers: each notice is one
/// POST of JSON to it,
///
/// - `Idempotency-Key: clup-notice-<id>`, the same on every attempt: the gateway keeps the
///   keys it has taken and takes each notice once, however often it is sent;
/// - `CLup-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(key, "<t>.<body>")>` with the
///   chain's key (`[notices] webhook_secret_file`): the gateway recomputes it, and refuses a
///   body signed otherwise or a `t` more than five minutes from its clock.
public struct NoticeGateway: Sendable {
    public let url: String
    /// The HMAC key's bytes (`SymmetricKey` is not `Sendable`).
    let key: [UInt8]

    /// The gateway `settings` name, or nil when no webhook is configured; throws when the URL
    /// or the key file cannot be used.
    public init?(_ settings: NoticeSettings, file: String) throws(ConfigurationError) {
        guard let url = settings.webhookURL, !url.isEmpty else { return nil }
        guard let parts = URL(string: url), let scheme = parts.scheme?.lowercased(), let host = parts.host, !host.isEmpty,
              scheme == "https" || (scheme == "http" && ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased()))
        else {
            throw ConfigurationError(file: file, line: nil, key: "notices.webhook_url",
                                     problem: "\(url.prefix(200)) is not an https URL (http is taken on loopback only)")
        }
        guard let secretFile = HubSecret.webhookSecret.path(else: settings.webhookSecretFile) else {
            throw ConfigurationError(file: file, line: nil, key: "notices.webhook_secret_file",
                                     problem: "a webhook needs the file of the key its notices are signed with")
        }
        guard let text = try? String(contentsOfFile: secretFile, encoding: .utf8),
              let secret = text.split(separator: "\n", omittingEmptySubsequences: false).first, secret.utf8.count >= 32
        else {
            throw ConfigurationError(file: file, line: nil, key: "notices.webhook_secret_file",
                                     problem: "\(secretFile) cannot be read, or its first line is shorter than 32 characters")
        }
        self.init(url: url, key: Array(secret.utf8))
    }

    init(url: String, key: [UInt8]) {
        self.url = url
        self.key = key
    }

    /// A notice as the gateway receives it. `kind` is `called` (a place in the line taken
    /// from a phone is called: come to the door now), `delayed` (the store is full near a
    /// booking's slot), `cancelled` (a booking cancelled, by its customer or by a major delay)
    /// or `reminder` (a booking's slot is near).
    struct Body: Codable, Equatable {
        let id: String
        let kind: String
        let store: StoreID
        let customerRef: String
        /// The place's or the booking's number.
        let number: String
        /// A booking's notices only: its number and its slot's start.
        let bookingNumber: String?
        let slotStart: Date?
        let queuedAt: Date
        let attempt: Int

        init(_ notice: NoticeDelivery.Leased) {
            id = notice.idempotencyKey
            kind = notice.kind
            store = notice.store
            customerRef = notice.customerRef
            number = notice.number
            let booking = notice.kind != "called"
            bookingNumber = booking ? notice.number : nil
            slotStart = booking ? notice.slotStart : nil
            queuedAt = notice.queuedAt
            attempt = notice.attempt
        }
    }

    /// One attempt at `notice`, within `timeout`.
    func send(_ notice: NoticeDelivery.Leased, client: HTTPClient, timeout: TimeAmount) async -> NoticeDelivery.Outcome {
        guard let json = try? JSONEncoder.hub.encode(Body(notice)) else { return .failed("the notice could not be written as JSON", final: true) }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Idempotency-Key", value: notice.idempotencyKey)
        request.headers.add(name: "CLup-Signature", value: Self.signature(json, key: key, at: Date()))
        request.body = .bytes(ByteBuffer(bytes: json))
        return await NoticeDelivery.attempt(request, client: client, timeout: timeout, to: "the gateway")
    }

    /// The `CLup-Signature` of `body` sent at `time`.
    static func signature(_ body: Data, key: [UInt8], at time: Date) -> String {
        let seconds = Int64(time.timeIntervalSince1970.rounded(.down))
        var signed = Data("\(seconds).".utf8)
        signed.append(body)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))
        return "t=\(seconds),v1=\(HubWire.hex(mac))"
    }
}
