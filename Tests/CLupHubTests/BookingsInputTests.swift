@testable import CLupHub
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import XCTest

/// The bookings API's input as the OpenAPI document states it, and bounded.
final class BookingsInputTests: XCTestCase {
    static let token = String(repeating: "t", count: 40)

    func app(_ hub: HubFixture) -> some ApplicationProtocol {
        var settings = HubSettings()
        settings.appToken = Self.token
        return Application(router: HubServer(database: hub.database, settings: settings, logger: HubFixture.logger).router())
    }

    func test_aCancelForANumberOutsideThePatternIsABadRequest() async throws {
        try await withHub { hub in
            try await app(hub).test(.router) { client in
                for number in ["ZB-8", "ZB-123456", "AB-123", "ZB-12a"] {
                    let response = try await client.execute(
                        uri: "/v1/stores/7/bookings/\(number)/cancel", method: .post,
                        headers: [.authorization: "Bearer \(Self.token)", .contentType: "application/json"],
                        body: ByteBuffer(string: #"{"customerRef": "customer-0001"}"#))
                    XCTAssertEqual(response.status, .badRequest, number)
                    XCTAssertTrue(String(buffer: response.body).contains("ZB-"), number)
                }
            }
        }
    }

    /// A number of the documented form that no booking or place can have (beyond 65535) is
    /// not "not a number of a booking" but a booking or place that does not exist, as the
    /// OpenAPI document's pattern says (issue 40: ZB-99999 was a 400).
    func test_aNumberOfTheDocumentedFormBeyondAnyGivenIsNotFound() async throws {
        try await withHub { hub in
            try await app(hub).test(.router) { client in
                for (uri, code) in [("/v1/stores/7/bookings/ZB-99999/cancel", "E-HUB-018"), ("/v1/stores/7/line/AR-99999/leave", "E-HUB-030")] {
                    let response = try await client.execute(
                        uri: uri, method: .post, headers: [.authorization: "Bearer \(Self.token)", .contentType: "application/json"],
                        body: ByteBuffer(string: #"{"customerRef": "customer-0001"}"#))
                    XCTAssertEqual(response.status, .notFound, uri)
                    XCTAssertTrue(String(buffer: response.body).contains(code), "\(uri): \(String(buffer: response.body))")
                }
                let place = try await client.execute(uri: "/v1/stores/7/line/AR-65536?customerRef=customer-0001", method: .get,
                                                     headers: [.authorization: "Bearer \(Self.token)"])
                XCTAssertEqual(place.status, .notFound)
                // A line break after a number is no number of the form.
                let broken = try await client.execute(uri: "/v1/stores/7/line/AR-001%0A/leave", method: .post,
                                                      headers: [.authorization: "Bearer \(Self.token)", .contentType: "application/json"],
                                                      body: ByteBuffer(string: #"{"customerRef": "customer-0001"}"#))
                XCTAssertEqual(broken.status, .badRequest)
            }
        }
    }

    func test_aBookingBodyOfAMebibyteIsRefusedAsTooLarge() async throws {
        try await withHub { hub in
            try await app(hub).test(.router) { client in
                let padding = String(repeating: "x", count: 1 << 20)
                let response = try await client.execute(
                    uri: "/v1/stores/7/bookings", method: .post,
                    headers: [.authorization: "Bearer \(Self.token)", .contentType: "application/json"],
                    body: ByteBuffer(string: #"{"slotStart": "2026-11-24T10:00:00Z", "customerRef": "customer-0001", "x": "\#(padding)"}"#))
                XCTAssertEqual(response.status, .contentTooLarge)
            }
        }
    }
}
