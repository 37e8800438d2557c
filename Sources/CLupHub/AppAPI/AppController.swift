import Hummingbird

/// The chain's app, for the bearer of `[hub] app_token`, under `/v1/stores/:store`: a store's
/// slots, bookings and their cancellation, a place in its line, and leaving it. Each request
/// that changes something may carry an `Idempotency-Key`: sent again, it is answered as the
/// first time.
struct AppController {
    let bookings: Bookings
    let line: RemoteLine

    func addRoutes(to store: some RouterMethods<HubRequestContext>) {
        store.get("slots") { [bookings] request, context in
            HubMessage.json(try await bookings.slots(store: try context.parameters.require("store", as: StoreID.self),
                                                     day: request.uri.queryParameters.get("day")))
        }
        store.post("bookings") { [bookings] request, context in
            let (asked, once) = try await Self.read(Bookings.Request.self, from: request, context, isoDates: true)
            return HubMessage.json(try await bookings.book(store: try context.parameters.require("store", as: StoreID.self), asked, once: once),
                                   status: .created)
        }
        store.post("bookings/:number/cancel") { [bookings] request, context in
            let (asked, once) = try await Self.read(Bookings.Cancellation.self, from: request, context)
            return HubMessage.json(try await bookings.cancel(store: try context.parameters.require("store", as: StoreID.self),
                                                             number: try context.parameters.require("number"),
                                                             reference: asked.customerRef, once: once))
        }
        store.post("line") { [line] request, context in
            let (asked, once) = try await Self.read(RemoteLine.Request.self, from: request, context)
            return HubMessage.json(try await line.join(store: try context.parameters.require("store", as: StoreID.self), asked, once: once),
                                   status: .created)
        }
        store.get("line/:number") { [line] request, context in
            HubMessage.json(try await line.place(store: try context.parameters.require("store", as: StoreID.self),
                                                 number: try context.parameters.require("number"),
                                                 reference: request.uri.queryParameters.get("customerRef") ?? ""))
        }
        store.post("line/:number/leave") { [line] request, context in
            let (asked, once) = try await Self.read(RemoteLine.Leaving.self, from: request, context)
            return HubMessage.json(try await line.leave(store: try context.parameters.require("store", as: StoreID.self),
                                                        number: try context.parameters.require("number"),
                                                        reference: asked.customerRef, once: once))
        }
    }

    /// The request's body as a `T`, and its idempotency key if it carries one.
    private static func read<T: Decodable>(_ type: T.Type, from request: Request, _ context: HubRequestContext,
                                           isoDates: Bool = false) async throws -> (T, IdempotencyKey?) {
        var request = request
        let body = try await HubMessage.body(of: &request, context: context, limit: HubMessage.appBodyLimit)
        return (try HubMessage.decode(T.self, from: body, isoDates: isoDates), try IdempotencyKey.of(request, body: body))
    }
}
