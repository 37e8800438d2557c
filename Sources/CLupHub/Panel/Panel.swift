import CLupCore
import CLupProtocol
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PostgresNIO

/// The managers' web panel under /panel: log in, a store's settings and statistics, the
/// fleet of totems. A store manager sees and changes their own store only; a chain
/// administrator every store. Every change, and every change refused, is audited with the
/// manager's name and the address the request came from (`AuditActor.panel`).
struct Panel: Sendable {
    let database: HubDatabase
    let accounts: PanelAccounts
    /// The chain's repository, whose versions a rollout started on the fleet page may name.
    let releases: ReleaseRepository?
    /// The origins the panel is reached by behind a proxy that rewrites Host (`[hub] origins`).
    let origins: [WebOrigin]
    /// The chain's reverse proxies, whose `X-Forwarded-For` names the address audited.
    let proxies: TrustedProxies

    static let cookie = "clup_panel"
    /// The language the manager chose, for a year (not a secret: no session in it).
    static let languageCookie = "clup_panel_language"
    static let maximumFormBytes = 16 * 1024
    /// A totem not heard from for longer is flagged in the fleet.
    static let silentAfter: Double = 120

    init(database: HubDatabase, releases: ReleaseRepository? = nil, origins: [WebOrigin] = [], proxies: TrustedProxies = .none) {
        self.database = database
        self.proxies = proxies
        self.releases = releases
        self.origins = origins
        accounts = PanelAccounts(database: database)
    }

