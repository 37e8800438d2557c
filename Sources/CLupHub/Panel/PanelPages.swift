import CLupCore
import Foundation

/// The panel's HTML, made on the server: no script, no font or style from elsewhere, charts
/// as SVG. Everything that came from a person or a database is escaped by `html(_:)`.
enum PanelPages {
    static func html(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A whole page around `body` (already HTML), in the language of `words`; `here` is the
    /// page's own address, where the language switch comes back to.
    static func page(title: String, manager: PanelAccounts.Manager?, csrf: String?, here: String, words: PanelWords,
                     body: String, refreshSeconds: Int? = nil) -> String {
        let bar = manager.map { manager in
            """
            <nav><a href="/panel">\(words.stores)</a> <a href="/panel/fleet">\(words.fleet)</a>
            \(languageSwitch(here: here, words: words))
            <span class="who">\(html(manager.name)) (\(html(words.role(manager.role)))\(manager.store.map { ", " + html(words.ofStore($0.rawValue)) } ?? ""))</span>
            <form method="post" action="/panel/logout" class="inline"><input type="hidden" name="csrf" value="\(html(csrf ?? ""))">
            <button type="submit">\(words.logOut)</button></form></nav>
            """
        } ?? ""
        return """
            <!doctype html>
            <html lang="\(words.language.rawValue)"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(html(title)) — CLup</title>\(refreshSeconds.map { "<meta http-equiv=\"refresh\" content=\"\($0)\">" } ?? "")
            <style>
            body { font: 16px/1.45 "DejaVu Sans", "Noto Sans", sans-serif; margin: 0; color: #111; background: #fff; }
            main { max-width: 1100px; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
            nav { background: #0b3d2e; color: #fff; padding: .6rem 1.5rem; display: flex; gap: 1.2rem; align-items: center; }
            nav a { color: #fff; font-weight: bold; } nav .who { margin-left: auto; } .languages a[aria-current] { text-decoration: none; }
            h1 { font-size: 1.6rem; } h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 2px solid #0b3d2e; }
            table { border-collapse: collapse; margin: .5rem 0; } th, td { border: 1px solid #888; padding: .3rem .6rem; text-align: left; }
            th { background: #e8efe9; } .flag { color: #a00000; font-weight: bold; } .ok { color: #0b5d1e; font-weight: bold; }
            form.settings label { display: block; margin: .5rem 0; } input { font-size: 1rem; padding: .3rem; }
            button { font-size: 1rem; padding: .4rem 1rem; background: #0b3d2e; color: #fff; border: 0; border-radius: 4px; }
            .inline { display: inline; } .notice { background: #e8efe9; border-left: 6px solid #0b3d2e; padding: .6rem 1rem; }
            .error { background: #fbe9e9; border-left: 6px solid #a00000; padding: .6rem 1rem; }
            .charts { display: flex; flex-wrap: wrap; gap: 2rem; } figure { margin: 0; } figcaption { font-weight: bold; }
            </style></head>
            <body>\(bar)<main>
            \(body)
            </main></body></html>
            """
    }

    /// Links to the panel in each of its languages, each named in its own; the one in use is
    /// marked as current.
    static func languageSwitch(here: String, words: PanelWords) -> String {
        let back = here.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "%2Fpanel"
        let links = PanelLanguage.allCases.map { language in
            let current = language == words.language ? " aria-current=\"true\"" : ""
            return "<a href=\"/panel/language/\(language.rawValue)?back=\(back)\" lang=\"\(language.rawValue)\" id=\"language-\(language.rawValue)\"\(current)>\(language.name)</a>"
        }
        return "<span class=\"languages\" aria-label=\"\(words.languageLabel)\">\(links.joined(separator: " · "))</span>"
    }

    static func login(message: String?, words: PanelWords) -> String {
        page(title: words.logIn, manager: nil, csrf: nil, here: "/panel/login", words: words, body: """
            <p>\(languageSwitch(here: "/panel/login", words: words))</p>
            <h1>\(words.panelTitle)</h1>
            \(message.map { "<p class=\"error\" role=\"alert\">\(html($0))</p>" } ?? "")
            <form method="post" action="/panel/login" class="settings">
            <label>\(words.name) <input name="name" id="name" autocomplete="username" required maxlength="32"></label>
            <label>\(words.password) <input name="password" id="password" type="password" autocomplete="current-password" required maxlength="72"></label>
            <button type="submit" id="login">\(words.logIn)</button>
            </form>
            """)
    }

    static func message(_ title: String, _ text: String, session: PanelAccounts.Session?, here: String, words: PanelWords) -> String {
        page(title: title, manager: session?.manager, csrf: session?.csrf, here: here, words: words,
             body: "<h1>\(html(title))</h1><p class=\"error\">\(html(text))</p>")
    }

    /// A bar chart: one bar per value, its label under it and its value over it. Without a
    /// value it says "no data", so that an empty box is not taken for a chart still loading.
    static func barChart(_ bars: [(label: String, value: Int)], title: String, words: PanelWords, width: Int = 480,
                         height: Int = 220) -> String {
        let top = max(1, bars.map(\.value).max() ?? 1)
        let plot = Double(height - 50)
        let slot = Double(width - 20) / Double(max(1, bars.count))
        var svg = """
            <figure><figcaption>\(html(title))</figcaption>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" role="img" aria-label="\(html(title))">
            <line x1="10" y1="\(height - 30)" x2="\(width - 10)" y2="\(height - 30)" stroke="#111"/>
            """
        if bars.isEmpty {
            svg += """
                <text x="\(width / 2)" y="\((height - 30) / 2)" font-size="16" text-anchor="middle" fill="#555">\(words.noData)</text>
                """
        }
        for (index, bar) in bars.enumerated() {
            let barHeight = plot * Double(max(0, bar.value)) / Double(top)
            let x = 10 + slot * Double(index)
            let barWidth = min(40, max(1, Int(slot * 0.7)))
            let y = Double(height - 30) - barHeight
            svg += """
                <rect x="\(Int(x + slot / 2) - barWidth / 2)" y="\(Int(y))" width="\(barWidth)" height="\(Int(barHeight))" fill="#0b3d2e"/>
                <text x="\(Int(x + slot / 2))" y="\(Int(y) - 4)" font-size="11" text-anchor="middle">\(bar.value)</text>
                <text x="\(Int(x + slot / 2))" y="\(height - 14)" font-size="11" text-anchor="middle">\(html(bar.label))</text>
                """
        }
        return svg + "</svg></figure>"
    }

    /// A table cell: its text, and for a state to be seen at a glance a style of the page's
    /// (`flag` red, `ok` green).
    struct Cell: Equatable {
        enum Style: String { case flag, ok }
        var text: String
        var style: Style?
        /// Where the cell leads, a page of the panel.
        var link: String?

        init(_ text: String, _ style: Style? = nil, link: String? = nil) {
            self.text = text
            self.style = style
            self.link = link
        }
    }

    static func table(_ header: [String], _ rows: [[String]], words: PanelWords) -> String {
        table(header, rows.map { $0.map { Cell($0) } }, words: words)
    }

    static func table(_ header: [String], _ rows: [[Cell]], words: PanelWords) -> String {
        var out = "<table><tr>" + header.map { "<th>\(html($0))</th>" }.joined() + "</tr>"
        for row in rows {
            out += "<tr>" + row.map { cell in
                let text = cell.link.map { "<a href=\"\(html($0))\">\(html(cell.text))</a>" } ?? html(cell.text)
                return (cell.style.map { "<td class=\"\($0.rawValue)\">" } ?? "<td>") + text + "</td>"
            }.joined() + "</tr>"
        }
        if rows.isEmpty { out += "<tr><td colspan=\"\(header.count)\">\(html(words.none))</td></tr>" }
        return out + "</table>"
    }

    /// A totem's state in the fleet: revoked, SILENT (red) when not heard from for longer
    /// than `Panel.silentAfter` or never, else ok (green).
    static func totemState(revoked: Bool, lastContact: Date?, now: Date, words: PanelWords) -> Cell {
        if revoked { return Cell(words.revoked) }
        guard let lastContact, now.timeIntervalSince(lastContact) <= Panel.silentAfter else {
            return Cell(words.silent(for: Int(Panel.silentAfter)), .flag)
        }
        return Cell(words.ok, .ok)
    }

    /// How many booking slots the store's page lists.
    static let slotsShown = 8

    /// The booking slots now and next: the one under way and those after it, booked or not,
    /// at most `count`.
    static func slotsNowAndNext(_ slots: [Bookings.Slot], now: Date, zone: TimeZone, words: PanelWords,
                                count: Int = slotsShown) -> String {
        table(words.slotHeader, slots.filter { $0.end > now }.prefix(count).map {
            [words.clockTime($0.start, zone), words.number($0.booked), words.number($0.free)]
        }, words: words)
    }

    /// The settings form of `store`, its fields filled with the saved `settings`; after a
    /// refused change, with what the manager `typed` instead (escaped), so that the error
    /// costs them nothing they typed.
    static func settingsForm(store: String, csrf: String, settings: StoreSettingsDocument, words: PanelWords,
                             rules: HubAdmin.NoticeRules = .standard, alerts: HubAdmin.StaffAlerts = .init(waitMinutes: 0, waiting: 0),
                             typed: [String: String] = [:]) -> String {
        let windows = settings.windows
        func field(_ name: String, _ label: String, min: Int, max: Int, saved: Int, step: Bool = false) -> String {
            """
            <label>\(html(label)) <input name="\(name)" id="\(name)" type="number" min="\(min)" max="\(max)"\(step ? " step=\"1\"" : "") \
            value="\(html(typed[name] ?? String(saved)))"></label>
            """
        }
        return """
            <form method="post" action="/panel/stores/\(html(store))/settings" class="settings">
            <input type="hidden" name="csrf" value="\(html(csrf))">
            \(field("capacity", words.capacityLabel, min: 1, max: 100_000, saved: settings.capacity))
            \(field("walkIn", words.walkInLabel, min: 0, max: 100_000, saved: settings.capacity - settings.bookingsPerSlot))
            <p>\(words.bookingPlaces("<strong id=\"bookingPlaces\">\(settings.bookingsPerSlot)</strong>"))</p>
            \(field("priorityPercent", words.priorityLabel, min: 0, max: 100,
                    saved: Int((settings.priorityShare * 100).rounded()), step: true))
            \(field("slotMinutes", words.slotLabel, min: 5, max: 240, saved: Int(windows?.slotMinutes ?? 30)))
            \(field("presentationMinutes", words.presentationLabel, min: 1, max: 240,
                    saved: Int(windows?.presentationMinutes ?? 5)))
            \(field("earlyMinutes", words.earlyLabel, min: 1, max: 240,
                    saved: Int(windows?.bookingEarlyMinutes ?? 10)))
            \(field("lateMinutes", words.lateLabel, min: 1, max: 240,
                    saved: Int(windows?.bookingLateMinutes ?? 15)))
            \(field("totemPlaces", words.totemPlacesLabel, min: 0, max: 1000,
                    saved: settings.totemBookingPlaces ?? 0))
            \(field("delayNoticeMinutes", words.delayNoticeLabel, min: 0, max: 240, saved: rules.delayNoticeMinutes))
            \(field("majorDelayMinutes", words.majorDelayLabel, min: 0, max: 600, saved: rules.majorDelayMinutes ?? 0))
            \(field("reminderMinutes", words.reminderLabel, min: 0, max: 1440, saved: rules.reminderMinutes))
            \(field("alertWaitMinutes", words.alertWaitLabel, min: 0, max: HubAdmin.StaffAlerts.waitRange.upperBound,
                    saved: alerts.waitMinutes))
            \(field("alertWaiting", words.alertWaitingLabel, min: 0, max: HubAdmin.StaffAlerts.waitingRange.upperBound,
                    saved: alerts.waiting))
            <p>\(words.openingHours("<strong id=\"hours\">\(html(settings.hours?.description ?? words.notSet))</strong>"))</p>
            <button type="submit" id="save">\(words.save)</button>
            </form>
            """
    }

    /// Where the live (or last) rollout stands; for a chain administrator, its buttons.
    static func rollout(_ status: Rollouts.Status?, chainAdmin: Bool, csrf: String, words: PanelWords) -> String {
        guard let status else { return "<p id=\"rollout\">\(html(words.noRollout))</p>" }
        var out = "<section id=\"rollout\"><h2>\(html(words.rolloutTitle(status.id, status.version)))</h2><p>"
            + html(words.rolloutLine(status)) + "</p>"
        if let reason = status.reason { out += "<p class=\"\(status.state == .paused ? "error" : "notice")\">\(html(reason))</p>" }
        if chainAdmin {
            let actions: [(String, String)] = switch status.state {
            case .running: [("pause", words.pauseRollout), ("abort", words.abortRollout)]
            case .paused: [("resume", words.resumeRollout), ("abort", words.abortRollout)]
            case .aborted, .done: []
            }
            for (action, label) in actions {
                out += """
                    <form method="post" action="/panel/fleet/rollout/\(action)" class="inline"><input type="hidden" name="csrf" value="\(html(csrf))">\
                    <button type="submit" id="rollout-\(action)">\(html(label))</button></form>
                    """
            }
        }
        return out + "</section>"
    }

    /// The chain administrator's form that starts a rollout: a version the repository
    /// publishes, the canaries ticked among the fleet's totems, the stages, the healthy time.
    static func rolloutForm(versions: [String], totems: [String], csrf: String, words: PanelWords) -> String {
        guard !versions.isEmpty else { return "<p>\(html(words.noRelease))</p>" }
        let options = versions.map { "<option value=\"\(html($0))\">\(html($0))</option>" }.joined()
        let boxes = totems.map { device in
            "<label class=\"inline\"><input type=\"checkbox\" name=\"canary-\(html(device))\" id=\"canary-\(html(device))\"> \(html(device))</label>"
        }.joined(separator: " ")
        return """
            <form method="post" action="/panel/fleet/rollout/start" class="settings" id="rollout-start">
            <h2>\(html(words.startRollout))</h2>
            <input type="hidden" name="csrf" value="\(html(csrf))">
            <label>\(html(words.versionLabel)) <select name="version" id="version">\(options)</select></label>
            <fieldset><legend>\(html(words.canariesLabel))</legend>\(boxes)</fieldset>
            <label>\(html(words.stagesLabel)) <input name="stages" id="stages" value="25" maxlength="40"></label>
            <label>\(html(words.healthyLabel)) <input name="healthyMinutes" id="healthyMinutes" type="number" min="0" max="10080" value="30"></label>
            <button type="submit" id="rollout-start-button">\(html(words.startRollout))</button>
            </form>
            """
    }

    static func csv(_ header: [String], _ rows: [[String]]) -> String {
        func field(_ text: String) -> String {
            // A cell a spreadsheet would run as a formula is quoted as text.
            let safe = text.first.map { "=+-@".contains($0) } == true ? "'" + text : text
            return safe.contains(where: { ",\"\n\r".contains($0) }) ? "\"" + safe.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : safe
        }
        return ([header] + rows).map { $0.map(field).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }


    /// Under the fleet: a totem to look at the screen of, among those the manager may see.
    static func screenForm(totems: [String], csrf: String, words: PanelWords) -> String {
        guard !totems.isEmpty else { return "" }
        return """
            <h2 id="screens">\(html(words.screenTitle))</h2>
            <form method="post" action="/panel/fleet/screen" class="settings"><input type="hidden" name="csrf" value="\(html(csrf))">
            <label>\(html(words.screenOf)) <select name="device" id="screenDevice">\(totems.map { "<option>\(html($0))</option>" }.joined())</select></label>
            <button type="submit" id="lookAtScreen">\(html(words.lookAtScreen))</button>
            <p>\(html(words.screenNote))</p>
            </form>
            """
    }

    /// A look at a totem's screen: the frame with its time, or the wait for it.
    static func look(_ look: RemoteScreens.Look, now: Date, words: PanelWords) -> (body: String, refresh: Int?) {
        let header = "<h1>\(html(words.screenOfTotem(look.device.rawValue)))</h1>"
        let asked = "<p>\(html(words.screenAsked(by: look.askedBy, at: words.utcTime(look.askedAt))))</p>"
        if look.frame != nil, let taken = look.takenAt {
            return ("""
                \(header)
                <p id="screenTaken">\(html(words.screenTaken(words.utcTime(taken))))</p>
                <img id="screen" src="/panel/screens/\(html(look.id))/frame.png" alt="\(html(words.screenOfTotem(look.device.rawValue)))">
                \(asked)
                <p>\(html(words.screenKept))</p>
                """, nil)
        }
        guard now.timeIntervalSince(look.askedAt) < RemoteScreens.answerWithin else {
            return ("\(header)<p class=\"error\" id=\"screenLate\">\(html(words.screenNoAnswer))</p>\(asked)", nil)
        }
        return ("\(header)<p class=\"notice\" id=\"screenWaiting\">\(html(words.screenWaiting))</p>\(asked)", 1)
    }
}
