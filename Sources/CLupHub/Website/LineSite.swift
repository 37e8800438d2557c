import CLupCore
import Foundation
import HTTPTypes
import Hummingbird

/// The customers' website (the requirements' web app), served by the hub like the panel:
/// HTML from the server, readable on a phone, in the five languages, and working with
/// scripts off. A person opens a store's page, joins its line, watches their place (a small
/// script updates it in place, `LinePages.script`), shows the code on their screen at the
/// door, or leaves. A store full or slow names the stores nearby with a shorter wait.
///
/// A place belongs to the browser that took it: joining gives the browser a token of the
/// hub's making (`CustomerReference.website`) in a cookie scoped to the store's pages, and
/// only that token shows, follows or leaves the place. A form's POST is let through only
/// from this hub's own pages (`SameOriginMiddleware`), and one network takes only so many
/// places (`RemoteLine.join(store:door:for:from:now:)`).
struct LineSite: Sendable {
    let line: RemoteLine
    let nearby: StoresNearby
    /// The chain's reverse proxies, whose `X-Forwarded-For` names a visitor's address.
    let proxies: TrustedProxies
    /// The origins the site is reached by behind a proxy that rewrites Host (`[hub] origins`).
    let origins: [WebOrigin]
    /// Web Push, when the hub offers it: a visitor may ask to be told when their turn comes.
    let push: PushService?

    static let cookie = "clup_line"
    /// How long the browser keeps the token: longer than a place's code is valid.
    static let cookieSeconds = 43_200

    func addRoutes(to router: Router<HubRequestContext>) {
        router.get("/line/place.js") { _, _ in Self.asset(LinePages.script, type: "text/javascript; charset=utf-8") }
        router.get("/line/sw.js") { _, _ in Self.asset(LinePages.serviceWorker, type: "text/javascript; charset=utf-8") }
        let site = router.group("/line").add(middleware: SameOriginMiddleware(origins: origins) { request in
            LinePages.crossSite(words: Self.words(request))
        })
        site.get(":store") { request, context in try await storePage(request, context) }
        site.post(":store/join") { request, context in try await join(request, context) }
        site.get(":store/:number") { request, context in try await placePage(request, context) }
        site.get(":store/:number/status") { request, context in try await status(request, context) }
        site.post(":store/:number/leave") { request, context in try await leave(request, context) }
        site.post(":store/:number/push") { request, context in try await subscribe(request, context) }
        site.post(":store/:number/push/off") { request, context in try await unsubscribe(request, context) }
    }

    static func words(_ request: Request) -> SiteWords {
        SiteWords(.chosen(query: request.uri.queryParameters.get("lang").map { String($0) }, acceptLanguage: request.headers[.acceptLanguage]))
    }

    /// The visitor's place token, if their browser brought one the site could have made.
    static func customer(_ request: Request) -> CustomerReference? {
        CustomerReference.website(cookie: Panel.cookie(cookie, of: request))
    }

    static func store(_ context: HubRequestContext) throws -> StoreID {
        let store = try context.parameters.require("store")
        guard store.utf8.count <= 9, store.allSatisfy({ $0.isASCII && $0.isNumber }), store.first != "0" else {
            throw HubError(.notFound, .unknownStore, "no store \"\(TypedText.kept(store, maximum: 16))\"")
        }
        return StoreID(store)
    }

    // MARK: Pages

    func storePage(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let words = Self.words(request)
        do {
            let store = try Self.store(context)
            let view = try await line.store(store)
            var held: String?
            if let customer = Self.customer(request) { held = try await line.livePlace(store: store, of: customer) }
            // Where the hub suggests going instead; the page stands without them.
            let instead = (try? await nearby.suggestions(for: store))?.shorterWaits ?? []
            return LinePages.page(LinePages.document(title: view.name, words: words, here: "/line/\(store)",
                                                     body: LinePages.storeBody(view, held: held, instead: instead, words: words)))
        } catch let error as HubError {
            return LinePages.refused(error, words: words, back: nil)
        }
    }

