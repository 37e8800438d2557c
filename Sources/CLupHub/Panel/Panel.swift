import CLupCore
import CLupProtocol
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PostgresNIO

/// The managers' web panel under /panel: log in, a store's settings and statistics, the
/// fleet of totems. A store manager sees and changes their own store only; a chain
/// administrator every store. Every change goes through `HubAdmin.setStore` with the
/// manager's name, which audits it.
struct Panel: Sendable {
    let database: HubDatabase
    let accounts: PanelAccounts

    static let cookie = "clup_panel"
    static let maximumFormBytes = 16 * 1024
    /// A totem not heard from for longer is flagged in the fleet.
    static let silentAfter: Double = 120

    init(database: HubDatabase) {
        self.database = database
        accounts = PanelAccounts(database: database)
    }

    func add(to router: Router<HubRequestContext>) {
        router.get("/panel/login") { _, _ in Self.page(PanelPages.login(message: nil)) }
        router.post("/panel/login") { request, context in try await login(request, context) }
        let panel = router.group("/panel").add(middleware: PanelSessionMiddleware(accounts: accounts))
        panel.get("") { _, context in try await stores(try Self.session(context)) }
        panel.get("fleet") { _, context in try await fleet(try Self.session(context)) }
        panel.get("stores/:store") { request, context in
            let session = try Self.session(context)
            let store = try Self.store(context, session)
            return try await storePage(store, session, notice: request.uri.queryParameters.get("saved").map { _ in "Saved." })
        }
        panel.post("stores/:store/settings") { request, context in
            let session = try Self.session(context)
            let store = try Self.store(context, session)
            var request = request
            let form = try await Self.form(&request, session: session)
            do {
                try await change(store, form: form, by: session.manager.name)
            } catch let error as HubError {
                // The page with the error keeps what the manager typed, to be corrected.
                return try await storePage(store, session, error: error.coded.message, typed: form, status: .unprocessableContent)
            }
            return Response(status: .seeOther, headers: [.location: "/panel/stores/\(store)?saved=1"])
        }
        panel.get("stores/:store/days.csv") { _, context in
            let session = try Self.session(context)
            let (header, rows) = try await days(try Self.store(context, session))
            return Self.csv(PanelPages.csv(header, rows), name: "days")
        }
        panel.get("stores/:store/lanes.csv") { _, context in
            let session = try Self.session(context)
            let (header, rows) = try await lanes(try Self.store(context, session))
            return Self.csv(PanelPages.csv(header, rows), name: "lanes")
        }
        panel.post("logout") { request, context in
            let session = try Self.session(context)
            var request = request
            _ = try await Self.form(&request, session: session)
            if let token = Self.token(request) { try await accounts.logout(token: token) }
            return Response(status: .seeOther, headers: [.location: "/panel/login", .setCookie: Self.expiredCookie])
        }
    }

    // MARK: Logging in

    func login(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        var request = request
        let form = try await Self.fields(&request)
        let name = form["name"] ?? "", password = form["password"] ?? ""
        // Not a name a manager can have (a NUL, a line break, 300 letters): a page, not a lookup.
        guard PanelAccounts.isManagerName(name) else {
            return Self.page(PanelPages.login(message: PanelAccounts.nameRule), status: .badRequest)
        }
        switch try await accounts.login(name: name, password: password) {
        case let .loggedIn(token, _):
            // A new token at every login: one a visitor was given before is never the session.
            return Response(status: .seeOther, headers: [
                .location: "/panel",
                .setCookie: "\(Self.cookie)=\(token); Path=/panel; Secure; HttpOnly; SameSite=Strict; Max-Age=\(Int(PanelAccounts.lifetime))",
            ])
        case .refused:
            return Self.page(PanelPages.login(message: "Wrong name or password."), status: .unauthorized)
        case let .locked(until):
            return Self.page(PanelPages.login(message: "After \(PanelAccounts.failuresBeforeLockout) wrong passwords this name is locked until \(PanelPages.time(until)) UTC."),
                             status: .tooManyRequests)
        }
    }

    // MARK: Pages

