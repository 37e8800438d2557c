import CLupCore
import Foundation
import PostgresNIO

/// The stores near a point, for the app (R2): for each, how far it is, whether it is open,
/// how many are inside and waiting, and the estimated wait for a new place. Where a store is
/// full or its wait long, the hub suggests the next free booking slots there and the stores
/// nearby with shorter waits.
public struct StoresNearby: Sendable {
    let database: HubDatabase

    public init(database: HubDatabase) {
        self.database = database
    }

    /// Bounds of a search: a radius, and the stores answered.
    public static let radiusRange = 0.1...50.0
    public static let standardRadius = 5.0
    public static let maximumStores = 20
    /// A wait this long (minutes) or longer counts as long: the hub suggests alternatives.
    public static let longWaitMinutes = 20
    /// Suggestions of each kind, at most.
    static let suggestions = 3

    public struct Answer: Codable, Sendable {
        public let latitude: Double
        public let longitude: Double
        public let radiusKm: Double
        public let stores: [Store]
    }

    public struct Store: Codable, Sendable {
        public let store: StoreID
        public let name: String
        public let distanceKm: Double
        public let isOpen: Bool
        public let hours: String
        public let inside: Int
        public let capacity: Int
        public let waiting: Int
        public let estimatedWaitMinutes: Int
        /// Whether its line takes places from phones now (a door heard lately, and open).
        public let takingPlaces: Bool
        public var suggestions: Suggestions?
    }

    public struct Suggestions: Codable, Sendable {
        /// `full` or `long-wait`.
        public let why: String
        public let freeSlots: [FreeSlot]
        public let shorterWaits: [Alternative]
    }

    public struct FreeSlot: Codable, Sendable {
        public let start: Date
        public let free: Int
    }

    public struct Alternative: Codable, Sendable {
        public let store: StoreID
        public let name: String
        public let distanceKm: Double
        public let estimatedWaitMinutes: Int
    }

    /// What the hub suggests instead of `store`'s line now: nil when the store is not on the
    /// map, or neither full nor slow.
    public func suggestions(for store: StoreID, now: Date = Date()) async throws -> Suggestions? {
        let logger = database.logger
        let located = try await database.transaction { connection in
            try await connection.rows("SELECT latitude, longitude FROM store WHERE store_id = \(store) AND latitude IS NOT NULL",
                                      as: (Double, Double).self, logger).first
        }
        guard let (latitude, longitude) = located else { return nil }
        return try await near(latitude: latitude, longitude: longitude, radiusKm: nil, now: now).stores.first { $0.store == store }?.suggestions
    }

    public func near(latitude: Double, longitude: Double, radiusKm: Double?, now: Date = Date()) async throws -> Answer {
        guard latitude.isFinite, (-90...90).contains(latitude), longitude.isFinite, (-180...180).contains(longitude) else {
            throw HubError.badRequest("latitude is -90 to 90 and longitude -180 to 180 (WGS 84 degrees)")
        }
        let radius = radiusKm ?? Self.standardRadius
        guard radius.isFinite, Self.radiusRange.contains(radius) else {
            throw HubError.badRequest("radiusKm is \(Self.radiusRange.lowerBound) to \(Self.radiusRange.upperBound)")
        }
        let logger = database.logger
        var stores = try await database.transaction { connection -> [Store] in
            // A box of latitudes first (a degree is 111 km), then the great-circle distance.
            let span = radius / 111.0 + 0.01
            let found = try await connection.rows("""
                SELECT store_id, distance FROM (
                    SELECT store_id, 6371.0088 * 2 * asin(least(1, sqrt(
                        power(sin(radians(latitude - \(latitude)) / 2), 2)
                        + cos(radians(\(latitude))) * cos(radians(latitude)) * power(sin(radians(longitude - \(longitude)) / 2), 2))))
                        AS distance
                    FROM store WHERE latitude IS NOT NULL AND latitude BETWEEN \(latitude - span) AND \(latitude + span)) near
                WHERE distance <= \(radius) ORDER BY distance, store_id LIMIT \(Self.maximumStores)
                """, as: (StoreID, Double).self, logger)
            var stores: [Store] = []
            for (store, distance) in found {
                let view = try await RemoteLine.view(store: store, now: now, connection, logger)
                stores.append(Store(store: store, name: view.name, distanceKm: (distance * 100).rounded() / 100, isOpen: view.isOpen,
                                    hours: view.hours, inside: view.inside, capacity: view.capacity, waiting: view.waiting,
                                    estimatedWaitMinutes: view.estimatedWaitMinutes, takingPlaces: view.isOpen && view.doorsTaking > 0))
            }
            return stores
        }
        for index in stores.indices {
            let store = stores[index]
            let full = store.inside >= store.capacity
            guard full || store.estimatedWaitMinutes >= Self.longWaitMinutes else { continue }
            let slots = try await Bookings(database: database).slots(store: store.store, day: nil, now: now).slots
                .filter { $0.bookable && $0.free > 0 && $0.start >= now }.prefix(Self.suggestions)
                .map { FreeSlot(start: $0.start, free: $0.free) }
            let shorter = stores.filter {
                $0.store != store.store && $0.takingPlaces && $0.inside < $0.capacity && $0.estimatedWaitMinutes < store.estimatedWaitMinutes
            }.prefix(Self.suggestions).map {
                Alternative(store: $0.store, name: $0.name, distanceKm: $0.distanceKm, estimatedWaitMinutes: $0.estimatedWaitMinutes)
            }
            stores[index].suggestions = Suggestions(why: full ? "full" : "long-wait", freeSlots: Array(slots), shorterWaits: Array(shorter))
        }
        return Answer(latitude: latitude, longitude: longitude, radiusKm: radius, stores: stores)
    }
}
