import HTTPTypes
@testable import CLupHub
import CLupCore
import Foundation
import XCTest

/// The panel's pages as a manager reads them: a silent totem stands out, a refused form
/// keeps what was typed, an empty chart says so, and the slot under way is listed.
final class PanelPagesTests: XCTestCase {
    let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18T11:06:40Z
    let english = PanelWords(.english)
    let italian = PanelWords(.italian)

    func test_aSilentTotemIsFlaggedRedAndAHealthyOneGreen() {
        let silent = PanelPages.totemState(revoked: false, lastContact: now.addingTimeInterval(-121), now: now, words: english)
        XCTAssertEqual(silent, PanelPages.Cell("SILENT for over 120 s", .flag))
        XCTAssertEqual(PanelPages.totemState(revoked: false, lastContact: nil, now: now, words: english).style, .flag, "never heard from")
        XCTAssertEqual(PanelPages.totemState(revoked: false, lastContact: now.addingTimeInterval(-30), now: now, words: english),
                       PanelPages.Cell("ok", .ok))
        XCTAssertEqual(PanelPages.totemState(revoked: true, lastContact: nil, now: now, words: english), PanelPages.Cell("revoked"))
        // Drawn in the page's red flag style, not in the style of "ok".
        let table = PanelPages.table(["totem", "state"], [[PanelPages.Cell("store-7-totem-A-1"), silent]], words: english)
        XCTAssertTrue(table.contains("<td>store-7-totem-A-1</td><td class=\"flag\">SILENT for over 120 s</td>"), table)
        XCTAssertTrue(PanelPages.page(title: "Fleet", manager: nil, csrf: nil, here: "/panel/fleet", words: english, body: table).contains(".flag { color: #a00000;"))
    }

    func test_aRefusedFormKeepsWhatWasTypedEscaped() {
        let settings = StoreSettingsDocument(version: 3, capacity: 30, priorityShare: 0.1, bookingShare: 0.3,
                                             windows: .init(presentationMinutes: 5, bookingEarlyMinutes: 10, bookingLateMinutes: 15,
                                                            slotMinutes: 30))
        let saved = PanelPages.settingsForm(store: "7", csrf: "token", settings: settings, words: english)
        XCTAssertTrue(saved.contains("id=\"walkIn\" type=\"number\" min=\"0\" max=\"100000\" value=\"21\""), saved)
        XCTAssertTrue(saved.contains("id=\"priorityPercent\" type=\"number\" min=\"0\" max=\"100\" step=\"1\" value=\"10\""), saved)

        let typed = PanelPages.settingsForm(store: "7", csrf: "token", settings: settings, words: english,
                                            typed: ["csrf": "token", "capacity": "30", "walkIn": "45", "slotMinutes": "15\"><b>x</b>"])
        XCTAssertTrue(typed.contains("id=\"walkIn\" type=\"number\" min=\"0\" max=\"100000\" value=\"45\""), typed)
        XCTAssertTrue(typed.contains("id=\"slotMinutes\" type=\"number\" min=\"5\" max=\"240\" value=\"15&quot;&gt;&lt;b&gt;x&lt;/b&gt;\""), typed)
        XCTAssertFalse(typed.contains("<b>"), "typed markup is escaped")
        // A field not sent keeps its saved value; the form's own CSRF token is the session's.
        XCTAssertTrue(typed.contains("id=\"lateMinutes\" type=\"number\" min=\"1\" max=\"240\" value=\"15\""), typed)
        XCTAssertTrue(typed.contains("<input type=\"hidden\" name=\"csrf\" value=\"token\">"), typed)
    }

    func test_aChartWithoutValuesSaysNoData() {
        let empty = PanelPages.barChart([], title: "Entries per day, the last 14 days", words: english)
        XCTAssertTrue(empty.contains(">no data</text>"), empty)
        let drawn = PanelPages.barChart([(label: "11-18", value: 0)], title: "Entries per day, the last 14 days", words: english)
        XCTAssertFalse(drawn.contains("no data"), "a day of no entries is a value: \(drawn)")
    }

