import NIOFoundationCompat
@testable import CLupHub
import CLupCore
import CLupProtocol
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import XCTest

/// The stores near a point, as the app asks for them (R2): nearest first, each with its
/// distance, hours, people inside and waiting, and what to do instead when it is full.
final class StoresNearbyTests: XCTestCase {
    /// Milan's cathedral square; a hundredth of a degree of latitude is 1.112 km.
    static let latitude = 45.4642, longitude = 9.19

    /// Store 7 on the square, 8 at 1.11 km, 9 at 3.00 km, 10 at 66.7 km, 11 not on the map;
    /// 8 and 9 open all day as 7 is.
    func chain(_ hub: HubFixture) async throws {
        let admin = HubAdmin(database: hub.database)
        try await admin.setLocation(id: "7", latitude: Self.latitude, longitude: Self.longitude, by: .test)
        for (id, name, north): (StoreID, String, Double) in [("8", "CLup Brera", 0.01), ("9", "CLup Isola", 0.027), ("10", "CLup Bergamo", 0.6), ("11", "CLup Web", 0)] {
            try await admin.createStore(id: id, name: name, capacity: 20)
            try await admin.setHours(id: id, opens: "00:00", closes: "24:00", timeZone: "UTC", by: .test)
            if id != "11" { try await admin.setLocation(id: id, latitude: Self.latitude + north, longitude: Self.longitude, by: .test) }
        }
    }

    func heard(_ totem: TestTotem, _ hub: HubFixture, _ events: [DomainEvent] = []) async throws {
        _ = try await Ingest(database: hub.database).apply(totem.batch(totem.upload(events)), from: totem.device)
    }

    func test_storesNearAPointComeNearestFirstWithTheirDistanceAndState() async throws {
        try await withHub { hub in
            try await chain(hub)
            let eight = try await hub.enrol("A", door: "main", store: "8")
            try await heard(eight, hub, [.passage(direction: .entry, door: "main", businessDay: .today, at: Date(), ticket: nil, steady: nil)])
            let nearby = StoresNearby(database: hub.database)
            let answer = try await nearby.near(latitude: Self.latitude, longitude: Self.longitude, radiusKm: nil)
            XCTAssertEqual(answer.radiusKm, StoresNearby.standardRadius)
            XCTAssertEqual(answer.stores.map(\.store), ["7", "8", "9"])
            XCTAssertEqual(answer.stores.map(\.distanceKm), [0, 1.11, 3.0])
            let brera = answer.stores[1]
            XCTAssertEqual(brera.name, "CLup Brera")
            XCTAssertTrue(brera.isOpen)
            XCTAssertEqual(brera.hours, "00:00–24:00")
            XCTAssertEqual(brera.inside, 1)
            XCTAssertEqual(brera.capacity, 20)
            XCTAssertEqual(brera.waiting, 0)
            XCTAssertTrue(brera.takingPlaces, "its door was heard just now")
            XCTAssertFalse(answer.stores[2].takingPlaces, "store 9 has no totem the hub heard")
            XCTAssertNil(brera.suggestions, "room inside and no wait: nothing to suggest")
            // A smaller circle holds fewer; a point far away, none; a wider circle reaches Bergamo.
            let small = try await nearby.near(latitude: Self.latitude, longitude: Self.longitude, radiusKm: 2)
            XCTAssertEqual(small.stores.map(\.store), ["7", "8"])
            let far = try await nearby.near(latitude: -33.86, longitude: 151.21, radiusKm: 50)
            XCTAssertEqual(far.stores.count, 0)
            let wide = try await nearby.near(latitude: Self.latitude + 0.3, longitude: Self.longitude, radiusKm: 50)
            XCTAssertEqual(Set(wide.stores.map(\.store)), ["7", "8", "9", "10"])
        }
    }

