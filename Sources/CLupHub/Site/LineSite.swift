import CLupCore
import CLupQR
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// The customers' website (the requirements' web app), served by the hub like the panel:
/// HTML from the server, no script, readable on a phone, in the five languages. A person
/// opens a store's page, joins its line, watches their place (the page refreshes itself),
/// shows the code on their screen at the door, or leaves. A store full or slow names the
/// stores nearby with a shorter wait.
///
/// The site knows a person by one cookie only: an opaque reference it makes on the first
/// visit (`RemoteLine` keeps nothing else). The cookie is `SameSite=Strict`, so a form on
/// another site cannot join or leave in their name: its POST comes without the cookie, and
/// is refused.
struct LineSite: Sendable {
    let line: RemoteLine
    let nearby: StoresNearby

    static let cookie = "clup_line"
    /// A reference the site makes: "web-" and 28 characters of base64url (21 random bytes).
    static func newReference() -> String {
        let bytes = (0..<21).map { _ in UInt8.random(in: 0...255) }
        return "web-" + Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    func add(to router: Router<HubRequestContext>) {
        router.get("/line/:store") { request, context in try await storePage(request, context) }
        router.post("/line/:store/join") { request, context in try await join(request, context) }
        router.get("/line/:store/:number") { request, context in try await placePage(request, context) }
        router.post("/line/:store/:number/leave") { request, context in try await leave(request, context) }
    }

    static func words(_ request: Request) -> SiteWords {
        SiteWords(.chosen(query: request.uri.queryParameters.get("lang").map { String($0) }, acceptLanguage: request.headers[.acceptLanguage]))
    }

    static func reference(_ request: Request) -> String? {
        guard let value = Panel.cookie(cookie, of: request), (8...64).contains(value.utf8.count),
              value.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else { return nil }
        return value
    }

    static func store(_ context: HubRequestContext) throws -> String {
        let store = try context.parameters.require("store")
        guard store.utf8.count <= 9, store.allSatisfy({ $0.isASCII && $0.isNumber }), store.first != "0" else {
            throw HubError(.notFound, .unknownStore, "no store \"\(TypedText.kept(store, maximum: 16))\"")
        }
        return store
    }

    // MARK: Pages

    func storePage(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let words = Self.words(request)
        let store: String, view: RemoteLine.StoreView
        do {
            store = try Self.store(context)
            view = try await line.store(store)
        } catch let error as HubError {
            return Self.refused(error, words: words, back: nil)
        }
        var reference = Self.reference(request)
        var headers: HTTPFields = [:]
        if reference == nil {
            let made = Self.newReference()
            reference = made
            headers[.setCookie] = "\(Self.cookie)=\(made); Path=/line; Secure; HttpOnly; SameSite=Strict; Max-Age=2592000"
        }
        var held: String?
        if let reference { held = try await line.livePlace(store: store, reference: reference) }
        let lang = "?lang=\(words.language.rawValue)"
        let action = held.map { number in
            """
            <p class="place"><a href="/line/\(store)/\(number)\(lang)">\(words.yourPlace): \(number)</a></p>
            """
        } ?? """
            <form method="post" action="/line/\(store)/join\(lang)"><button type="submit">\(words.joinButton)</button></form>
            """
        // Where the hub suggests going instead; the page stands without them.
        let instead = (try? await nearby.suggestions(for: store))?.shorterWaits ?? []
        let alternatives = instead.isEmpty ? "" : """
            <section aria-labelledby="instead"><h2 id="instead">\(words.shorterWaitsNearby)</h2><ul class="instead">
            \(instead.map { """
                <li><a href="/line/\($0.store)\(lang)">\(PanelPages.html($0.name))</a> · \(words.kilometres($0.distanceKm)) · \(words.waitAbout($0.estimatedWaitMinutes))</li>
                """ }.joined(separator: "\n"))
            </ul></section>
            """
        let body = """
            <h1>\(PanelPages.html(view.name))</h1>
            <p>\(view.isOpen ? words.openUntil(view.hours) : words.closed(view.hours))</p>
            <ul class="figures">
            <li>\(words.inside(view.inside, of: view.capacity))</li>
            <li id="waiting">\(words.waiting(view.waiting))</li>
            <li>\(words.waitAbout(view.estimatedWaitMinutes))</li>
            </ul>
            \(action)
            \(alternatives)
            """
        return Self.page(Self.document(title: view.name, words: words, here: "/line/\(store)", refresh: false, body: body), extra: headers)
    }

    func join(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let words = Self.words(request)
        let lang = "?lang=\(words.language.rawValue)"
        do {
            let store = try Self.store(context)
            guard let reference = Self.reference(request) else {
                return Self.page(Self.document(title: words.sorry, words: words, here: "/line/\(store)", refresh: false, body: """
                    <h1>\(words.sorry)</h1><p class="error">\(words.noCookie)</p>
                    <p><a href="/line/\(store)\(lang)">\(words.storeLink)</a></p>
                    """), status: .forbidden)
            }
            let place = try await line.join(store: store, .init(customerRef: reference))
            return Response(status: .seeOther, headers: [.location: "/line/\(store)/\(place.number)\(lang)"])
        } catch let error as HubError {
            return Self.refused(error, words: words, back: try? Self.store(context))
        }
    }

    func placePage(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let words = Self.words(request)
        do {
            let store = try Self.store(context)
            let number = try context.parameters.require("number")
            guard let reference = Self.reference(request) else { throw HubError(.notFound, .unknownPlace, "no reference") }
            let place = try await line.place(store: store, number: number, reference: reference)
            // The page updates itself while the place is live, unless its reader asked it not to
            // (a screen reader's user, who reads at their own pace: WCAG 2.2.1).
            let still = request.uri.queryParameters.get("still") == "1"
            return Self.page(Self.document(title: "\(words.yourPlace) \(place.number)", words: words,
                                           here: "/line/\(store)/\(place.number)",
                                           refresh: !still && ["waiting", "called", "admitted"].contains(place.state),
                                           body: Self.placeBody(place, words: words, still: still)))
        } catch let error as HubError {
            return Self.refused(error, words: words, back: try? Self.store(context))
        }
    }

    func leave(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let words = Self.words(request)
        do {
            let store = try Self.store(context)
            let number = try context.parameters.require("number")
            guard let reference = Self.reference(request) else { throw HubError(.notFound, .unknownPlace, "no reference") }
            let left = try await line.leave(store: store, number: number, reference: reference)
            return Response(status: .seeOther, headers: [.location: "/line/\(store)/\(left.number)?lang=\(words.language.rawValue)"])
        } catch let error as HubError {
            return Self.refused(error, words: words, back: try? Self.store(context))
        }
    }

    static func placeBody(_ place: RemoteLine.Place, words: SiteWords, still: Bool = false) -> String {
        let lang = "?lang=\(words.language.rawValue)"
        let here = "/line/\(place.store)/\(place.number)"
        var body = """
            <h1>\(words.yourPlace) <span class="number" id="number">\(place.number)</span></h1>
            <p id="state" data-state="\(place.state)" role="status" aria-live="polite">\(PanelPages.html(words.state(place.state, door: place.doorName)))</p>
            """
        if let ahead = place.ahead, let minutes = place.estimatedWaitMinutes {
            body += "<p id=\"ahead\" data-ahead=\"\(ahead)\">\(words.ahead(ahead)) · \(words.waitAbout(minutes))</p>\n"
        }
        if ["waiting", "called", "admitted"].contains(place.state), let svg = qrSVG(place.code, label: words.codeLabel(place.number)) {
            body += "<figure class=\"code\">\(svg)<figcaption>\(words.code)</figcaption></figure>\n"
        }
        if ["waiting", "called"].contains(place.state) {
            body += """
                <form method="post" action="\(here)/leave\(lang)"><button type="submit" class="leave">\(words.leaveButton)</button></form>
                <p class="small" id="updating">\(still ? words.still : words.refreshes) <a href="\(here)\(lang)\(still ? "&amp;still=1" : "")">\(words.refresh)</a>
                · <a href="\(here)\(lang)\(still ? "" : "&amp;still=1")">\(still ? words.keepUpdating : words.stopUpdating)</a></p>
                """
        }
        body += "<p><a href=\"/line/\(place.store)\(lang)\">\(words.storeLink)</a></p>"
        return body
    }

    /// The code as an SVG QR symbol (level M, a quiet zone of 4 modules), drawn large enough
    /// for a door's reader from a phone's screen.
    static func qrSVG(_ text: String, label: String) -> String? {
        guard let symbol = try? QRCode(encoding: text) else { return nil }
        let quiet = 4, side = symbol.size + 8
        var path = ""
        for row in 0..<symbol.size {
            for column in 0..<symbol.size where symbol.isDark(row: row, column: column) {
                path += "M\(column + quiet) \(row + quiet)h1v1h-1z"
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" width="300" height="300" role="img" \
            aria-label="\(PanelPages.html(label))" shape-rendering="crispEdges"><rect width="\(side)" height="\(side)" fill="#fff"/>\
            <path d="\(path)" fill="#000"/></svg>
            """
    }

    static func refused(_ error: HubError, words: SiteWords, back store: String?) -> Response {
        let link = store.map { "<p><a href=\"/line/\($0)?lang=\(words.language.rawValue)\">\(words.storeLink)</a></p>" } ?? ""
        let status: HTTPResponse.Status = error.status.code >= 500 ? .serviceUnavailable : error.status
        return page(document(title: words.sorry, words: words, here: store.map { "/line/\($0)" } ?? "/line", refresh: false, body: """
            <h1>\(words.sorry)</h1><p class="error" role="alert">\(PanelPages.html(words.refusal(error)))</p>\(link)
            """), status: status)
    }

    static func document(title: String, words: SiteWords, here: String, refresh: Bool, body: String) -> String {
        let languages = SiteLanguage.allCases.map { language in
            language == words.language
                ? "<a href=\"\(here)?lang=\(language.rawValue)\" lang=\"\(language.rawValue)\" aria-current=\"true\">\(language.name)</a>"
                : "<a href=\"\(here)?lang=\(language.rawValue)\" lang=\"\(language.rawValue)\">\(language.name)</a>"
        }.joined(separator: " ")
        return """
            <!doctype html>
            <html lang="\(words.language.rawValue)"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            \(refresh ? "<meta http-equiv=\"refresh\" content=\"10\">" : "")
            <title>\(PanelPages.html(title)) — CLup</title>
            <style>
            body { font: 18px/1.5 "DejaVu Sans", "Noto Sans", sans-serif; margin: 0; color: #111; background: #fff; }
            main { max-width: 32rem; margin: 0 auto; padding: 1rem 1.2rem 3rem; }
            header { background: #0b3d2e; color: #fff; padding: .6rem 1.2rem; } header a { color: #fff; margin-right: .6rem; }
            h1 { font-size: 1.6rem; } .number { display: block; font-size: 3.2rem; font-weight: bold; letter-spacing: .05em; }
            button { font-size: 1.2rem; padding: .8rem 1.4rem; background: #0b3d2e; color: #fff; border: 0; border-radius: 6px; min-width: 12rem; }
            button.leave { background: #7a1c1c; } a { color: #0b3d2e; } a[aria-current] { font-weight: bold; text-decoration: none; }
            .error { background: #fbe9e9; border-left: 6px solid #a00000; padding: .6rem 1rem; }
            #state { font-size: 1.2rem; font-weight: bold; } figure { margin: 1rem 0; } .small { font-size: .9rem; }
            svg { max-width: 100%; height: auto; }
            </style></head>
            <body><header><nav aria-label="\(words.languages)">\(languages)</nav></header><main>
            \(body)
            </main></body></html>
            """
    }

    static func page(_ html: String, status: HTTPResponse.Status = .ok, extra: HTTPFields = [:]) -> Response {
        var response = Panel.page(html, status: status)
        for field in extra { response.headers.append(field) }
        return response
    }
}
