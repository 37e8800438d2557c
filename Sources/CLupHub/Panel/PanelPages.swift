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

    /// A whole page around `body` (already HTML).
    static func page(title: String, manager: PanelAccounts.Manager?, csrf: String?, body: String) -> String {
        let bar = manager.map { manager in
            """
            <nav><a href="/panel">Stores</a> <a href="/panel/fleet">Fleet</a>
            <span class="who">\(html(manager.name)) (\(html(manager.role.rawValue))\(manager.store.map { ", store \(html($0))" } ?? ""))</span>
            <form method="post" action="/panel/logout" class="inline"><input type="hidden" name="csrf" value="\(html(csrf ?? ""))">
            <button type="submit">Log out</button></form></nav>
            """
        } ?? ""
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(html(title)) — CLup</title>
            <style>
            body { font: 16px/1.45 "DejaVu Sans", "Noto Sans", sans-serif; margin: 0; color: #111; background: #fff; }
            main { max-width: 1100px; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
            nav { background: #0b3d2e; color: #fff; padding: .6rem 1.5rem; display: flex; gap: 1.2rem; align-items: center; }
            nav a { color: #fff; font-weight: bold; } nav .who { margin-left: auto; }
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

    static func login(message: String?) -> String {
        page(title: "Log in", manager: nil, csrf: nil, body: """
            <h1>CLup — managers' panel</h1>
            \(message.map { "<p class=\"error\" role=\"alert\">\(html($0))</p>" } ?? "")
            <form method="post" action="/panel/login" class="settings">
            <label>Name <input name="name" id="name" autocomplete="username" required maxlength="32"></label>
            <label>Password <input name="password" id="password" type="password" autocomplete="current-password" required maxlength="72"></label>
            <button type="submit" id="login">Log in</button>
            </form>
            """)
    }

    static func message(_ title: String, _ text: String, session: PanelAccounts.Session?) -> String {
        page(title: title, manager: session?.manager, csrf: session?.csrf, body: "<h1>\(html(title))</h1><p class=\"error\">\(html(text))</p>")
    }

    /// A bar chart: one bar per value, its label under it and its value over it. Without a
    /// value it says "no data", so that an empty box is not taken for a chart still loading.
    static func barChart(_ bars: [(label: String, value: Int)], title: String, width: Int = 480, height: Int = 220) -> String {
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
                <text x="\(width / 2)" y="\((height - 30) / 2)" font-size="16" text-anchor="middle" fill="#555">no data</text>
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

        init(_ text: String, _ style: Style? = nil) {
            self.text = text
            self.style = style
        }
    }

    static func table(_ header: [String], _ rows: [[String]]) -> String {
        table(header, rows.map { $0.map { Cell($0) } })
    }

    static func table(_ header: [String], _ rows: [[Cell]]) -> String {
        var out = "<table><tr>" + header.map { "<th>\(html($0))</th>" }.joined() + "</tr>"
        for row in rows {
            out += "<tr>" + row.map { cell in
                (cell.style.map { "<td class=\"\($0.rawValue)\">" } ?? "<td>") + html(cell.text) + "</td>"
            }.joined() + "</tr>"
        }
        if rows.isEmpty { out += "<tr><td colspan=\"\(header.count)\">none</td></tr>" }
        return out + "</table>"
    }

    /// A totem's state in the fleet: revoked, SILENT (red) when not heard from for longer
    /// than `Panel.silentAfter` or never, else ok (green).
    static func totemState(revoked: Bool, lastContact: Date?, now: Date) -> Cell {
        if revoked { return Cell("revoked") }
        guard let lastContact, now.timeIntervalSince(lastContact) <= Panel.silentAfter else {
            return Cell("SILENT for over \(Int(Panel.silentAfter)) s", .flag)
        }
        return Cell("ok", .ok)
    }

    /// The booking slots of the store's day now and next: the one under way and those after
    /// it, booked or not, at most `count`.
    static func slotsNowAndNext(_ slots: [Bookings.Slot], now: Date, zone: TimeZone, count: Int = 8) -> String {
        table(["slot", "booked", "free"], slots.filter { $0.end > now }.prefix(count).map {
            [clockTime($0.start, zone), "\($0.booked)", "\($0.free)"]
        })
    }

    /// "2026-11-24 14:30" as `zone`'s clocks read `date`.
    static func clockTime(_ date: Date, _ zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
                      parts.minute ?? 0)
    }

    /// The settings form of `store`, its fields filled with the saved `settings`; after a
    /// refused change, with what the manager `typed` instead (escaped), so that the error
    /// costs them nothing they typed.
    static func settingsForm(store: String, csrf: String, settings: StoreSettingsDocument, typed: [String: String] = [:]) -> String {
        let windows = settings.windows
        func field(_ name: String, _ label: String, min: Int, max: Int, saved: Int, step: Bool = false) -> String {
            """
            <label>\(label) <input name="\(name)" id="\(name)" type="number" min="\(min)" max="\(max)"\(step ? " step=\"1\"" : "") \
            value="\(html(typed[name] ?? String(saved)))"></label>
            """
        }
        return """
            <form method="post" action="/panel/stores/\(html(store))/settings" class="settings">
            <input type="hidden" name="csrf" value="\(html(csrf))">
            \(field("capacity", "Capacity (people inside at once)", min: 1, max: 100_000, saved: settings.capacity))
            \(field("walkIn", "Places for walk-in customers", min: 0, max: 100_000, saved: settings.capacity - settings.bookingsPerSlot))
            <p>Places for bookings, per slot: <strong id="bookingPlaces">\(settings.bookingsPerSlot)</strong> (the capacity less the walk-in places: raising one lowers the other)</p>
            \(field("priorityPercent", "Priority share of the capacity (places kept for priority tickets), %", min: 0, max: 100,
                    saved: Int((settings.priorityShare * 100).rounded()), step: true))
            \(field("slotMinutes", "Slot length, minutes", min: 5, max: 240, saved: Int(windows?.slotMinutes ?? 30)))
            \(field("presentationMinutes", "Minutes a called ticket has to reach the door", min: 1, max: 240,
                    saved: Int(windows?.presentationMinutes ?? 5)))
            \(field("earlyMinutes", "A booking is admitted from minutes before its slot", min: 1, max: 240,
                    saved: Int(windows?.bookingEarlyMinutes ?? 10)))
            \(field("lateMinutes", "… to minutes after its start (then it is a no-show)", min: 1, max: 240,
                    saved: Int(windows?.bookingLateMinutes ?? 15)))
            \(field("totemPlaces", "Of each slot's booking places, kept for each totem's own bookings (offline too)", min: 0, max: 1000,
                    saved: settings.totemBookingPlaces ?? 0))
            <p>Opening hours (<code>clup-hub store hours</code>): <strong id="hours">\(html(settings.hours?.description ?? "not set"))</strong></p>
            <button type="submit" id="save">Save</button>
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

    static func time(_ date: Date?) -> String {
        guard let date else { return "never" }
        return date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false).timeSeparator(.colon))
    }
}