    func addRoutes(to router: Router<HubRequestContext>) {
        // Every form of the panel, the login's too, is posted from the panel's own pages only.
        let guarded = router.group("/panel").add(middleware: SameOriginMiddleware(origins: origins) { request in
            let words = Self.words(request)
            return Self.page(PanelPages.message(words.refused, words.crossSite, session: nil, here: "/panel", words: words), status: .forbidden)
        })
        guarded.get("login") { request, _ in Self.page(PanelPages.login(message: nil, words: Self.words(request))) }
        guarded.post("login") { request, context in try await login(request, context) }
        guarded.get("language/:code") { request, context in Self.chooseLanguage(request, context) }
        let panel = guarded.group().add(middleware: PanelSessionMiddleware(accounts: accounts))
        panel.get("") { _, context in try await stores(try Self.session(context), context.panelWords) }
        panel.get("fleet") { _, context in try await fleet(try Self.session(context), context.panelWords) }
        panel.get("stores/:store") { request, context in
            let session = try Self.session(context)
            let store = try Self.store(context, session)
            let words = context.panelWords
            let asked = request.uri.queryParameters.get("day")
            guard let day = Day(asked) else { throw HubError.badRequest(words.notADay(String((asked ?? "").prefix(12)))) }
            return try await storePage(store, session, words, day: day,
                                       notice: request.uri.queryParameters.get("saved").map { _ in words.saved })
        }
        panel.post("stores/:store/settings") { request, context in
            let session = try Self.session(context)
            let actor = AuditActor.panel(session.manager.name, from: address(request, context))
            let store = try await audited(try Self.store(context, session), by: actor, store: context.parameters.get("store"),
                                          action: "store settings changed")
            var request = request
            let form = try await Self.form(&request, session: session, words: context.panelWords)
            do {
                try await change(store, form: form, by: actor, words: context.panelWords)
            } catch let error as HubError {
                await Audit.refused(by: actor, store: store, action: "store settings changed", error: error, database: database)
                // The page with the error keeps what the manager typed, to be corrected.
                return try await storePage(store, session, context.panelWords, day: Day(nil)!, error: context.panelWords.refusal(error),
                                           typed: form, status: .unprocessableContent)
            }
            return Response(status: .seeOther, headers: [.location: "/panel/stores/\(store)?saved=1"])
        }
        panel.get("stores/:store/days.csv") { _, context in
            let session = try Self.session(context)
            let (header, rows) = try await days(try Self.store(context, session))
            return Self.csv(PanelPages.csv(header, rows), name: "days")
        }
        panel.get("stores/:store/lanes.csv") { request, context in
            let session = try Self.session(context)
            let asked = request.uri.queryParameters.get("day")
            guard let day = Day(asked) else { throw HubError.badRequest(context.panelWords.notADay(String((asked ?? "").prefix(12)))) }
            let (header, rows) = try await lanes(try Self.store(context, session), day: day)
            return Self.csv(PanelPages.csv(header, rows), name: "lanes")
        }
        panel.post("fleet/rollout/:action") { request, context in
            let session = try Self.session(context)
            let words = context.panelWords
            var request = request
            let form = try await Self.form(&request, session: session, words: words)
            let who = AuditActor.panel(session.manager.name, from: address(request, context))
            let asked = "rollout \(String(TypedText.escaped(context.parameters.get("action") ?? "").prefix(16)))"
            guard session.manager.role == .chainAdmin else {
                let error = HubError(.forbidden, .panelForbidden, words.rolloutsAreTheChains)
                await Audit.refused(by: who, store: nil, action: asked, error: error, database: database)
                throw error
            }
            guard let action = context.parameters.get("action").flatMap(RolloutAction.init) else {
                throw HubError(.notFound, .badHubRequest, words.rolloutActions)
            }
            let rollouts = Rollouts(database: database)
            do {
                switch action {
                case .start: _ = try await rollouts.start(try Self.plan(form, words: words), available: releases?.publishedVersions() ?? [], by: who)
                case .pause: _ = try await rollouts.pause(reason: form["reason"].flatMap { $0.isEmpty ? nil : $0 } ?? "paused on the panel", by: who)
                case .resume: _ = try await rollouts.resume(by: who)
                case .abort: _ = try await rollouts.abort(by: who)
                }
            } catch let error as HubError {
                await Audit.refused(by: who, store: nil, action: asked, error: error, database: database)
                throw words.rolloutRefusal(error, action: action)
            }
            return Response(status: .seeOther, headers: [.location: "/panel/fleet"])
        }
        // A totem's screen: asked for, then looked at (`RemoteScreens`).
        panel.post("fleet/screen") { request, context in
            let session = try Self.session(context)
            var request = request
            let form = try await Self.form(&request, session: session, words: context.panelWords)
            guard let device = form["device"], (1...64).contains(device.utf8.count) else {
                throw HubError.badRequest(context.panelWords.noSuchLook)
            }
            let who = AuditActor.panel(session.manager.name, from: address(request, context))
            let id = try await RemoteScreens(database: database).ask(DeviceID(device), for: session.manager, by: who)
            return Response(status: .seeOther, headers: [.location: "/panel/screens/\(id)"])
        }
        panel.get("screens/:id") { _, context in
            let session = try Self.session(context)
            let words = context.panelWords
            let id = String((context.parameters.get("id") ?? "").prefix(64))
            guard let look = try await RemoteScreens(database: database).look(id, for: session.manager) else {
                return Self.page(PanelPages.message(words.noSuchLook, words.noSuchLook, session: session, here: "/panel/fleet", words: words),
                                 status: .notFound)
            }
            let (body, refresh) = PanelPages.look(look, now: Date(), words: words)
            return Self.page(PanelPages.page(title: words.screenOfTotem(look.device.rawValue), manager: session.manager, csrf: session.csrf,
                                             here: "/panel/screens/\(look.id)", words: words, body: body, refreshSeconds: refresh))
        }
        panel.get("screens/:id/frame.png") { request, context in
            let session = try Self.session(context)
            let id = String((context.parameters.get("id") ?? "").prefix(64))
            let screens = RemoteScreens(database: database)
            guard let look = try await screens.look(id, for: session.manager), let frame = look.frame else {
                throw HubError(.notFound, .badHubRequest, context.panelWords.noSuchLook)
            }
            await screens.seen(look, by: .panel(session.manager.name, from: address(request, context)))
            var headers = Self.securityHeaders
            headers[.contentType] = "image/png"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: frame)))
        }
        panel.post("logout") { request, context in
            let session = try Self.session(context)
            var request = request
            _ = try await Self.form(&request, session: session, words: context.panelWords)
            if let token = Self.token(request) { try await accounts.logout(token: token) }
            return Response(status: .seeOther, headers: [.location: "/panel/login", .setCookie: Self.expiredCookie])
        }
    }

    // MARK: Logging in

    func login(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        var request = request
        let words = Self.words(request)
        let form = try await Self.fields(&request, words: words)
        let name = form["name"] ?? "", password = form["password"] ?? ""
        // Not a name a manager can have (a NUL, a line break, 300 letters): a page, not a lookup.
        guard PanelAccounts.isManagerName(name) else {
            return Self.page(PanelPages.login(message: words.nameRule, words: words), status: .badRequest)
        }
        switch try await accounts.login(name: name, password: password, from: address(request, context)) {
        case let .loggedIn(token, _):
            // A new token at every login: one a visitor was given before is never the session.
            return Response(status: .seeOther, headers: [
                .location: "/panel",
                .setCookie: "\(Self.cookie)=\(token); Path=/panel; Secure; HttpOnly; SameSite=Strict; Max-Age=\(Int(PanelAccounts.lifetime))",
            ])
        case .refused:
            return Self.page(PanelPages.login(message: words.wrongPassword, words: words), status: .unauthorized)
        case let .locked(until):
            let message = words.lockedOut(after: PanelAccounts.failuresBeforeLockout, until: until, now: Date())
            return Self.page(PanelPages.login(message: message, words: words), status: .tooManyRequests)
        }
    }

    /// The address a request came from, as the audit keeps it: the client's, behind the
    /// chain's proxies (an IPv6 client's /64).
    func address(_ request: Request, _ context: HubRequestContext) -> String {
        ClientAddress.of(peer: context.remoteAddress, forwardedFor: request.headers[HTTPField.Name("X-Forwarded-For")!],
                         trusting: proxies)?.description ?? "an unknown address"
    }

    /// `value`, or the refusal it threw audited (`action` on `store`, as the path named it)
    /// and thrown again: a manager reaching for another store's settings is recorded.
    func audited<T>(_ value: @autoclosure () throws -> T, by actor: AuditActor, store: String?, action: String) async throws -> T {
        do {
            return try value()
        } catch {
            await Audit.refused(by: actor, store: store.map { StoreID(String(TypedText.escaped($0).prefix(64))) }, action: action, error: error,
                                database: database)
            throw error
        }
    }

    // MARK: Pages

    func stores(_ session: PanelAccounts.Session, _ words: PanelWords) async throws -> Response {
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
        let html = PanelPages.html
        let list = rows.map { id, name, capacity, inside in
            "<li><a href=\"/panel/stores/\(html(id))\">\(html(words.storeLine(id, name)))</a>: \(words.inside(max(0, inside), of: capacity))</li>"
        }.joined()
        return Self.page(PanelPages.page(title: words.stores, manager: manager, csrf: session.csrf, here: "/panel", words: words,
                                         body: "<h1>\(words.stores)</h1><ul>\(list.isEmpty ? "<li>\(words.none)</li>" : list)</ul>"))
    }

    /// The store's page; after a refused change, with the `error` and the form as `typed`.
    func storePage(_ store: StoreID, _ session: PanelAccounts.Session, _ words: PanelWords, day: Day, notice: String? = nil,
                   error: String? = nil,
                   typed: [String: String] = [:], status: HTTPResponse.Status = .ok) async throws -> Response {
        let logger = database.logger
        guard let settings = try await database.transaction({ connection in
            try await StoreSettingsReader.current(store: store, device: nil, connection, logger)
        }) else {
            return Self.page(PanelPages.message(words.noSuchStore, words.thereIsNoStore(store.rawValue), session: session, here: "/panel", words: words),
                             status: .notFound)
        }
        let (name, zoneName) = try await database.transaction { connection in
            try await connection.rows("SELECT name, time_zone FROM store WHERE store_id = \(store)", as: (String, String).self, logger)
                .first ?? ("", "UTC")
        }
        // The store's clock: its hours, slots and times as the people in it read them.
        let zone = TimeZone(identifier: zoneName) ?? .gmt
        let hourly = try await insideByHour(store, zone: zone, day: day)
        let (dayHeader, dayRows) = try await days(store)
        let (laneHeader, laneRows) = try await lanes(store, day: day)
        let now = Date()
        // The slots now and next: the rest of the store's day, then the next day's first ones
        // (late in the evening, what comes next is tomorrow's).
        let bookings = Bookings(database: database)
        let today = try await bookings.slots(store: store, day: nil, now: now)
        var upcoming = today.slots.filter { $0.end > now }
        if upcoming.count < PanelPages.slotsShown, let next = CivilDay.next(today.day) {
            upcoming += try await bookings.slots(store: store, day: next, now: now).slots
        }
        let html = PanelPages.html
        let here = "/panel/stores/\(store)"
        // Shown in the manager's language; the CSV downloads keep the database's words.
        // A day's row leads to that day's statistics.
        // A closed day left with more people inside (or fewer) than the chain tolerates is
        // flagged; the store's latest day, which may still run (the hub does not know when
        // the totems' business day starts), is not closed yet: as in the metrics.
        let tolerance = try await HubAdmin(database: database).countingTolerance()
        let current = dayRows.last?[0] ?? ""
        let shownDays = dayRows.map { row in
            let off = row[0] < current && abs(Int(row[4]) ?? 0) > tolerance
            return [PanelPages.Cell(words.day(row[0]), link: "\(here)?day=\(row[0])")]
                + row.dropFirst().enumerated().map { index, text in
                    PanelPages.Cell(Int(text).map(words.number) ?? text, index == 3 && off ? .flag : nil)
                }
        }
        let shownLanes = laneRows.map { row in [words.lane(row[0])] + row.dropFirst().map { Int($0).map(words.number) ?? $0 } }
        let statistics = day.chosen.map { chosen in
            "\(html(words.statisticsOf(words.day(chosen)))) <a href=\"\(here)\" id=\"today\">\(html(words.backToToday))</a>"
        } ?? words.statistics
        let body = """
            <h1>\(html(words.storeLine(store.rawValue, name)))</h1>
            \(notice.map { "<p class=\"notice\" role=\"status\">\(html($0))</p>" } ?? "")
            \(error.map { "<p class=\"error\" role=\"alert\">\(html($0))</p>" } ?? "")
            <h2>\(words.settingsVersion(settings.version))</h2>
            \(PanelPages.settingsForm(store: store.rawValue, csrf: session.csrf, settings: settings, words: words,
                                      rules: try await HubAdmin(database: database).noticeRules(id: store),
                                      alerts: try await HubAdmin(database: database).staffAlerts(id: store), typed: typed))
            <h2 id="statistics">\(statistics)</h2>
            <div class="charts">
            <p class="zone">\(words.storeClock(html(zone.identifier)))</p>
            \(PanelPages.barChart(hourly, title: words.insideByHour, words: words))
            \(PanelPages.barChart(dayRows.suffix(14).map { (label: words.shortDay($0[0]), value: Int($0[1]) ?? 0) }, title: words.entriesPerDay,
                                  words: words))
            </div>
            <p id="timeInStore">\(html(try await timeInStore(store, day: day, words)))</p>
            <h3>\(words.ticketsByLane)</h3>
            \(PanelPages.table(words.laneHeader, shownLanes, words: words))
            <p><a href="/panel/stores/\(html(store.rawValue))/lanes.csv\(day.chosen.map { "?day=\($0)" } ?? "")">lanes.csv</a></p>
            <h3>\(words.slotsNowAndNext(settings.bookingsPerSlot))</h3>
            \(PanelPages.slotsNowAndNext(upcoming, now: now, zone: zone, words: words))
            <h3>\(words.days)</h3>
            <p id="countingTolerance">\(html(words.countingTolerance(tolerance)))</p>
            \(PanelPages.table(words.dayHeader, Array(shownDays.suffix(14)), words: words))
            <p><a href="/panel/stores/\(html(store.rawValue))/days.csv">days.csv</a></p>
            """
        return Self.page(PanelPages.page(title: words.storeTitle(store.rawValue), manager: session.manager, csrf: session.csrf, here: here,
                                         words: words, body: body), status: status)
    }

    func fleet(_ session: PanelAccounts.Session, _ words: PanelWords) async throws -> Response {
        let manager = session.manager
        let rows = try await HubAdmin(database: database).totems(store: manager.store)
        let applied = try await database.transaction { [logger = database.logger] connection in
            Dictionary(try await connection.rows("""
                SELECT device_id, coalesce(applied_settings_version, 0), last_health FROM totem
                """, as: (String, Int64, String?).self, logger).map { ($0.0, ($0.1, $0.2)) },
                       uniquingKeysWith: { first, _ in first })
        }
        let health = { (device: String) -> TotemHealth? in
            applied[device]?.1.flatMap { try? JSONDecoder().decode(TotemHealth.self, from: Data($0.utf8)) }
        }
        let now = Date()
        // A door whose places wait for a silent totem while another serves it: a totem
        // replaced and never revoked (the new one calls nobody with the places it lacks).
        let places = try await database.transaction { [logger = database.logger] connection in
            Dictionary(try await connection.rows("""
                SELECT device_id, greatest(coalesce(issued_limit, 0), coalesce(outstanding_max, 0), coalesce(held, 0))::int8 FROM door_grant
                """, as: (String, Int64).self, logger).map { ($0.0, Int(clamping: $0.1)) }, uniquingKeysWith: { first, _ in first })
        }
        let silent = { (row: HubAdmin.TotemRow) in
            // Never heard yet: silent once it was enrolled that long ago (a new totem is not).
            row.revokedAt == nil && now.timeIntervalSince(row.lastContact ?? row.enrolledAt) > SilentHolder.silentAfter
        }
        let heard = rows.filter { $0.revokedAt == nil && !silent($0) }
        let holders = rows.filter { silent($0) && (places[$0.deviceID.rawValue] ?? 0) > 0 }
        func sameDoor(_ a: HubAdmin.TotemRow, _ b: HubAdmin.TotemRow) -> Bool { a.store == b.store && a.door == b.door }
        let table = PanelPages.table(
            words.fleetHeader,
            rows.map { row in
                let reported = health(row.deviceID.rawValue)
                let faults = reported?.devices.filter { $0.state != "ok" }.map { "\($0.role) \($0.state): \($0.detail)" } ?? []
                let devices = reported.map { faults.isEmpty ? words.allDevicesOK($0.devices.count) : faults.joined(separator: "; ") } ?? words.unknown
                // What the totem warns of: nothing recorded (its disk full), its files changed (the daily
                // integrity check), its audit trail filling.
                var alerts: [String] = [reported?.notRecording].compactMap { $0 }
                if let paper = reported?.paper, paper.low { alerts.append(words.paperLow(paper.ticketsLeft)) }
                if let serving = heard.first(where: { sameDoor($0, row) }), holders.contains(where: { $0.deviceID == row.deviceID }) {
                    alerts.append(words.holdsTheDoor(places[row.deviceID.rawValue] ?? 0, silence: words.silence(since: row.lastContact, now: now),
                                                     serving: serving.deviceID.rawValue, door: row.door.rawValue))
                }
                if !silent(row) {
                    for holder in holders where sameDoor(holder, row) {
                        alerts.append(words.doorHeldBy(holder.deviceID.rawValue, silence: words.silence(since: holder.lastContact, now: now)))
                    }
                }
                if let integrity = reported?.integrity, !integrity.isClean {
                    alerts.append(integrity.problem.map { words.integrityNotRun($0) }
                                  ?? words.filesChanged(integrity.changedCount, integrity.changed.joined(separator: ", ")))
                }
                if let trail = reported?.auditTrail, trail.isNearlyFull { alerts.append(words.auditTrailFull(Int((trail.share * 100).rounded(.down)))) }
                let unsupported = row.outOfSupport(at: now)
                let software = unsupported
                    ? words.outOfSupport(row.softwareVersion, since: row.supportEnds?.formatted(.iso8601.year().month().day()) ?? "")
                    : row.softwareVersion
                let figures: [String] = [
                    row.deviceID.rawValue, row.store.rawValue, row.door.rawValue, words.utcTime(row.lastContact), software,
                    row.lastUpdate ?? words.none,
                    "\(applied[row.deviceID.rawValue]?.0 ?? 0)", row.outboxDepth.map { words.number(Int($0)) } ?? words.unknown,
                    row.clockSkew.map { words.decimal($0, digits: 2) } ?? words.unknown, devices, reported?.printer ?? words.unknown,
                    alerts.joined(separator: "; "),
                ]
                let state = PanelPages.totemState(revoked: row.revokedAt != nil, lastContact: row.lastContact, now: now, words: words)
                let updateStyle: PanelPages.Cell.Style? = row.lastUpdate.map { $0.contains(" installed") ? .ok : .flag }
                // Flagged: the software out of support (4), an update that did not install (5), an alert (11).
                let styles: [Int: PanelPages.Cell.Style?] = [4: unsupported ? .flag : nil, 5: updateStyle, 11: alerts.isEmpty ? nil : .flag]
                return figures.enumerated().map { index, text in PanelPages.Cell(text, styles[index] ?? nil) } + [state]
            }, words: words)
        let rollout = try await Rollouts(database: database).status()
        let live = rollout.map { $0.state == .running || $0.state == .paused } ?? false
        let startForm = manager.role == .chainAdmin && !live
            ? PanelPages.rolloutForm(versions: try await rolloutVersions(), totems: rows.filter { $0.revokedAt == nil }.map(\.deviceID.rawValue),
                                     csrf: session.csrf, words: words)
            : ""
        // The notices the hub gave up sending, with why (`NoticeDelivery`).
        let dead = try await NoticeDelivery.deadLetters(store: manager.store, database)
        let deadTable = dead.isEmpty ? "<p>\(PanelPages.html(words.everyNoticeDelivered))</p>" : PanelPages.table(
            words.deadNoticeHeader,
            dead.map { [String($0.id), $0.store.rawValue, words.noticeKind($0.kind), $0.bookingNumber, words.number($0.attempts), words.utcTime($0.deadAt),
                        $0.reason] },
            words: words)
        let body = """
            <h1>\(words.fleet)</h1>
            \(PanelPages.rollout(rollout, chainAdmin: manager.role == .chainAdmin, csrf: session.csrf, words: words))
            \(startForm)
            \(table)
            <p>\(PanelPages.html(words.fleetNote(silentAfter: Int(Self.silentAfter))))</p>
            \(PanelPages.screenForm(totems: rows.filter { $0.revokedAt == nil }.map(\.deviceID.rawValue), csrf: session.csrf, words: words))
            <h2 id="notices">\(words.undeliveredNotices)</h2>
            \(deadTable)
            """
        return Self.page(PanelPages.page(title: words.fleet, manager: manager, csrf: session.csrf, here: "/panel/fleet", words: words,
                                         body: body))
    }

    // MARK: Figures

    /// The business day a page shows: `day` ("2026-10-25", from the address) or, without
    /// one, the store's day under way. As SQL for `business_day =` and its binds ($1 the store).
    struct Day: Sendable {
        let chosen: String?

        /// `text` if it is a day of the calendar; nil if it is no day at all.
        init?(_ text: String?) {
            guard let text else { chosen = nil; return }
            guard text.utf8.count == 10, let date = try? Date(text + "T12:00:00Z", strategy: .iso8601),
                  date.formatted(.iso8601.year().month().day()) == text
            else { return nil }
            chosen = text
        }

        var sql: String { chosen == nil ? Projections.currentDaySQL : "$2::date" }

        func binds(_ store: StoreID) -> PostgresBindings {
            var binds = Panel.binds(store)
            if let chosen { binds.append(chosen) }
            return binds
        }
    }

    /// People inside at the end of each hour of the store's day, on the store's clock, from
    /// the passages and corrections uploaded (their sums per quarter of an hour); none before
    /// a totem of the store has opened the day. Of the day under way, the hours up to now; of
    /// a chosen day, all its hours.
    func insideByHour(_ store: StoreID, zone: TimeZone, day: Day) async throws -> [(label: String, value: Int)] {
        let logger = database.logger
        let (doors, carried, quarters) = try await database.transaction { connection in
            let (doors, carried) = try await connection.rows(PostgresQuery(unsafeSQL: """
                SELECT count(*)::integer, coalesce(sum(carried), 0)::integer FROM occupancy
                WHERE store_id = $1 AND business_day = \(day.sql)
                """, binds: day.binds(store)), as: (Int, Int).self, logger).first ?? (0, 0)
            // What moved in each quarter of an hour, from the projection kept at ingest: a
            // day's cost is its quarters (about a hundred per door), whatever the store's history.
            let quarters = try await connection.rows(PostgresQuery(unsafeSQL: """
                SELECT quarter, sum(entries - exits + corrections)::bigint FROM occupancy_quarter
                WHERE store_id = $1 AND business_day = \(day.sql) GROUP BY quarter ORDER BY quarter
                """, binds: day.binds(store)), as: (Int64, Int64).self, logger)
            return (doors, carried, quarters)
        }
        guard doors > 0 || !quarters.isEmpty else { return [] }
        let changes = quarters.map { quarter, delta in
            (at: Date(timeIntervalSince1970: Double(quarter) * 900), delta: Int(clamping: delta))
        }
        guard let chosen = day.chosen else { return Self.hourlyInside(changes, carried: carried, now: Date(), zone: zone) }
        return Self.hourlyInside(changes, carried: carried, wholeDay: chosen, zone: zone)
    }

    /// People inside at the end of each hour, as the store's clock reads its hours: from
    /// `carried`, moved by `changes` (in order); the last 24 hours at most, up to the one under
    /// way at `now`. Where the clocks go back, the hour they repeat is two bars with one label;
    /// where they go forward, the hour they skip is none; in a zone half an hour off UTC, the
    /// hours still begin at the store's :00.
    static func hourlyInside(_ changes: [(at: Date, delta: Int)], carried: Int, now: Date,
                             zone: TimeZone) -> [(label: String, value: Int)] {
        let byHour = insideAtHourEnds(changes, carried: carried, zone: zone)
        var hours = [storeHour(of: now.timeIntervalSince1970, zone)]
        while hours.count < 24, let earliest = byHour.keys.min(), hours[0].start > earliest {
            hours.insert(storeHour(of: Double(hours[0].start) - 1, zone), at: 0)
        }
        return inside(hours, byHour, carried: carried)
    }

    /// The same for every hour of the business day `day` ("2026-10-25") on the store's clock,
    /// from its midnight to the next: 24 bars, 25 on the day the clocks go back, 23 on the day
    /// they go forward.
    static func hourlyInside(_ changes: [(at: Date, delta: Int)], carried: Int, wholeDay day: String,
                             zone: TimeZone) -> [(label: String, value: Int)] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, let midnight = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])),
              let next = calendar.date(byAdding: .day, value: 1, to: midnight)
        else { return [] }
        var hours = [storeHour(of: midnight.timeIntervalSince1970, zone)]
        while let last = hours.last, hours.count < 26, Double(last.start) + 3600 < next.timeIntervalSince1970 {
            hours.append(storeHour(of: Double(last.start) + 3600, zone))
        }
        return inside(hours, insideAtHourEnds(changes, carried: carried, zone: zone), carried: carried)
    }

    /// When the store's hour holding `instant` began (seconds since 1970), and its label.
    private static func storeHour(of instant: Double, _ zone: TimeZone) -> (start: Int64, label: String) {
        let offset = Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: instant)))
        let local = ((instant + offset) / 3600).rounded(.down)
        let label = String(format: "%02d", Int(local.truncatingRemainder(dividingBy: 24) + 24) % 24)
        return (Int64(local * 3600 - offset), label)
    }

    /// People inside after the last change of each store hour that had one, by the hour's start.
    private static func insideAtHourEnds(_ changes: [(at: Date, delta: Int)], carried: Int, zone: TimeZone) -> [Int64: Int] {
        var byHour: [Int64: Int] = [:]
        var inside = carried
        for change in changes {
            inside = inside.addingSaturating(change.delta)
            byHour[storeHour(of: change.at.timeIntervalSince1970, zone).start] = inside
        }
        return byHour
    }

    /// One bar per hour of `hours`: the count at its end, or the one before it if nothing moved.
    private static func inside(_ hours: [(start: Int64, label: String)], _ byHour: [Int64: Int],
                               carried: Int) -> [(label: String, value: Int)] {
        guard let first = hours.first else { return [] }
        var last = carried
        for (start, value) in byHour.sorted(by: { $0.key < $1.key }) where start < first.start { last = value }
        return hours.map { hour in
            if let value = byHour[hour.start] { last = value }
            return (label: hour.label, value: max(0, last))
        }
    }

    static func binds(_ store: StoreID) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(store)
        return binds
    }

    /// The average time in store of the store's day, from the tickets scanned at the door on
    /// the way in and again on the way out, and how many it rests on.
    func timeInStore(_ store: StoreID, day: Day, _ words: PanelWords) async throws -> String {
        let (count, minutes) = try await database.transaction { [logger = database.logger] connection in
            try await connection.rows(PostgresQuery(unsafeSQL: """
                SELECT count(*)::integer, coalesce(avg(extract(epoch FROM left_at - entered_at)) / 60, 0)::double precision
                FROM ticket WHERE store_id = $1 AND business_day = \(day.sql)
                    AND left_at IS NOT NULL AND entered_at IS NOT NULL AND left_at >= entered_at
                """, binds: day.binds(store)), as: (Int, Double).self, logger).first ?? (0, 0)
        }
        guard count > 0 else { return words.noTimeInStore }
        return words.timeInStore(minutes: minutes, tickets: count)
    }

    func days(_ store: StoreID) async throws -> ([String], [[String]]) {
        let rows = try await database.transaction { [logger = database.logger] connection in
            try await connection.rows("""
                SELECT o.business_day::text, sum(o.entries)::integer, sum(o.exits)::integer, sum(o.corrections)::integer,
                       (sum(o.carried + o.entries - o.exits + o.corrections))::integer,
                       coalesce(max(c.without_release), 0)::integer, coalesce(max(c.releases_unused), 0)::integer,
                       coalesce(max(c.wrong_way), 0)::integer
                FROM occupancy o LEFT JOIN (
                    SELECT business_day, sum(without_release) AS without_release, sum(releases_unused) AS releases_unused,
                           sum(wrong_way) AS wrong_way
                    FROM door_counting WHERE store_id = \(store) GROUP BY business_day) c ON c.business_day = o.business_day
                WHERE o.store_id = \(store) AND o.business_day > current_date - 90
                GROUP BY o.business_day ORDER BY o.business_day
                """, as: (String, Int, Int, Int, Int, Int, Int, Int).self, logger)
        }
        // In - out +- corrections at the day's end as counted, below zero too: how far off
        // the count was is the point (a chain checks it against its tolerance).
        return (["day", "entries", "exits", "corrections", "inside at the end", "entries without release", "releases unused",
                 "exits while released"],
                rows.map { [$0.0, "\($0.1)", "\($0.2)", "\($0.3)", "\($0.4)", "\($0.5)", "\($0.6)", "\($0.7)"] })
    }



    func lanes(_ store: StoreID, day: Day) async throws -> ([String], [[String]]) {
        let rows = try await database.transaction { [logger = database.logger] connection in
            try await connection.rows(PostgresQuery(unsafeSQL: """
                SELECT lane, count(*)::integer, count(called_at)::integer, count(admitted_at)::integer,
                       count(*) FILTER (WHERE state = '\(TicketState.noShow.rawValue)')::integer,
                       count(*) FILTER (WHERE state = '\(TicketState.waiting.rawValue)')::integer,
                       coalesce(round(avg(extract(epoch FROM called_at - issued_at)) / 60)::integer, -1),
                       coalesce(round(avg(promised_wait_minutes) FILTER (WHERE called_at IS NOT NULL))::integer, -1)
                FROM ticket WHERE store_id = $1 AND business_day = \(day.sql) GROUP BY lane ORDER BY lane
                """, binds: day.binds(store)), as: (String, Int, Int, Int, Int, Int, Int, Int).self, logger)
        }
        let minutes = { (value: Int) in value < 0 ? "–" : "\(value)" }
        return (["lane", "issued", "called", "admitted", "no-shows", "waiting now", "average wait to the call (min)",
                 "average wait predicted at issue, of those called (min)"],
                rows.map { [$0.0, "\($0.1)", "\($0.2)", "\($0.3)", "\($0.4)", "\($0.5)", minutes($0.6), minutes($0.7)] })
    }

    // MARK: Changing a store

    /// Checks the form of a store's settings and saves it (`HubAdmin.setStore`, which audits
    /// the change). What the form can get wrong is told in the manager's language; a field
    /// left empty keeps its saved value.
    func change(_ store: StoreID, form: [String: String], by manager: AuditActor, words: PanelWords) async throws {
        func number(_ key: String, _ label: String, _ range: ClosedRange<Int>) throws -> Int? {
            guard let text = form[key], !text.isEmpty else { return nil }
            guard text.utf8.count <= 7, let value = Int(text) else {
                throw HubError.badRequest(words.wholeNumber(label, typed: String(text.prefix(12))))
            }
            guard range.contains(value) else { throw HubError.badRequest(words.outOfRange(label, value, range)) }
            return value
        }
        let current = try await database.transaction { [logger = database.logger] connection in
            try await StoreSettingsReader.current(store: store, device: nil, connection, logger)
        }
        guard let current else { throw HubError(.notFound, .unknownStore, words.thereIsNoStore(store.rawValue)) }
        let capacity = try number("capacity", words.capacityLabel, 1...100_000) ?? current.capacity
        let walkIn = try number("walkIn", words.walkInLabel, 0...100_000) ?? max(0, capacity - current.bookingsPerSlot)
        guard walkIn <= capacity else { throw HubError.badRequest(words.walkInOverCapacity(walkIn, capacity)) }
        let bookings = capacity - walkIn
        let percent = try number("priorityPercent", words.priorityLabel, 0...100)
        // The priority share and the booking places together fit in the capacity.
        let priority = percent.map { Double($0) / 100 } ?? current.priorityShare
        if priority * Double(capacity) > Double(walkIn) + 1e-9 {
            throw HubError.badRequest(words.sharesOverCapacity(priority: percent ?? Int((current.priorityShare * 100).rounded()),
                                                               bookings: bookings, capacity: capacity))
        }
        var change = StoreSettingsChange(capacity: capacity, priorityShare: percent.map { Double($0) / 100 },
                                         bookingShare: Self.share(bookings, of: capacity))
        change.slotMinutes = try number("slotMinutes", words.slotLabel, 5...240).map(Double.init)
        change.totemBookingPlaces = try number("totemPlaces", words.totemPlacesLabel, 0...1000)
        if let places = change.totemBookingPlaces ?? current.totemBookingPlaces, places > bookings {
            throw HubError.badRequest(words.totemPlacesOverSlot(places, bookings))
        }
        change.presentationMinutes = try number("presentationMinutes", words.presentationLabel, 1...240).map(Double.init)
        change.bookingEarlyMinutes = try number("earlyMinutes", words.earlyLabel, 1...240).map(Double.init)
        change.bookingLateMinutes = try number("lateMinutes", words.lateLabel, 1...240).map(Double.init)
        let delayNotice = try number("delayNoticeMinutes", words.delayNoticeLabel, 0...240)
        let majorDelay = try number("majorDelayMinutes", words.majorDelayLabel, 0...600)
        let reminder = try number("reminderMinutes", words.reminderLabel, 0...1440)
        let alertWait = try number("alertWaitMinutes", words.alertWaitLabel, HubAdmin.StaffAlerts.waitRange)
        let alertWaiting = try number("alertWaiting", words.alertWaitingLabel, HubAdmin.StaffAlerts.waitingRange)
        // Everything is checked before any of it is saved.
        let admin = HubAdmin(database: database)
        _ = try await admin.setStore(id: store, change, by: manager)
        _ = try await admin.setNoticeRules(id: store, delayNoticeMinutes: delayNotice, majorDelayMinutes: majorDelay,
                                           reminderMinutes: reminder, by: manager)
        _ = try await admin.setStaffAlerts(id: store, waitMinutes: alertWait, waiting: alertWaiting, by: manager)
    }

    /// The versions the fleet page offers to roll out: those the repository holds and a
    /// signed manifest vouches for, unexpired (a rollout of any other is refused anyway).
    func rolloutVersions(now: Date = Date()) async throws -> [String] {
        let vouched = Set(try await ReleaseManifests(database: database).held().filter { $0.expires > now }.map(\.version))
        return (releases?.publishedVersions() ?? []).filter { vouched.contains($0) }
    }

    /// What the fleet page can ask of a rollout (`POST /panel/fleet/rollout/ACTION`).
    enum RolloutAction: String, Sendable {
        case start, pause, resume, abort
    }

    /// The rollout the fleet page's form asks for: a version, the totems ticked as canaries
    /// (`canary-DEVICE`), the stages' shares and the healthy minutes. What the form can get
    /// wrong is told in the manager's language, before `Rollouts.start` checks it again.
    static func plan(_ form: [String: String], words: PanelWords) throws -> Rollouts.Plan {
        let canaries = form.keys.filter { $0.hasPrefix("canary-") && form[$0] == "on" }.map { String($0.dropFirst(7)) }.sorted()
        guard (1...20).contains(canaries.count) else { throw HubError.badRequest(words.canariesCount) }
        let stages = (form["stages"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let shares = try stages.map { text throws -> Int in
            guard let share = Int(text) else { throw HubError.badRequest(words.notAShare(String(text.prefix(8)))) }
            return share
        }
        guard shares.count <= 10, shares.allSatisfy({ (1...99).contains($0) }), zip(shares, shares.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw HubError.badRequest(words.sharesRule)
        }
        let typed = form["healthyMinutes"] ?? "30"
        guard let minutes = Int(typed) else { throw HubError.badRequest(words.notAShare(String(typed.prefix(8)))) }
        let week = 7 * 24 * 60
        guard (0...week).contains(minutes) else { throw HubError.badRequest(words.outOfRange(words.healthyLabel, minutes, 0...week)) }
        return Rollouts.Plan(version: form["version"] ?? "", canaries: canaries, shares: shares, healthySeconds: Double(minutes * 60))
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
        guard let session = context.panel else { throw HubError.unauthorized(.badSignature, context.panelWords.notLoggedIn) }
        return session
    }

    /// The store named in the path, if this manager may see it.
    static func store(_ context: HubRequestContext, _ session: PanelAccounts.Session) throws -> StoreID {
        let store = try context.parameters.require("store", as: StoreID.self)
        guard session.manager.mayManage(store) else {
            throw HubError(.forbidden, .panelForbidden, context.panelWords.managesOnly(session.manager.name, session.manager.store?.rawValue ?? "?"))
        }
        return store
    }

    /// The form of a POST, after its CSRF token was checked against the session's.
    static func form(_ request: inout Request, session: PanelAccounts.Session, words: PanelWords) async throws -> [String: String] {
        let form = try await fields(&request, words: words)
        guard let sent = form["csrf"], sent.utf8.count == session.csrf.utf8.count,
              zip(sent.utf8, session.csrf.utf8).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0
        else { throw HubError(.forbidden, .panelForbidden, words.csrfRefused) }
        return form
    }

    /// An `application/x-www-form-urlencoded` body, bounded.
    static func fields(_ request: inout Request, words: PanelWords) async throws -> [String: String] {
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maximumFormBytes)
        } catch {
            throw HubError(.contentTooLarge, .badHubRequest, words.formTooLarge(maximumFormBytes))
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

    static func token(_ request: Request) -> String? { cookie(cookie, of: request) }

    static func cookie(_ name: String, of request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for part in header.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0] == name { return String(pair[1]) }
            }
        }
        return nil
    }

    /// The panel's words for this request: in the language the manager chose, else in the
    /// first of their browser's the panel speaks.
    static func words(_ request: Request) -> PanelWords {
        PanelWords(.chosen(cookie: cookie(languageCookie, of: request), acceptLanguage: request.headers[.acceptLanguage]))
    }

    /// GET /panel/language/CODE?back=PAGE: keeps the manager's choice in a cookie and goes
    /// back to the page it was made on (a page of the panel only: never elsewhere).
    static func chooseLanguage(_ request: Request, _ context: HubRequestContext) -> Response {
        guard let code = context.parameters.get("code"), let language = PanelLanguage(rawValue: code) else {
            let words = words(request)
            return page(PanelPages.message(words.refused, "\(PanelLanguage.allCases.map(\.rawValue).joined(separator: ", "))", session: nil,
                                           here: "/panel", words: words), status: .notFound)
        }
        return Response(status: .seeOther, headers: [
            .location: panelPath(request.uri.queryParameters.get("back")),
            .setCookie: "\(languageCookie)=\(language.rawValue); Path=/panel; Secure; HttpOnly; SameSite=Lax; Max-Age=31536000",
        ])
    }

    /// `path` if it is a page of the panel (no other site, no other part of the hub), else
    /// the panel's first page.
    static func panelPath(_ path: String?) -> String {
        guard let path, path.utf8.count <= 200, path == "/panel" || path.hasPrefix("/panel/"),
              path.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "/-_.".contains($0)) }), !path.contains("..")
        else { return "/panel" }
        return path
    }

    static let expiredCookie = "\(cookie)=; Path=/panel; Secure; HttpOnly; SameSite=Strict; Max-Age=0"

    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'",
        .xContentTypeOptions: "nosniff",
        // Not no-referrer: under it a browser posts a form with `Origin: null`, which
        // `SameOriginMiddleware` refuses; same-origin still tells other sites nothing.
        HTTPField.Name("Referrer-Policy")!: "same-origin",
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
        let words = Panel.words(request)
        context.panelWords = words
        do {
            return try await next(request, context)
        } catch let error as HubError {
            return Panel.page(PanelPages.message(error.status.code == 403 ? words.notAllowed : words.refused, words.refusal(error),
                                                 session: session, here: Panel.panelPath(request.uri.path), words: words),
                              status: error.status)
        }
    }
}
