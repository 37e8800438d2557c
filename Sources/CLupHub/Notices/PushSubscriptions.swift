import Crypto
import HTTPTypes
import CLupCore
import Foundation
import PostgresNIO

/// The website's visitors who asked to be told by Web Push: one browser per visitor (a new
/// subscription replaces the last), kept a day (`Retention`), for the places they hold.
struct PushSubscriptions: Sendable {
    let database: HubDatabase
    let push: PushService

    /// Keeps `subscription` for `customer`, who must hold the live place `number` of `store`;
    /// their notices then go to it, in `language`.
    func subscribe(_ subscription: WebPush.Subscription, customer: CustomerReference, store: StoreID, number: String,
                   language: SiteLanguage) async throws {
        guard customer.isWebsite else { throw HubError.badRequest("only the website's visitors subscribe to Web Push") }
        guard let (key, auth) = subscription.material() else {
            throw HubError.badRequest("the subscription's keys are not a P-256 public key and a 16-byte secret (RFC 8291)")
        }
        guard push.allowed(subscription.endpoint) != nil else {
            throw HubError(.unprocessableContent, .badHubRequest, "the subscription's endpoint is not a push service this hub sends to")
        }
        let point = key.x963Representation
        let place = try await RemoteLine(database: database).place(store: store, number: number, of: customer)
        guard LinePages.isLive(place) else { throw HubError(.unprocessableContent, .placeOver, "\(place.number) is \(place.state): nothing to tell") }
        try await database.transaction { [logger = database.logger] connection in
            try await connection.query("""
                INSERT INTO push_subscription (customer_ref, store_id, endpoint, p256dh, auth, language)
                VALUES (\(customer.stored), \(store), \(subscription.endpoint), \(point), \(auth), \(language.rawValue))
                ON CONFLICT (customer_ref) DO UPDATE SET store_id = excluded.store_id, endpoint = excluded.endpoint,
                    p256dh = excluded.p256dh, auth = excluded.auth, language = excluded.language, made_at = now()
                """, logger: logger)
        }
    }

    /// Forgets `customer`'s browser: their notices are dropped from now on.
    func unsubscribe(customer: CustomerReference) async throws {
        try await database.transaction { [logger = database.logger] connection in
            try await connection.query("DELETE FROM push_subscription WHERE customer_ref = \(customer.stored)", logger: logger)
        }
    }
}