    func test_theSlotUnderWayIsListedWithoutBookings() {
        // 30-minute slots from 10:00 (one booked): the one under way began at 11:00, nobody has booked it.
        let slotStart = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 1800).rounded(.down) * 1800)
        let slots = (-2...9).map { index in
            let begins = slotStart.addingTimeInterval(Double(index) * 1800)
            return Bookings.Slot(start: begins, end: begins.addingTimeInterval(1800), places: 9, booked: index == -2 ? 1 : 0,
                                 bookable: now <= begins.addingTimeInterval(15 * 60))
        }
        let table = PanelPages.slotsNowAndNext(slots, now: now, zone: .gmt, words: english)
        XCTAssertTrue(table.contains("<tr><td>2026-11-18 11:00</td><td>0</td><td>9</td></tr>"), "the slot under way: \(table)")
        XCTAssertFalse(table.contains(" 10:00<") || table.contains(" 10:30<"), "a slot that has ended is not now or next: \(table)")
        // The same slots in Rome are an hour later on the store's clock.
        let rome = PanelPages.slotsNowAndNext(slots, now: now, zone: TimeZone(identifier: "Europe/Rome")!, words: english)
        XCTAssertTrue(rome.contains("<tr><td>2026-11-18 12:00</td><td>0</td><td>9</td></tr>"), "in Rome: \(rome)")
        XCTAssertEqual(table.components(separatedBy: "<tr><td>").count - 1, 8, "the slot under way and the next seven")
    }

    /// The hourly chart on the store's clock: Europe/Rome on 25 October 2026, when its clocks
    /// go back from 03:00 CEST to 02:00 CET (01:00 UTC).
    func test_theHoursAreTheStoresOwnOnTheDayItsClocksGoBack() throws {
        let rome = try XCTUnwrap(TimeZone(identifier: "Europe/Rome"))
        let change = Date(timeIntervalSince1970: 1_792_890_000)   // 2026-10-25 01:00 UTC
        // One in at 01:30 CEST, one at 02:30 CEST, one at 02:30 CET, one out at 03:30 CET.
        let changes: [(at: Date, delta: Int)] = [(change.addingTimeInterval(-5400), 1), (change.addingTimeInterval(-1800), 1),
                                                  (change.addingTimeInterval(1800), 1), (change.addingTimeInterval(5400), -1)]
        let bars = Panel.hourlyInside(changes, carried: 2, now: change.addingTimeInterval(5500), zone: rome)
        XCTAssertEqual(bars.map(\.label), ["01", "02", "02", "03"], "the repeated hour is two bars")
        XCTAssertEqual(bars.map(\.value), [3, 4, 5, 4])
        // The same day in UTC: the hours are UTC's.
        XCTAssertEqual(Panel.hourlyInside(changes, carried: 2, now: change.addingTimeInterval(5500), zone: .gmt).map(\.label),
                       ["23", "00", "01", "02"])
    }

    /// A chosen day is all its hours on the store's clock: 25 on the day Rome's clocks go
    /// back, 23 on the day they go forward (29 March 2026, 02:00 CET to 03:00 CEST).
    func test_aChosenDayHasAllItsHoursTwentyFiveWhenTheClocksGoBack() throws {
        let rome = try XCTUnwrap(TimeZone(identifier: "Europe/Rome"))
        let change = Date(timeIntervalSince1970: 1_792_890_000)   // 2026-10-25 01:00 UTC
        let changes: [(at: Date, delta: Int)] = [(change.addingTimeInterval(-1800), 1), (change.addingTimeInterval(1800), 1),
                                                  (change.addingTimeInterval(5400), -1)]
        let autumn = Panel.hourlyInside(changes, carried: 0, wholeDay: "2026-10-25", zone: rome)
        XCTAssertEqual(autumn.map(\.label), ["00", "01", "02", "02"] + (3...23).map { String(format: "%02d", $0) })
        XCTAssertEqual(autumn.map(\.value), [0, 0, 1, 2, 1] + Array(repeating: 1, count: 20))
        let spring = Panel.hourlyInside([], carried: 4, wholeDay: "2026-03-29", zone: rome)
        XCTAssertEqual(spring.map(\.label), ["00", "01"] + (3...23).map { String(format: "%02d", $0) }, "02:00 never came")
        XCTAssertEqual(Set(spring.map(\.value)), [4], "the people carried in from the night before")
        XCTAssertEqual(Panel.hourlyInside([], carried: 0, wholeDay: "2026-11-18", zone: .gmt).count, 24)
    }

    func test_aDayInTheAddressIsADayOfTheCalendarOrRefused() {
        XCTAssertEqual(Panel.Day("2026-10-25")?.chosen, "2026-10-25")
        XCTAssertNotNil(Panel.Day(nil), "no day: the day under way")
        XCTAssertNil(Panel.Day(nil)?.chosen)
        for bad in ["2026-02-30", "2026-13-01", "25/10/2026", "2026-10-25'; DROP TABLE event; --", "", "2026-1-5", "9999999-01-01"] {
            XCTAssertNil(Panel.Day(bad), bad)
        }
    }

    func test_aStoreHalfAnHourOffUTCCountsFromItsOwnFullHours() throws {
        let kolkata = try XCTUnwrap(TimeZone(identifier: "Asia/Kolkata"))
        // 2026-11-29 10:45 and 11:15 UTC are 16:15 and 16:45 in Kolkata: the same hour, 16.
        let first = Date(timeIntervalSince1970: 1_795_949_100)
        let bars = Panel.hourlyInside([(first, 1), (first.addingTimeInterval(1800), 1)], carried: 0,
                                      now: first.addingTimeInterval(2000), zone: kolkata)
        XCTAssertEqual(bars.map(\.label), ["16"])
        XCTAssertEqual(bars.map(\.value), [2])
    }

    func test_theChartShowsTheLast24HoursAtMostAndNothingBelowZero() {
        let start = Date(timeIntervalSince1970: 1_795_910_400)   // 2026-11-29 00:00 UTC
        let changes = (0..<30).map { (at: start.addingTimeInterval(Double($0) * 3600), delta: $0 == 29 ? -100 : 1) }
        let bars = Panel.hourlyInside(changes, carried: 0, now: start.addingTimeInterval(29.5 * 3600), zone: .gmt)
        XCTAssertEqual(bars.count, 24)
        XCTAssertEqual(bars.first?.label, "06")
        XCTAssertEqual(bars.first?.value, 7)
        XCTAssertEqual(bars.last?.value, 0, "a count below zero is shown as none inside")
    }

    // MARK: The panel in five languages

    func test_theManagersChoiceComesFirstThenTheBrowsersLanguages() {
        XCTAssertEqual(PanelLanguage.chosen(cookie: "it", acceptLanguage: "en-GB,en;q=0.9"), .italian, "the manager's choice")
        XCTAssertEqual(PanelLanguage.chosen(cookie: nil, acceptLanguage: "it-IT,it;q=0.9,en;q=0.8"), .italian)
        XCTAssertEqual(PanelLanguage.chosen(cookie: nil, acceptLanguage: "nl-NL, en;q=0.5, it;q=0.7"), .italian, "by weight")
        XCTAssertEqual(PanelLanguage.chosen(cookie: nil, acceptLanguage: "nl, en"), .english, "the first the panel speaks")
        XCTAssertEqual(PanelLanguage.chosen(cookie: nil, acceptLanguage: "it;q=0, en;q=0.1"), .english, "q=0 is \"not this one\"")
        XCTAssertEqual(PanelLanguage.chosen(cookie: "xx", acceptLanguage: nil), .english, "an unknown choice, no header")
        XCTAssertEqual(PanelLanguage.chosen(cookie: nil, acceptLanguage: String(repeating: "x;q=,", count: 10_000)), .english)
    }

    func test_numbersAndDatesAreWrittenAsEachLanguageWritesThem() {
        XCTAssertEqual(english.number(12_345), "12,345")
        XCTAssertEqual(italian.number(12_345), "12.345")
        XCTAssertEqual(english.decimal(7.25, digits: 1), "7.2")
        XCTAssertEqual(italian.decimal(12_345.5, digits: 2), "12.345,50")
        XCTAssertEqual(english.clockTime(now, .gmt), "2026-11-18 11:06")
        XCTAssertEqual(italian.clockTime(now, TimeZone(identifier: "Europe/Rome")!), "18/11/2026 12:06")
        XCTAssertEqual(italian.day("2026-10-25"), "25/10/2026")
        XCTAssertEqual(italian.shortDay("2026-10-25"), "25/10")
        XCTAssertEqual(english.shortDay("2026-10-25"), "10-25")
        XCTAssertEqual(italian.utcTime(nil), "mai")
        XCTAssertEqual(english.timeInStore(minutes: 12.25, tickets: 1),
                       "Average time in store on this day: 12.2 min, from 1 ticket scanned on the way in and again on the way out.")
        XCTAssertEqual(italian.timeInStore(minutes: 12.25, tickets: 3),
                       "Tempo medio nel negozio in questa giornata: 12,2 min, da 3 biglietti letti all'ingresso e di nuovo all'uscita.")
    }

    func test_aPageInItalianSaysSoAndOffersEnglish() {
        let settings = StoreSettingsDocument(version: 3, capacity: 1200, priorityShare: 0.1, bookingShare: 0.3)
        let form = PanelPages.settingsForm(store: "7", csrf: "token", settings: settings, words: italian)
        XCTAssertTrue(form.contains("Posti per le prenotazioni, per fascia: <strong id=\"bookingPlaces\">360</strong>"), form)
        XCTAssertTrue(form.contains(">Salva</button>"), form)
        let manager = PanelAccounts.Manager(name: "ada", role: .storeManager, store: "7")
        let page = PanelPages.page(title: "Negozio 7", manager: manager, csrf: "token", here: "/panel/stores/7", words: italian, body: form)
        XCTAssertTrue(page.contains("<html lang=\"it\">"), page)
        XCTAssertTrue(page.contains("ada (responsabile del negozio, negozio 7)"), page)
        XCTAssertTrue(page.contains("<a href=\"/panel/language/en?back=%2Fpanel%2Fstores%2F7\" lang=\"en\" id=\"language-en\">English</a>"), page)
        XCTAssertTrue(page.contains("id=\"language-it\" aria-current=\"true\">Italiano</a>"), page)
        XCTAssertTrue(PanelPages.barChart([], title: "x", words: italian).contains(">nessun dato</text>"))
    }

    func test_aBrowserAskingForGermanFrenchOrSpanishIsAnsweredInIt() {
        XCTAssertEqual(PanelLanguage.chosen(cookie: nil, acceptLanguage: "fr-FR,fr;q=0.9,en;q=0.8"), .french)
        XCTAssertEqual(PanelLanguage.chosen(cookie: nil, acceptLanguage: "de-AT, de;q=0.9"), .german)
        XCTAssertEqual(PanelLanguage.chosen(cookie: nil, acceptLanguage: "es-ES,es;q=0.9,it;q=0.8"), .spanish)
        XCTAssertEqual(PanelLanguage.chosen(cookie: "es", acceptLanguage: "fr-FR"), .spanish, "the manager's choice first")
    }

    func test_everyPageOffersTheFiveLanguagesEachNamedInItself() {
        let names = ["en": "English", "it": "Italiano", "de": "Deutsch", "fr": "Français", "es": "Español"]
        for language in PanelLanguage.allCases {
            let page = PanelPages.login(message: nil, words: PanelWords(language))
            XCTAssertTrue(page.contains("<html lang=\"\(language.rawValue)\">"), page)
            for (code, name) in names {
                let current = code == language.rawValue ? " aria-current=\"true\"" : ""
                XCTAssertTrue(page.contains("<a href=\"/panel/language/\(code)?back=%2Fpanel%2Flogin\" lang=\"\(code)\" id=\"language-\(code)\"\(current)>\(name)</a>"),
                              "\(language) offers \(name): \(page)")
            }
        }
    }

    func test_aPageInGermanSaysSoAndAddressesTheManagerFormally() {
        let german = PanelWords(.german)
        let settings = StoreSettingsDocument(version: 3, capacity: 1200, priorityShare: 0.1, bookingShare: 0.3)
        let manager = PanelAccounts.Manager(name: "ada", role: .storeManager, store: "7")
        let form = PanelPages.settingsForm(store: "7", csrf: "token", settings: settings, words: german)
        let page = PanelPages.page(title: german.storeTitle("7"), manager: manager, csrf: "token", here: "/panel/stores/7", words: german, body: form)
        XCTAssertTrue(page.contains("<html lang=\"de\">"), page)
        XCTAssertTrue(page.contains("<title>Filiale 7 — CLup</title>"), page)
        XCTAssertTrue(page.contains("ada (Filialleitung, Filiale 7)"), page)
        XCTAssertTrue(page.contains("Plätze für Buchungen, je Zeitfenster: <strong id=\"bookingPlaces\">360</strong>"), page)
        XCTAssertTrue(page.contains(">Speichern</button>") && page.contains(">Abmelden</button>"), page)
        XCTAssertEqual(german.lockedOut(after: 5, until: now.addingTimeInterval(900), now: now),
                       "Nach 5 falschen Passwörtern ist dieser Name für 15 Minuten gesperrt.")
        XCTAssertEqual(PanelPages.totemState(revoked: false, lastContact: nil, now: now, words: german),
                       PanelPages.Cell("KEIN KONTAKT seit über 120 s", .flag))
    }

    func test_aPageInFrenchSaysSoAndAddressesTheManagerFormally() {
        let french = PanelWords(.french)
        let manager = PanelAccounts.Manager(name: "ada", role: .chainAdmin, store: nil)
        let page = PanelPages.page(title: french.fleet, manager: manager, csrf: "token", here: "/panel/fleet", words: french,
                                   body: PanelPages.table(french.slotHeader, [[String]](), words: french))
        XCTAssertTrue(page.contains("<html lang=\"fr\">"), page)
        XCTAssertTrue(page.contains("ada (administrateur de la chaîne)"), page)
        XCTAssertTrue(page.contains("<th>créneau</th><th>réservées</th><th>libres</th>"), page)
        XCTAssertTrue(page.contains(">Se déconnecter</button>"), page)
        XCTAssertEqual(french.noticeKind("called"), "place appelée : venez à l'entrée")
        // French counts one ticket, and no more, in the singular.
        XCTAssertEqual(french.timeInStore(minutes: 12.25, tickets: 1),
                       "Temps moyen passé en magasin ce jour-là : 12,2 min, d'après 1 ticket scanné à l'entrée puis à la sortie.")
    }

    func test_aPageInSpanishSaysSoAndAddressesTheManagerFormally() {
        let spanish = PanelWords(.spanish)
        let manager = PanelAccounts.Manager(name: "ada", role: .storeManager, store: "7")
        let page = PanelPages.login(message: spanish.wrongPassword, words: spanish)
        XCTAssertTrue(page.contains("<html lang=\"es\">"), page)
        XCTAssertTrue(page.contains("<h1>CLup — panel de los responsables</h1>"), page)
        XCTAssertTrue(page.contains("Nombre o contraseña incorrectos."), page)
        XCTAssertTrue(page.contains(">Iniciar sesión</button>"), page)
        XCTAssertTrue(PanelPages.page(title: "x", manager: manager, csrf: "token", here: "/panel", words: spanish, body: "")
            .contains("ada (responsable de la tienda, tienda 7)"))
        XCTAssertEqual(spanish.timeInStore(minutes: 8, tickets: 3),
                       "Tiempo medio en la tienda este día: 8,0 min, a partir de 3 turnos escaneados a la entrada y de nuevo a la salida.")
    }

    func test_aPageInGermanWritesNumbersAndDatesAsGermansDo() {
        let german = PanelWords(.german)
        XCTAssertEqual(german.number(12_345), "12.345")
        XCTAssertEqual(german.decimal(12_345.5, digits: 1), "12.345,5")
        XCTAssertEqual(german.day("2026-11-24"), "24.11.2026")
        XCTAssertEqual(german.shortDay("2026-11-24"), "24.11.")
        XCTAssertEqual(german.clockTime(now, TimeZone(identifier: "Europe/Berlin")!), "18.11.2026 12:06")
        XCTAssertEqual(german.utcTime(now), "18.11.2026 11:06 UTC")
        XCTAssertEqual(german.statisticsOf(german.day("2026-10-25")), "Statistik vom 25.10.2026")
    }

    func test_aPageInFrenchWritesNumbersAndDatesAsTheFrenchDo() {
        let french = PanelWords(.french)
        // French groups thousands with a narrow no-break space.
        XCTAssertEqual(french.number(12_345), "12\u{202F}345")
        XCTAssertEqual(french.decimal(12_345.5, digits: 1), "12\u{202F}345,5")
        XCTAssertEqual(french.day("2026-11-24"), "24/11/2026")
        XCTAssertEqual(french.shortDay("2026-11-24"), "24/11")
        XCTAssertEqual(french.clockTime(now, TimeZone(identifier: "Europe/Paris")!), "18/11/2026 12:06")
        XCTAssertEqual(french.utcTime(nil), "jamais")
    }

    func test_aPageInSpanishWritesNumbersAndDatesAsSpaniardsDo() {
        let spanish = PanelWords(.spanish)
        XCTAssertEqual(spanish.number(12_345), "12.345")
        XCTAssertEqual(spanish.decimal(12_345.5, digits: 1), "12.345,5")
        XCTAssertEqual(spanish.day("2026-11-24"), "24/11/2026")
        XCTAssertEqual(spanish.shortDay("2026-11-24"), "24/11")
        XCTAssertEqual(spanish.clockTime(now, TimeZone(identifier: "Europe/Madrid")!), "18/11/2026 12:06")
        XCTAssertEqual(spanish.day("not a day"), "not a day", "what is not a day is shown as it came")
    }

    /// A name locked after five wrong passwords: for how long from now, in whole minutes
    /// rounded up, not a UTC clock time a manager in Rome would have to work out.
    func test_theLockSaysForHowManyMinutesInEveryLanguage() {
        let fifteen: [PanelLanguage: String] = [.english: "locked for 15 minutes.", .italian: "bloccato per 15 minuti.",
                                                .german: "für 15 Minuten gesperrt.", .french: "bloqué pendant 15 minutes.",
                                                .spanish: "bloqueado durante 15 minutos."]
        let one: [PanelLanguage: String] = [.english: "locked for 1 minute.", .italian: "bloccato per 1 minuto.",
                                            .german: "für 1 Minute gesperrt.", .french: "bloqué pendant 1 minute.",
                                            .spanish: "bloqueado durante 1 minuto."]
        for language in PanelLanguage.allCases {
            let words = PanelWords(language)
            let whole = words.lockedOut(after: 5, until: now.addingTimeInterval(15 * 60), now: now)
            let partly = words.lockedOut(after: 5, until: now.addingTimeInterval(14 * 60 + 1), now: now)
            let last = words.lockedOut(after: 5, until: now.addingTimeInterval(30), now: now)
            XCTAssertTrue(whole.hasSuffix(fifteen[language]!), whole)
            XCTAssertEqual(partly, whole, "a minute begun is counted whole")
            XCTAssertTrue(last.hasSuffix(one[language]!), last)
            XCTAssertTrue(whole.contains("5"), whole)
            XCTAssertFalse(whole.contains("UTC") || last.contains("UTC"), whole)
        }
        XCTAssertEqual(english.lockedOut(after: 5, until: now.addingTimeInterval(900), now: now),
                       "After 5 wrong passwords this name is locked for 15 minutes.")
    }

    func test_theHubsRefusalsThePanelCanTellApartAreInTheManagersLanguage() {
        let spanish = PanelWords(.spanish)
        let busy = HubError(.serviceUnavailable, .hubDatabaseUnavailable, "the hub's database is busy or restarting; try again")
        XCTAssertEqual(spanish.refusal(busy), "La base de datos del hub no está disponible en este momento: inténtelo de nuevo dentro de un momento.")
        // A refusal the panel cannot tell apart by its code names what only the hub knows.
        let other = HubError.badRequest("slot of 3 minutes is outside 5...240")
        XCTAssertEqual(spanish.refusal(other), "slot of 3 minutes is outside 5...240")

        let german = PanelWords(.german)
        let live = german.rolloutRefusal(HubError(.conflict, .badHubRequest, "rollout 3 of 1.2 is live: abort it first"), action: .start)
        XCTAssertEqual(live.coded.message, "Ein Rollout läuft bereits: brechen Sie ihn ab, bevor Sie einen neuen starten.")
        XCTAssertEqual(live.status, .conflict)
        XCTAssertEqual(german.rolloutRefusal(HubError(.conflict, .badHubRequest, "rollout 3 is paused"), action: .pause).coded.message,
                       "Der Rollout ist bereits pausiert.")
        XCTAssertEqual(german.rolloutRefusal(HubError(.notFound, .badHubRequest, "no rollout is live"), action: .resume).coded.message,
                       "Es läuft kein Rollout.")
        XCTAssertEqual(PanelWords(.french).rolloutRefusal(HubError(.notFound, .releaseRefused, "the repository holds no clup-totem 9"),
                                                          action: .start).coded.message,
                       "Le dépôt ne contient pas cette version de clup-totem : ajoutez-la d'abord avec clup-hub release add.")
    }

    func test_theRolloutFormsMistakesAreToldInTheManagersLanguage() {
        let italian = PanelWords(.italian)
        func refusal(_ form: [String: String]) -> String? {
            do {
                _ = try Panel.plan(form, words: italian)
                return nil
            } catch {
                return (error as? HubError)?.coded.message
            }
        }
        XCTAssertEqual(refusal(["version": "1.2", "stages": "25"]), "Spunti da 1 a 20 totem sentinella: ricevono la versione per primi.")
        XCTAssertEqual(refusal(["version": "1.2", "canary-a": "on", "stages": "50, 25"]),
                       "Le quote delle fasi vanno da 1 a 99 %, crescenti, al massimo 10 (tutti i totem per ultimi).")
        XCTAssertEqual(refusal(["version": "1.2", "canary-a": "on", "stages": "25", "healthyMinutes": "20000"]),
                       "Minuti in cui una fase resta sana prima della successiva: 20.000 è fuori dall'intervallo da 0 a 10.080")
        XCTAssertNil(refusal(["version": "1.2", "canary-a": "on", "stages": "25, 50", "healthyMinutes": "30"]))
    }

    func test_theLanguageSwitchGoesBackOnlyToAPageOfThePanel() {
        XCTAssertEqual(Panel.panelPath("/panel/stores/7"), "/panel/stores/7")
        XCTAssertEqual(Panel.panelPath("/panel"), "/panel")
        for elsewhere in ["//evil.example/panel", "https://evil.example/", "/panelx", "/v1/stores/7/slots", "/panel/../v1/health",
                          "/panel/\\evil.example", "/panel/a\r\nSet-Cookie: x=1", nil, String(repeating: "/panel/a", count: 100)] {
            XCTAssertEqual(Panel.panelPath(elsewhere), "/panel", "\(String(describing: elsewhere?.prefix(40)))")
        }
    }
}
