import Hummingbird

/// The app's "stores near me", for the bearer of `[hub] app_token`: `/v1/nearby?latitude=…&longitude=…[&radiusKm=…]`.
struct NearbyController {
    let nearby: StoresNearby

    func addRoutes(to router: some RouterMethods<HubRequestContext>) {
        router.get { [nearby] request, _ in
            let query = request.uri.queryParameters
            let number = { (name: String) throws -> Double? in
                guard let text = query.get(name) else { return nil }
                guard text.utf8.count <= 32, let value = Double(text) else { throw HubError.badRequest("\(name) is a number") }
                return value
            }
            guard let latitude = try number("latitude"), let longitude = try number("longitude") else {
                throw HubError.badRequest("latitude and longitude are the point to search around (WGS 84 degrees)")
            }
            return HubMessage.json(try await nearby.near(latitude: latitude, longitude: longitude, radiusKm: try number("radiusKm")))
        }
    }
}