    func stores(_ session: PanelAccounts.Session) async throws -> Response {
        let manager = session.manager
        let rows = try await database.transaction { [logger = database.logger] connection in
            try await connection.rows("""
                SELECT s.store_id, s.name, s.capacity, coalesce(sum(o.carried + o.entries - o.exits + o.corrections), 0)::integer
                FROM store s LEFT JOIN occupancy o ON o.store_id = s.store_id
                    AND o.business_day = (SELECT max(business_day) FROM occupancy WHERE store_id = s.store_id)
                WHERE \(manager.store)::text IS NULL OR s.store_id = \(manager.store)
                GROUP BY s.store_id ORDER BY s.store_id::bigint
                """, as: (String, String, Int, Int).self, logger)
        }
        let list = rows.map { id, name, capacity, inside in
            "<li><a href=\"/panel/stores/\(PanelPages.html(id))\">Store \(PanelPages.html(id)) — \(PanelPages.html(name))</a>: \(max(0, inside)) inside of \(capacity)</li>"
        }.joined()
        return Self.page(PanelPages.page(title: "Stores", manager: manager, csrf: session.csrf,
                                         body: "<h1>Stores</h1><ul>\(list.isEmpty ? "<li>none</li>" : list)</ul>"))
    }

    /// The store's page; after a refused change, with the `error` and the form as `typed`.
    func storePage(_ store: String, _ session: PanelAccounts.Session, notice: String? = nil, error: String? = nil,
                   typed: [String: String] = [:], status: HTTPResponse.Status = .ok) async throws -> Response {
        let logger = database.logger
        guard let settings = try await database.transaction({ connection in
            try await StoreSettingsReader.current(store: store, device: nil, connection, logger)
        }) else { return Self.page(PanelPages.message("No such store", "There is no store \(store).", session: session), status: .notFound) }
        let (name, zoneName) = try await database.transaction { connection in
            try await connection.rows("SELECT name, time_zone FROM store WHERE store_id = \(store)", as: (String, String).self, logger)
                .first ?? ("", "UTC")
        }
        // The store's clock: its hours, slots and times as the people in it read them.
        let zone = TimeZone(identifier: zoneName) ?? .gmt
        let hourly = try await insideByHour(store, zone: zone)
        let (dayHeader, dayRows) = try await days(store)
        let (laneHeader, laneRows) = try await lanes(store)
        let now = Date()
        let slots = try await Bookings(database: database).slots(store: store, day: nil, now: now)
        let html = PanelPages.html
        let body = """
            <h1>Store \(html(store)) — \(html(name))</h1>
            \(notice.map { "<p class=\"notice\" role=\"status\">\(html($0))</p>" } ?? "")
            \(error.map { "<p class=\"error\" role=\"alert\">\(html($0))</p>" } ?? "")
            <h2>Settings (version \(settings.version))</h2>
            \(PanelPages.settingsForm(store: store, csrf: session.csrf, settings: settings, typed: typed))
            <h2>Statistics</h2>
            <div class="charts">
            <p class="zone">Hours and times on the store's clock (\(html(zone.identifier))).</p>
            \(PanelPages.barChart(hourly, title: "People inside at the end of each hour of the store's day"))
            \(PanelPages.barChart(dayRows.suffix(14).map { (label: String($0[0].suffix(5)), value: Int($0[1]) ?? 0) }, title: "Entries per day, the last 14 days"))
            </div>
            <p id="timeInStore">\(html(try await timeInStore(store)))</p>
            <h3>Tickets of the store's day by lane</h3>
            \(PanelPages.table(laneHeader, laneRows))
            <p><a href="/panel/stores/\(html(store))/lanes.csv">lanes.csv</a></p>
            <h3>Booking slots now and next (\(settings.bookingsPerSlot) places each)</h3>
            \(PanelPages.slotsNowAndNext(slots.slots, now: now, zone: zone))
            <h3>Days</h3>
            \(PanelPages.table(dayHeader, Array(dayRows.suffix(14))))
            <p><a href="/panel/stores/\(html(store))/days.csv">days.csv</a></p>
            """
        return Self.page(PanelPages.page(title: "Store \(store)", manager: session.manager, csrf: session.csrf, body: body), status: status)
    }