    func test_aFullStoreSuggestsItsNextFreeSlotsAndTheStoresNearbyThatTakePlacesWithAShorterWait() async throws {
        try await withHub { hub in
            try await chain(hub)
            let admin = HubAdmin(database: hub.database)
            try await admin.setStore(id: "7", .init(capacity: 2, bookingShare: 0.5, totemBookingPlaces: 0), by: .test)
            let seven = try await hub.enrol("A", door: "north")
            let entry = DomainEvent.passage(direction: .entry, door: "north", businessDay: .today, at: Date(), ticket: nil, steady: nil)
            try await heard(seven, hub, [entry, entry])
            let eight = try await hub.enrol("A", door: "main", store: "8")
            try await heard(eight, hub)
            let answer = try await StoresNearby(database: hub.database).near(latitude: Self.latitude, longitude: Self.longitude,
                                                                            radiusKm: 5)
            let full = answer.stores[0]
            XCTAssertEqual(full.inside, 2)
            let suggestions = try XCTUnwrap(full.suggestions)
            XCTAssertEqual(suggestions.why, "full")
            // One place per slot (half of 2): the next three slots still to start today (store 7
            // is open until midnight, UTC, in slots of 30 minutes), each with its place.
            var utc = Calendar(identifier: .gregorian)
            utc.timeZone = TimeZone(identifier: "UTC")!
            let midnight = utc.startOfDay(for: Date().addingTimeInterval(86_400))
            let toStart = Int(midnight.timeIntervalSince(Date()) / 1800)
            XCTAssertEqual(suggestions.freeSlots.count, min(3, toStart))
            XCTAssertEqual(suggestions.freeSlots.map(\.free), Array(repeating: 1, count: min(3, toStart)))
            XCTAssertTrue(suggestions.freeSlots.allSatisfy { $0.start >= Date().addingTimeInterval(-60) })
            // Brera takes places (its door heard) with a shorter wait; Isola has no door heard.
            XCTAssertEqual(suggestions.shorterWaits.map(\.store), ["8"])
            XCTAssertEqual(suggestions.shorterWaits.first?.distanceKm, 1.11)
            XCTAssertNil(answer.stores[1].suggestions)
            // The website's page of the full store names Brera, in the visitor's language; Brera's names nobody.
            var settings = HubSettings()
            settings.appToken = String(repeating: "t", count: 40)
            let app = Application(router: HubServer(database: hub.database, settings: settings, logger: HubFixture.logger).router())
            try await app.test(.router) { client in
                let full = String(buffer: try await client.execute(uri: "/line/7?lang=it", method: .get).body)
                XCTAssertTrue(full.contains("<h2 id=\"instead\">Attese più brevi qui vicino</h2>"), full)
                XCTAssertTrue(full.contains("<li><a href=\"/line/8?lang=it\">CLup Brera</a> · 1,1 km · Nessuna attesa ora</li>"), full)
                let brera = String(buffer: try await client.execute(uri: "/line/8?lang=it", method: .get).body)
                XCTAssertFalse(brera.contains("id=\"instead\""), brera)
                // The app's route: the same answer as JSON, and a point that is no number a 400.
                let bearer: HTTPFields = [.authorization: "Bearer \(String(repeating: "t", count: 40))"]
                let asked = try await client.execute(uri: "/v1/nearby?latitude=45.4642&longitude=9.19", method: .get, headers: bearer)
                XCTAssertEqual(asked.status, .ok)
                let json = try JSONSerialization.jsonObject(with: Data(buffer: asked.body)) as? [String: Any]
                XCTAssertEqual((json?["stores"] as? [[String: Any]])?.compactMap { $0["store"] as? String }, ["7", "8", "9"])
                for query in ["latitude=north&longitude=9.19", "latitude=45.4642", "latitude=45&longitude=9&radiusKm=1e400"] {
                    let refused = try await client.execute(uri: "/v1/nearby?\(query)", method: .get, headers: bearer)
                    XCTAssertEqual(refused.status, .badRequest, query)
                }
                let anonymous = try await client.execute(uri: "/v1/nearby?latitude=45.4642&longitude=9.19", method: .get)
                XCTAssertEqual(anonymous.status, .unauthorized)
            }
        }
    }

    func test_aPointOrRadiusOutOfBoundsIsABadRequestAndAStoreIsPutOnTheMapOnlyWhereThereIsSomewhere() async throws {
        try await withHub { hub in
            let nearby = StoresNearby(database: hub.database)
            for (latitude, longitude, radius) in [(91.0, 9.0, 5.0), (45.0, -180.5, 5.0), (Double.nan, 9.0, 5.0), (45.0, 9.0, 0.0),
                                                  (45.0, 9.0, 50.5), (45.0, 9.0, Double.infinity)] {
                do {
                    _ = try await nearby.near(latitude: latitude, longitude: longitude, radiusKm: radius)
                    XCTFail("\(latitude), \(longitude) within \(radius) km answered")
                } catch let error as HubError {
                    XCTAssertEqual(error.status, .badRequest)
                }
            }
            let admin = HubAdmin(database: hub.database)
            do {
                try await admin.setLocation(id: "7", latitude: 100, longitude: 0, by: .test)
                XCTFail("a latitude of 100 taken")
            } catch let error as HubError {
                XCTAssertEqual(error.status, .badRequest)
            }
            do {
                try await admin.setLocation(id: "70", latitude: 45, longitude: 9, by: .test)
                XCTFail("an unknown store put on the map")
            } catch let error as HubError {
                XCTAssertEqual(error.coded.code, ErrorCode.unknownStore.rawValue)
            }
            XCTAssertEqual(try hub.sql("SELECT latitude IS NULL FROM store"), "t")
        }
    }
}