    func join(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let words = Self.words(request)
        let lang = "?lang=\(words.language.rawValue)"
        do {
            let store = try Self.store(context)
            // A browser that holds a live place here goes back to it: one place per visitor.
            if let customer = Self.customer(request), let held = try await line.livePlace(store: store, of: customer) {
                return Response(status: .seeOther, headers: [.location: "/line/\(store)/\(held)\(lang)"])
            }
            let token = CustomerReference.newWebsiteToken()
            let client = ClientAddress.of(peer: context.remoteAddress, forwardedFor: request.headers[HTTPField.Name("X-Forwarded-For")!],
                                          trusting: proxies)
            let place = try await line.join(store: store, door: nil, for: .website(token: token), from: client,
                                            language: words.language.rawValue)
            return Response(status: .seeOther, headers: [
                .location: "/line/\(store)/\(place.number)\(lang)",
                .setCookie: "\(Self.cookie)=\(token); Path=/line/\(store); Secure; HttpOnly; SameSite=Strict; Max-Age=\(Self.cookieSeconds)",
            ])
        } catch let error as HubError {
            return LinePages.refused(error, words: words, back: (try? Self.store(context))?.rawValue)
        }
    }

    /// The place of the visitor's token, or the same refusal as for a place that does not
    /// exist, whatever the cookie holds (an app's reference, a made-up value, nothing).
    private func place(_ request: Request, _ context: HubRequestContext) async throws -> RemoteLine.Place {
        let store = try Self.store(context)
        let number = try context.parameters.require("number")
        guard let customer = Self.customer(request) else { throw HubError(.notFound, .unknownPlace, "no place \(number) for this browser") }
        return try await line.place(store: store, number: number, of: customer)
    }

    func placePage(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let words = Self.words(request)
        do {
            let place = try await place(request, context)
            return LinePages.page(LinePages.document(title: "\(words.yourPlace) \(place.number)", words: words,
                                                     here: "/line/\(place.store)/\(place.number)", script: LinePages.isLive(place),
                                                     body: LinePages.placeBody(place, words: words, pushKey: push?.publicKey)))
        } catch let error as HubError {
            return LinePages.refused(error, words: words, back: (try? Self.store(context))?.rawValue)
        }
    }

    /// What the page's script reads every 10 s: the state and the places ahead, in words too.
    func status(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let words = Self.words(request)
        let place = try await place(request, context)
        var response = HubMessage.json(LinePages.Status(place, words: words))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    func leave(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let words = Self.words(request)
        do {
            let store = try Self.store(context)
            let number = try context.parameters.require("number")
            guard let customer = Self.customer(request) else { throw HubError(.notFound, .unknownPlace, "no place \(number) for this browser") }
            let left = try await line.leave(store: store, number: number, of: customer)
            return Response(status: .seeOther, headers: [.location: "/line/\(store)/\(left.number)?lang=\(words.language.rawValue)"])
        } catch let error as HubError {
            return LinePages.refused(error, words: words, back: (try? Self.store(context))?.rawValue)
        }
    }

    /// The visitor's browser asks to be told (Web Push): its subscription, for their place.
    func subscribe(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        guard let push else { throw HubError(.notFound, .badHubRequest, "this hub offers no Web Push") }
        let store = try Self.store(context)
        let number = try context.parameters.require("number")
        guard let customer = Self.customer(request) else { throw HubError(.notFound, .unknownPlace, "no place \(number) for this browser") }
        var request = request
        let subscription = try HubMessage.decode(WebPush.Subscription.self,
                                                from: try await HubMessage.body(of: &request, context: context, limit: HubMessage.appBodyLimit))
        try await PushSubscriptions(database: line.database, push: push)
            .subscribe(subscription, customer: customer, store: store, number: number, language: Self.words(request).language)
        return Response(status: .noContent)
    }

    func unsubscribe(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        guard let push, let customer = Self.customer(request) else { return Response(status: .noContent) }
        try await PushSubscriptions(database: line.database, push: push).unsubscribe(customer: customer)
        return Response(status: .noContent)
    }

    static func asset(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "max-age=300", .xContentTypeOptions: "nosniff"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