    func fleet(_ session: PanelAccounts.Session) async throws -> Response {
        let manager = session.manager
        let rows = try await HubAdmin(database: database).totems(store: manager.store)
        let versions = try await database.transaction { [logger = database.logger] connection in
            Dictionary(try await connection.rows("""
                SELECT device_id, software_version, coalesce(applied_settings_version, 0), last_health FROM totem
                """, as: (String, String, Int64, String?).self, logger).map { ($0.0, ($0.1, $0.2, $0.3)) },
                       uniquingKeysWith: { first, _ in first })
        }
        let health = { (device: String) -> TotemHealth? in
            versions[device]?.2.flatMap { try? JSONDecoder().decode(TotemHealth.self, from: Data($0.utf8)) }
        }
        let now = Date()
        let table = PanelPages.table(
            ["totem", "store", "door", "last contact", "software", "settings version", "outbox", "clock skew (s)", "devices",
             "printer", "state"],
            rows.map { row in
                let reported = health(row.deviceID)
                let faults = reported?.devices.filter { $0.state != "ok" }.map { "\($0.role) \($0.state): \($0.detail)" } ?? []
                let devices = reported.map { faults.isEmpty ? "all \($0.devices.count) ok" : faults.joined(separator: "; ") } ?? "?"
                let figures: [String] = [
                    row.deviceID, row.store, row.door, PanelPages.time(row.lastContact), versions[row.deviceID]?.0 ?? "?",
                    "\(versions[row.deviceID]?.1 ?? 0)", row.outboxDepth.map(String.init) ?? "?",
                    row.clockSkew.map { String(format: "%.2f", $0) } ?? "?", devices, reported?.printer ?? "?",
                ]
                let state = PanelPages.totemState(revoked: row.revokedAt != nil, lastContact: row.lastContact, now: now)
                return figures.map { PanelPages.Cell($0) } + [state]
            })
        let body = """
            <h1>Fleet</h1>\(table)
            <p>A totem not heard from for \(Int(Self.silentAfter)) s is flagged SILENT. Devices and printer are as the totem last
            reported them (with every upload, at least every 30 s).</p>
            """
        return Self.page(PanelPages.page(title: "Fleet", manager: manager, csrf: session.csrf, body: body))
    }

    // MARK: Figures

    /// People inside at the end of each hour of the store's day, on the store's clock, from
    /// the passages and corrections uploaded; none before a totem of the store has opened the day.
    func insideByHour(_ store: String, zone: TimeZone) async throws -> [(label: String, value: Int)] {
        let logger = database.logger
        let (doors, carried, events) = try await database.transaction { connection in
            let (doors, carried) = try await connection.rows(PostgresQuery(unsafeSQL: """
                SELECT count(*)::integer, coalesce(sum(carried), 0)::integer FROM occupancy
                WHERE store_id = $1 AND business_day = \(Projections.currentDaySQL)
                """, binds: Self.binds(store)), as: (Int, Int).self, logger).first ?? (0, 0)
            let events = try await connection.rows(PostgresQuery(unsafeSQL: """
                SELECT extract(epoch FROM wall_time)::double precision, payload FROM event
                WHERE store_id = $1 AND business_day = \(Projections.currentDaySQL) AND type IN ('occupancy.passage', 'occupancy.corrected')
                ORDER BY wall_time LIMIT 500000
                """, binds: Self.binds(store)), as: (Double, String).self, logger)
            return (doors, carried, events)
        }
        guard doors > 0 || !events.isEmpty else { return [] }
        let changes = events.compactMap { seconds, payload -> (at: Date, delta: Int)? in
            switch try? EventCoding.event(from: payload) {
            case let .passage(direction, _, _, _, _, _)?: (Date(timeIntervalSince1970: seconds), direction == .entry ? 1 : -1)
            case let .occupancyCorrected(_, _, delta, _, _, _)?: (Date(timeIntervalSince1970: seconds), delta)
            default: nil
            }
        }
        return Self.hourlyInside(changes, carried: carried, now: Date(), zone: zone)
    }

