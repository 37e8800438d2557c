import CLupCore
import CLupQR
import Foundation
import HTTPTypes
import Hummingbird

/// The website's pages, made on the server: a store's page, a place's page (with the code
/// for the door as an SVG QR symbol), a refusal. The place's page works with scripts off;
/// with them, `script` keeps it up to date in place.
enum LinePages {
    /// Whether a place may still move: the page follows it while it waits or is called.
    static func isLive(_ place: RemoteLine.Place) -> Bool { ["waiting", "called"].contains(place.state) }

    static func storeBody(_ view: RemoteLine.StoreView, held: String?, instead: [StoresNearby.Alternative], words: SiteWords) -> String {
        let store = view.store
        let lang = "?lang=\(words.language.rawValue)"
        let action = held.map { number in
            "<p class=\"place\"><a href=\"/line/\(store)/\(number)\(lang)\">\(words.yourPlace): \(number)</a></p>"
        } ?? "<form method=\"post\" action=\"/line/\(store)/join\(lang)\"><button type=\"submit\">\(words.joinButton)</button></form>"
        let alternatives = instead.isEmpty ? "" : """
            <section aria-labelledby="instead"><h2 id="instead">\(words.shorterWaitsNearby)</h2><ul class="instead">
            \(instead.map { """
                <li><a href="/line/\($0.store)\(lang)">\(PanelPages.html($0.name))</a> · \(words.kilometres($0.distanceKm)) · \(words.waitAbout($0.estimatedWaitMinutes))</li>
                """ }.joined(separator: "\n"))
            </ul></section>
            """
        return """
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
    }

    static func placeBody(_ place: RemoteLine.Place, words: SiteWords, pushKey: String? = nil) -> String {
        let lang = "?lang=\(words.language.rawValue)"
        let here = "/line/\(place.store)/\(place.number)"
        let ahead = place.ahead.map { "<p id=\"ahead\" data-ahead=\"\($0)\">\(aheadText(place, words: words) ?? "")</p>" }
            ?? "<p id=\"ahead\" hidden></p>"
        // One polite live region: a screen reader says the state and the places ahead when they change.
        var body = """
            <h1>\(words.yourPlace) <span class="number" id="number">\(place.number)</span></h1>
            <div id="live" role="status" data-status="\(here)/status\(lang)">
            <p id="state" data-state="\(place.state)">\(PanelPages.html(words.state(place.state, door: place.doorName)))</p>
            \(ahead)
            </div>
            """
        if ["waiting", "called", "admitted"].contains(place.state), let svg = qrSVG(place.code, label: words.codeLabel(place.number)) {
            body += "<figure class=\"code\">\(svg)<figcaption>\(words.code)</figcaption></figure>\n"
        }
        if isLive(place), let pushKey {
            // Offered by the script where the browser can be told (it stays hidden otherwise).
            body += """
                <p id="push" hidden data-key="\(pushKey)" data-subscribe="\(here)/push\(lang)" \
                data-done="\(PanelPages.html(words.pushDone))" data-refused="\(PanelPages.html(words.pushRefused))">\
                <button type="button" id="push-button">\(words.pushOffer)</button> <span id="push-note"></span></p>

                """
        }
        if isLive(place) {
            body += """
                <form method="post" action="\(here)/leave\(lang)"><button type="submit" class="leave">\(words.leaveButton)</button></form>
                <p class="small" id="updating" data-updating="\(PanelPages.html(words.refreshes))" data-stopped="\(PanelPages.html(words.still))" \
                data-stop="\(PanelPages.html(words.stopUpdating))" data-start="\(PanelPages.html(words.keepUpdating))">\
                <span id="updating-text">\(words.still)</span> <a href="\(here)\(lang)">\(words.refresh)</a> \
                <button type="button" id="updates" class="quiet" hidden>\(words.stopUpdating)</button></p>

                """
        }
        body += "<p><a href=\"/line/\(place.store)\(lang)\">\(words.storeLink)</a></p>"
        return body
    }

    static func aheadText(_ place: RemoteLine.Place, words: SiteWords) -> String? {
        guard let ahead = place.ahead, let minutes = place.estimatedWaitMinutes else { return nil }
        return "\(words.ahead(ahead)) · \(words.waitAbout(minutes))"
    }

    /// What the place's page reads to update itself.
    struct Status: Encodable {
        let state: String
        let stateText: String
        let ahead: Int?
        let aheadText: String?
        /// false once the place is over: the page is loaded again, to show how it ended.
        let live: Bool

        init(_ place: RemoteLine.Place, words: SiteWords) {
            state = place.state
            stateText = words.state(place.state, door: place.doorName)
            ahead = place.ahead
            aheadText = LinePages.aheadText(place, words: words)
            live = LinePages.isLive(place)
        }
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
        return page(document(title: words.sorry, words: words, here: store.map { "/line/\($0)" } ?? "/line", body: """
            <h1>\(words.sorry)</h1><p class="error" role="alert">\(PanelPages.html(words.refusal(error)))</p>\(link)
            """), status: status)
    }

    /// A form posted from another site's page (`SameOriginMiddleware`): nothing was done.
    static func crossSite(words: SiteWords) -> Response {
        page(document(title: words.sorry, words: words, here: "/line", body: """
            <h1>\(words.sorry)</h1><p class="error" role="alert">\(words.crossSite)</p>
            """), status: .forbidden)
    }

    static func document(title: String, words: SiteWords, here: String, script: Bool = false, body: String) -> String {
        let languages = SiteLanguage.allCases.map { language in
            "<a href=\"\(here)?lang=\(language.rawValue)\" lang=\"\(language.rawValue)\"\(language == words.language ? " aria-current=\"true\"" : "")>\(language.name)</a>"
        }.joined(separator: " ")
        return """
            <!doctype html>
            <html lang="\(words.language.rawValue)"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(PanelPages.html(title)) — CLup</title>
            \(script ? "<script src=\"/line/place.js\" defer></script>" : "")
            <style>
            body { font: 18px/1.5 "DejaVu Sans", "Noto Sans", sans-serif; margin: 0; color: #111; background: #fff; }
            main { max-width: 32rem; margin: 0 auto; padding: 1rem 1.2rem 3rem; }
            header { background: #0b3d2e; color: #fff; padding: .6rem 1.2rem; } header a { color: #fff; margin-right: .6rem; }
            h1 { font-size: 1.6rem; } .number { display: block; font-size: 3.2rem; font-weight: bold; letter-spacing: .05em; }
            button { font-size: 1.2rem; padding: .8rem 1.4rem; background: #0b3d2e; color: #fff; border: 0; border-radius: 6px; min-width: 12rem; }
            button.leave { background: #7a1c1c; } button.quiet { font-size: .9rem; padding: .3rem .8rem; min-width: 0; }
            a { color: #0b3d2e; } a[aria-current] { font-weight: bold; text-decoration: none; }
            .error { background: #fbe9e9; border-left: 6px solid #a00000; padding: .6rem 1rem; }
            #state { font-size: 1.2rem; font-weight: bold; } figure { margin: 1rem 0; } .small { font-size: .9rem; }
            svg { max-width: 100%; height: auto; }
            </style></head>
            <body><header><nav aria-label="\(words.languages)">\(languages)</nav></header><main>
            \(body)
            </main></body></html>
            """
    }

    /// The site's pages send nothing to another site and load nothing from one; their one
    /// script is the hub's own. `Referrer-Policy: same-origin`, not `no-referrer`: under the
    /// latter a browser posts a form with `Origin: null`, which `SameOriginMiddleware` refuses.
    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; script-src 'self'; connect-src 'self'; "
            + "worker-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        .xContentTypeOptions: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "same-origin",
        .cacheControl: "no-store",
    ]

    static func page(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// The place page's script (`/line/place.js`): every 10 s it reads the place's status
    /// (JSON, with the same cookie) and changes the state and the places ahead in place, in
    /// the page's polite live region, so a screen reader says what changed and nothing moves
    /// under the reader's finger. The person may stop it and start it again (WCAG 2.2.2); a
    /// place that is over loads the page once more, which then shows how it ended. Nothing
    /// else depends on it: with scripts off the page stands as served, with its Refresh link.
    static let script = """
        "use strict";
        (function () {
          var live = document.getElementById("live"), bar = document.getElementById("updating");
          var button = document.getElementById("updates"), note = document.getElementById("updating-text");
          if (!live || !bar || !button || !note || !window.fetch) { return; }
          var every = 10000, running = true, timer = null;
          function show(s) {
            if (!s.live) { window.location.reload(); return; }
            var state = document.getElementById("state"), ahead = document.getElementById("ahead");
            if (state.getAttribute("data-state") !== s.state || state.textContent !== s.stateText) {
              state.setAttribute("data-state", s.state);
              state.textContent = s.stateText;
            }
            if (s.ahead === null) {
              ahead.hidden = true;
            } else if (ahead.hidden || ahead.getAttribute("data-ahead") !== String(s.ahead) || ahead.textContent !== s.aheadText) {
              ahead.setAttribute("data-ahead", String(s.ahead));
              ahead.textContent = s.aheadText;
              ahead.hidden = false;
            }
          }
          function read() {
            timer = null;
            fetch(live.getAttribute("data-status"), { credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" } })
              .then(function (answer) { return answer.ok ? answer.json() : null; })
              .then(function (s) { if (s && running) { show(s); } }, function () {})
              .then(function () { if (running && timer === null) { timer = window.setTimeout(read, every); } });
          }
          function set(on) {
            running = on;
            note.textContent = bar.getAttribute(on ? "data-updating" : "data-stopped");
            button.textContent = bar.getAttribute(on ? "data-stop" : "data-start");
            bar.setAttribute("data-running", on ? "yes" : "no");
            if (on && timer === null) { timer = window.setTimeout(read, every); }
            if (!on && timer !== null) { window.clearTimeout(timer); timer = null; }
          }
          button.hidden = false;
          button.addEventListener("click", function () { set(!running); });
          set(true);
          // Web Push, where the hub offers it and the browser can: asked for by a tap, never by itself.
          var push = document.getElementById("push");
          if (!push || !("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) { return; }
          var ask = document.getElementById("push-button"), said = document.getElementById("push-note");
          function key(text) {
            var standard = text.replace(/-/g, "+").replace(/_/g, "/");
            var raw = window.atob(standard + "===".slice((standard.length + 3) % 4));
            var bytes = new Uint8Array(raw.length);
            for (var i = 0; i < raw.length; i += 1) { bytes[i] = raw.charCodeAt(i); }
            return bytes;
          }
          push.hidden = false;
          ask.addEventListener("click", function () {
            ask.disabled = true;
            Notification.requestPermission()
              .then(function (permission) {
                if (permission !== "granted") { throw new Error("not granted"); }
                return navigator.serviceWorker.register("/line/sw.js", { scope: "/line/" });
              })
              .then(function () { return navigator.serviceWorker.ready; })
              .then(function (registration) {
                return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key(push.getAttribute("data-key")) });
              })
              .then(function (subscription) {
                return fetch(push.getAttribute("data-subscribe"), { method: "POST", credentials: "same-origin",
                  headers: { "Content-Type": "application/json" }, body: JSON.stringify(subscription) });
              })
              .then(function (answer) {
                if (!answer.ok) { throw new Error("refused"); }
                ask.hidden = true;
                said.textContent = push.getAttribute("data-done");
              })
              .catch(function () {
                ask.disabled = false;
                said.textContent = push.getAttribute("data-refused");
              });
          });
        })();
        """

    /// The service worker (`/line/sw.js`, scope `/line/`): shows what the hub sent by Web Push
    /// (decrypted by the browser), and opens the place's page when it is tapped.
    static let serviceWorker = """
        "use strict";
        self.addEventListener("push", function (event) {
          var message = {};
          try { message = event.data ? event.data.json() : {}; } catch (e) { message = {}; }
          event.waitUntil(self.registration.showNotification(message.title || "CLup", {
            body: message.body || "", tag: message.tag, renotify: true, data: { url: message.url }
          }));
        });
        self.addEventListener("notificationclick", function (event) {
          event.notification.close();
          var url = event.notification.data && event.notification.data.url;
          if (url && url.charAt(0) === "/") { event.waitUntil(self.clients.openWindow(url)); }
        });
        """
}
