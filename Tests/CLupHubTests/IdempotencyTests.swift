import NIOFoundationCompat
@testable import CLupHub
import CLupCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import XCTest

/// The app sends a request again when its answer was lost: with the same Idempotency-Key it
/// is answered as the first time and never done twice (issue 40: a booking retried after a
/// lost answer could be made twice).
final class IdempotencyTests: XCTestCase {
    static let token = String(repeating: "t", count: 40)

    func app(_ hub: HubFixture) -> some ApplicationProtocol {
        var settings = HubSettings()
        settings.appToken = Self.token
        return Application(router: HubServer(database: hub.database, settings: settings, logger: HubFixture.logger).router())
    }

    static func post(_ client: some TestClientProtocol, _ path: String, _ body: String, key: String?) async throws -> TestResponse {
        var headers: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
        if let key { headers[IdempotencyKey.header] = key }
        return try await client.execute(uri: "/v1/stores/7" + path, method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    /// A slot of store 7 still to start, with booking places.
    func slot(_ hub: HubFixture) async throws -> String {
        try await HubAdmin(database: hub.database).setStore(id: "7", .init(capacity: 20, bookingShare: 0.5, totemBookingPlaces: 0), by: .test)
        let now = Date()
        let bookings = Bookings(database: hub.database)
        var slots = try await bookings.slots(store: "7", day: nil).slots
        if !slots.contains(where: { $0.start > now && $0.bookable }) {
            let tomorrow = BusinessDay(containing: now.addingTimeInterval(86_400), startMinute: 0, timeZone: TimeZone(identifier: "UTC")!)
            slots = try await bookings.slots(store: "7", day: tomorrow.description).slots
        }
        let start = try XCTUnwrap(slots.first { $0.start > now && $0.bookable }).start
        return start.formatted(.iso8601)
    }

    func test_aBookingSentAgainWithItsKeyIsAnsweredAsTheFirstTimeAndMadeOnce() async throws {
        try await withHub { hub in
            let slot = try await slot(hub)
            try await app(hub).test(.router) { client in
                let body = #"{"slotStart": "\#(slot)", "customerRef": "customer-0001"}"#
                let first = try await Self.post(client, "/bookings", body, key: "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"")
                XCTAssertEqual(first.status, .created)
                let again = try await Self.post(client, "/bookings", body, key: "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"")
                XCTAssertEqual(again.status, .created)
                XCTAssertEqual(String(buffer: again.body), String(buffer: first.body))
                XCTAssertEqual(try hub.sql("SELECT count(*) FROM booking"), "1")
                // The same key with another body, or on another route: refused, nothing done.
                let other = try await Self.post(client, "/bookings", #"{"slotStart": "\#(slot)", "customerRef": "customer-0002"}"#,
                                                key: "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"")
                XCTAssertEqual(other.status, .unprocessableContent)
                XCTAssertTrue(String(buffer: other.body).contains("E-HUB-033"))
                let number = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(buffer: first.body)) as? [String: Any])["number"] as? String
                let cancel = try await Self.post(client, "/bookings/\(try XCTUnwrap(number))/cancel", #"{"customerRef": "customer-0001"}"#,
                                                 key: "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"")
                XCTAssertEqual(cancel.status, .unprocessableContent)
                XCTAssertEqual(try hub.sql("SELECT count(*) FROM booking WHERE cancelled_at IS NULL"), "1")
                // Without a key, the same body is a new booking, as it always was.
                let unkeyed = try await Self.post(client, "/bookings", body, key: nil)
                XCTAssertEqual(unkeyed.status, .created)
                XCTAssertEqual(try hub.sql("SELECT count(*) FROM booking"), "2")
                // A key is kept a day: after that, it is a new request.
                try hub.sql("UPDATE app_request SET made_at = now() - interval '25 hours'")
                let later = try await Self.post(client, "/bookings", body, key: "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"")
                XCTAssertEqual(later.status, .created)
                XCTAssertEqual(try hub.sql("SELECT count(*) FROM booking"), "3")
                // A key that is no key.
                let bad = try await Self.post(client, "/bookings", body, key: "two words")
                XCTAssertEqual(bad.status, .badRequest)
            }
        }
    }

    func test_tenRequestsWithOneKeyAtOnceMakeOneBookingAndAllHearItsAnswer() async throws {
        try await withHub { hub in
            let slot = try await slot(hub)
            try await app(hub).test(.router) { client in
                let body = #"{"slotStart": "\#(slot)", "customerRef": "customer-0001"}"#
                let answers = try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<10 {
                        group.addTask {
                            let response = try await Self.post(client, "/bookings", body, key: "retry-0001")
                            return "\(response.status.code) \(String(buffer: response.body))"
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                XCTAssertEqual(Set(answers).count, 1, "\(answers)")
                XCTAssertTrue(answers[0].hasPrefix("201 "), answers[0])
                XCTAssertEqual(try hub.sql("SELECT count(*) FROM booking"), "1")
            }
        }
    }

    func test_aJoinAndALeaveSentAgainWithTheirKeysAreDoneOnce() async throws {
        try await withHub { hub in
            let totem = try await hub.enrol("A", door: "north")
            _ = try await Ingest(database: hub.database).apply(totem.batch([]), from: totem.device)
            try await app(hub).test(.router) { client in
                let join = #"{"customerRef": "phone-0001"}"#
                let first = try await Self.post(client, "/line", join, key: "join-1")
                let again = try await Self.post(client, "/line", join, key: "join-1")
                XCTAssertEqual(first.status, .created)
                XCTAssertEqual(String(buffer: again.body), String(buffer: first.body), "not 409 'holds a place already'")
                XCTAssertEqual(try hub.sql("SELECT count(*) FROM remote_ticket"), "1")
                let leave = try await Self.post(client, "/line/AR-001/leave", join, key: "leave-1")
                let leftAgain = try await Self.post(client, "/line/AR-001/leave", join, key: "leave-1")
                XCTAssertEqual(leave.status, .ok)
                XCTAssertEqual(String(buffer: leftAgain.body), String(buffer: leave.body))
            }
        }
    }
}