    /// People inside at the end of each hour, as the store's clock reads its hours: from
    /// `carried`, moved by `changes` (in order); the last 24 hours at most, up to the one under
    /// way at `now`. Where the clocks go back, the hour they repeat is two bars with one label;
    /// where they go forward, the hour they skip is none; in a zone half an hour off UTC, the
    /// hours still begin at the store's :00.
    static func hourlyInside(_ changes: [(at: Date, delta: Int)], carried: Int, now: Date,
                             zone: TimeZone) -> [(label: String, value: Int)] {
        /// When the store's hour holding `instant` began (seconds since 1970), and its label.
        func hour(of instant: Double) -> (start: Int64, label: String) {
            let offset = Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: instant)))
            let local = ((instant + offset) / 3600).rounded(.down)
            let label = String(format: "%02d", Int(local.truncatingRemainder(dividingBy: 24) + 24) % 24)
            return (Int64(local * 3600 - offset), label)
        }
        var byHour: [Int64: Int] = [:]
        var inside = carried
        for change in changes {
            inside = inside.addingSaturating(change.delta)
            byHour[hour(of: change.at.timeIntervalSince1970).start] = inside
        }
        let current = hour(of: now.timeIntervalSince1970)
        var hours = [current]
        while hours.count < 24, let earliest = byHour.keys.min(), hours[0].start > earliest {
            hours.insert(hour(of: Double(hours[0].start) - 1), at: 0)
        }
        var last = carried
        for (start, value) in byHour.sorted(by: { $0.key < $1.key }) where start < hours[0].start { last = value }
        return hours.map { hour in
            if let value = byHour[hour.start] { last = value }
            return (label: hour.label, value: max(0, last))
        }
    }

    static func binds(_ store: String) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(store)
        return binds
    }

    /// The average time in store of the store's day, from the tickets scanned at the door on
    /// the way in and again on the way out, and how many it rests on.
    func timeInStore(_ store: String) async throws -> String {
        let (count, minutes) = try await database.transaction { [logger = database.logger] connection in
            try await connection.rows(PostgresQuery(unsafeSQL: """
                SELECT count(*)::integer, coalesce(avg(extract(epoch FROM left_at - entered_at)) / 60, 0)::double precision
                FROM ticket WHERE store_id = $1 AND business_day = \(Projections.currentDaySQL)
                    AND left_at IS NOT NULL AND entered_at IS NOT NULL AND left_at >= entered_at
                """, binds: Self.binds(store)), as: (Int, Double).self, logger).first ?? (0, 0)
        }
        guard count > 0 else { return "Time in store: no ticket has been scanned on the way out yet today." }
        return "Average time in store today: \(String(format: "%.1f", minutes)) min, from \(count) "
            + (count == 1 ? "ticket" : "tickets") + " scanned on the way in and again on the way out."
    }

    func days(_ store: String) async throws -> ([String], [[String]]) {
        let rows = try await database.transaction { [logger = database.logger] connection in
            try await connection.rows("""
                SELECT business_day::text, sum(entries)::integer, sum(exits)::integer, sum(corrections)::integer,
                       (sum(carried + entries - exits + corrections))::integer
                FROM occupancy WHERE store_id = \(store) AND business_day > current_date - 90
                GROUP BY business_day ORDER BY business_day
                """, as: (String, Int, Int, Int, Int).self, logger)
        }
        return (["day", "entries", "exits", "corrections", "inside at the end"],
                rows.map { [$0.0, "\($0.1)", "\($0.2)", "\($0.3)", "\(max(0, $0.4))"] })
    }

    func lanes(_ store: String) async throws -> ([String], [[String]]) {
        let rows = try await database.transaction { [logger = database.logger] connection in
            try await connection.rows(PostgresQuery(unsafeSQL: """
                SELECT lane, count(*)::integer, count(called_at)::integer, count(admitted_at)::integer,
                       count(*) FILTER (WHERE state = '\(TicketState.noShow.rawValue)')::integer,
                       count(*) FILTER (WHERE state = '\(TicketState.waiting.rawValue)')::integer,
                       coalesce(round(avg(extract(epoch FROM called_at - issued_at)) / 60)::integer, -1),
                       coalesce(round(avg(promised_wait_minutes) FILTER (WHERE called_at IS NOT NULL))::integer, -1)
                FROM ticket WHERE store_id = $1 AND business_day = \(Projections.currentDaySQL) GROUP BY lane ORDER BY lane
                """, binds: Self.binds(store)), as: (String, Int, Int, Int, Int, Int, Int, Int).self, logger)
        }
        let minutes = { (value: Int) in value < 0 ? "–" : "\(value)" }
        return (["lane", "issued", "called", "admitted", "no-shows", "waiting now", "average wait to the call (min)",
                 "average wait predicted at issue, of those called (min)"],
                rows.map { [$0.0, "\($0.1)", "\($0.2)", "\($0.3)", "\($0.4)", "\($0.5)", minutes($0.6), minutes($0.7)] })
    }

    // MARK: Changing a store

    func change(_ store: String, form: [String: String], by manager: String) async throws {
        func number(_ key: String, _ what: String) throws -> Int? {
            guard let text = form[key], !text.isEmpty else { return nil }
            guard let value = Int(text), (0...100_000).contains(value) else { throw HubError.badRequest("\(what) is a whole number: not \"\(text.prefix(12))\"") }
            return value
        }
        let current = try await database.transaction { [logger = database.logger] connection in
            try await StoreSettingsReader.current(store: store, device: nil, connection, logger)
        }
        guard let current else { throw HubError(.notFound, .unknownStore, "no store \"\(store)\"") }
        let capacity = try number("capacity", "the capacity") ?? current.capacity
        guard capacity >= 1 else { throw HubError.badRequest("the capacity is at least 1") }
        let walkIn = try number("walkIn", "the walk-in places") ?? (capacity - current.bookingsPerSlot)
        guard walkIn <= capacity else { throw HubError.badRequest("\(walkIn) walk-in places are more than the capacity, \(capacity)") }
        let priority = try number("priorityPercent", "the priority share").map { Double($0) / 100 }
        var change = StoreSettingsChange(capacity: capacity, priorityShare: priority, bookingShare: Self.share(capacity - walkIn, of: capacity))
        change.slotMinutes = try number("slotMinutes", "the slot length").map(Double.init)
        change.totemBookingPlaces = try number("totemPlaces", "the places kept for each totem's bookings")
        change.presentationMinutes = try number("presentationMinutes", "the presentation window").map(Double.init)
        change.bookingEarlyMinutes = try number("earlyMinutes", "the early window").map(Double.init)
        change.bookingLateMinutes = try number("lateMinutes", "the late window").map(Double.init)
        _ = try await HubAdmin(database: database).setStore(id: store, change, by: manager)
    }

    /// The booking share that gives exactly `places` booking places of `capacity`
    /// (`QueuePolicy.bookingsPerSlot` rounds down).
    static func share(_ places: Int, of capacity: Int) -> Double {
        var share = Double(places) / Double(capacity)
        while Int((Double(capacity) * share).rounded(.down)) < places { share = share.nextUp }
        return min(1, share)
    }

    // MARK: Requests and responses

    static func session(_ context: HubRequestContext) throws -> PanelAccounts.Session {
        guard let session = context.panel else { throw HubError.unauthorized(.badSignature, "not logged in") }
        return session
    }

    /// The store named in the path, if this manager may see it.
    static func store(_ context: HubRequestContext, _ session: PanelAccounts.Session) throws -> String {
        let store = try context.parameters.require("store")
        guard session.manager.mayManage(store) else {
            throw HubError(.forbidden, .panelForbidden, "\(session.manager.name) manages store \(session.manager.store ?? "?") only")
        }
        return store
    }

    /// The form of a POST, after its CSRF token was checked against the session's.
    static func form(_ request: inout Request, session: PanelAccounts.Session) async throws -> [String: String] {
        let form = try await fields(&request)
        guard let sent = form["csrf"], sent.utf8.count == session.csrf.utf8.count,
              zip(sent.utf8, session.csrf.utf8).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0
        else { throw HubError(.forbidden, .panelForbidden, "the form did not come from this session's page (CSRF check)") }
        return form
    }

    /// An `application/x-www-form-urlencoded` body, bounded.
    static func fields(_ request: inout Request) async throws -> [String: String] {
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maximumFormBytes)
        } catch {
            throw HubError(.contentTooLarge, .badHubRequest, "a form is at most \(maximumFormBytes) bytes")
        }
        var fields: [String: String] = [:]
        for pair in String(buffer: body).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String {
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields[decoded(parts[0])] = parts.count > 1 ? decoded(parts[1]) : ""
        }
        return fields
    }

    static func token(_ request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for part in header.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0] == cookie { return String(pair[1]) }
            }
        }
        return nil
    }

    static let expiredCookie = "\(cookie)=; Path=/panel; Secure; HttpOnly; SameSite=Strict; Max-Age=0"

    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'",
        .xContentTypeOptions: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
        .cacheControl: "no-store",
    ]

    static func page(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func csv(_ text: String, name: String) -> Response {
        var headers = securityHeaders
        headers[.contentType] = "text/csv; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"\(name).csv\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// Lets a request into the panel only with a live session; else sends the browser to the
/// login page. A refusal (another store, a failed CSRF check) is a page, not JSON.
struct PanelSessionMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext
    let accounts: PanelAccounts

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = Panel.token(request), let session = try await accounts.session(token: token) else {
            return Response(status: .seeOther, headers: [.location: "/panel/login"])
        }
        var context = context
        context.panel = session
        do {
            return try await next(request, context)
        } catch let error as HubError {
            return Panel.page(PanelPages.message(error.status.code == 403 ? "Not allowed" : "Refused", error.coded.message, session: session),
                              status: error.status)
        }
    }
}
