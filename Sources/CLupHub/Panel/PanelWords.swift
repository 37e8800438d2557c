import CLupCore
import Foundation

/// The languages of the managers' panel: the five the totems and the customers' website speak.
enum PanelLanguage: String, CaseIterable, Sendable {
    case english = "en", italian = "it", german = "de", french = "fr", spanish = "es"

    /// Its name as its speakers write it, for the switch in the panel's bar.
    var name: String {
        switch self {
        case .english: "English"
        case .italian: "Italiano"
        case .german: "Deutsch"
        case .french: "Français"
        case .spanish: "Español"
        }
    }

    var locale: Locale {
        switch self {
        case .english: Locale(identifier: "en_GB")
        case .italian: Locale(identifier: "it_IT")
        case .german: Locale(identifier: "de_DE")
        case .french: Locale(identifier: "fr_FR")
        case .spanish: Locale(identifier: "es_ES")
        }
    }

    /// The manager's choice (the `Panel.languageCookie`), else the first of the browser's
    /// languages the panel speaks, else English.
    static func chosen(cookie: String?, acceptLanguage: String?) -> PanelLanguage {
        if let cookie, let language = PanelLanguage(rawValue: cookie) { return language }
        // "it-IT,it;q=0.9,en;q=0.8": by weight (a missing one is 1), then in the order given.
        var wanted: [(language: PanelLanguage, weight: Double, index: Int)] = []
        for (index, part) in (acceptLanguage ?? "").prefix(512).split(separator: ",").enumerated() {
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let code = fields.first?.split(separator: "-").first?.lowercased(), let language = PanelLanguage(rawValue: code) else {
                continue
            }
            let quality = fields.dropFirst().first { $0.hasPrefix("q=") }.map { $0.dropFirst(2) }
            let weight = quality.flatMap { Double($0) } ?? 1
            if weight > 0 { wanted.append((language, weight, index)) }
        }
        wanted.sort { $0.weight != $1.weight ? $0.weight > $1.weight : $0.index < $1.index }
        return wanted.first?.language ?? .english
    }
}

/// Every word the panel shows, in the manager's language. Each text is written once per
/// language, side by side (`pick(en, it, de, fr, es)`), so that a missing translation does
/// not build; the texts of a store's pages are in `PanelWords+Stores.swift`, the fleet's in
/// `PanelWords+Fleet.swift`. Numbers and dates follow the language's conventions (1,234.5 /
/// 1.234,5 / 1 234,5; 2026-11-24 / 24/11/2026 / 24.11.2026). The CSV downloads keep English
/// column names, whatever the language: a spreadsheet or a script reads them by name.
struct PanelWords: Sendable {
    let language: PanelLanguage

    init(_ language: PanelLanguage) {
        self.language = language
    }

    func pick(_ en: String, _ it: String, _ de: String, _ fr: String, _ es: String) -> String {
        switch language {
        case .english: en
        case .italian: it
        case .german: de
        case .french: fr
        case .spanish: es
        }
    }

    /// `one` where `count` takes the language's singular, else `other`: CLDR's rule, in which
    /// French counts 0 as one and the others only 1 (the panel counts nothing below zero).
    func plural(_ count: Int, _ one: String, _ other: String) -> String {
        (language == .french ? count <= 1 : count == 1) ? one : other
    }

    // MARK: Numbers and times

    func number(_ value: Int) -> String { value.formatted(.number.locale(language.locale)) }

    func decimal(_ value: Double, digits: Int) -> String {
        value.formatted(.number.precision(.fractionLength(digits)).grouping(.automatic).locale(language.locale))
    }

    /// Dates and times as the language writes them, on `zone`'s clocks.
    private func dateStyle(_ zone: TimeZone) -> Date.FormatStyle {
        Date.FormatStyle(locale: language.locale, calendar: Calendar(identifier: .gregorian), timeZone: zone)
    }

    /// "2026-11-24 14:30" / "24/11/2026 14:30" / "24.11.2026 14:30" as `zone`'s clocks read
    /// `date`. English keeps ISO 8601: its speakers write the day and the month in either
    /// order, ISO's is read one way by all of them.
    func clockTime(_ date: Date, _ zone: TimeZone) -> String {
        let time = date.formatted(dateStyle(zone).hour(.twoDigits(amPM: .omitted)).minute(.twoDigits))
        guard language != .english else {
            return date.formatted(Date.ISO8601FormatStyle(timeZone: zone).year().month().day()) + " " + time
        }
        return date.formatted(dateStyle(zone).day(.twoDigits).month(.twoDigits).year()) + " " + time
    }

    /// A business day ("2026-11-24", as the database gives it) as the language writes it.
    func day(_ isoDay: String) -> String {
        guard language != .english, let noon = Self.noon(of: isoDay) else { return isoDay }
        return noon.formatted(dateStyle(.gmt).day(.twoDigits).month(.twoDigits).year())
    }

    /// The same, without the year: a chart's label ("11-24", "24/11", "24.11.").
    func shortDay(_ isoDay: String) -> String {
        guard let noon = Self.noon(of: isoDay) else { return isoDay }
        guard language != .english else { return String(isoDay.dropFirst(5)) }
        return noon.formatted(dateStyle(.gmt).day(.twoDigits).month(.twoDigits))
    }

    /// Noon UTC of a day of the calendar: the same day in every zone's writing of it.
    private static func noon(of isoDay: String) -> Date? {
        guard isoDay.utf8.count == 10 else { return nil }
        return try? Date(isoDay + "T12:00:00Z", strategy: .iso8601)
    }

    /// A moment in UTC, named as such ("never" if there was none).
    func utcTime(_ date: Date?) -> String {
        guard let date else { return pick("never", "mai", "nie", "jamais", "nunca") }
        return clockTime(date, .gmt) + " UTC"
    }

    // MARK: The frame of every page

    var stores: String { pick("Stores", "Negozi", "Filialen", "Magasins", "Tiendas") }
    var fleet: String { pick("Fleet", "Flotta", "Flotte", "Parc", "Flota") }
    var logOut: String { pick("Log out", "Esci", "Abmelden", "Se déconnecter", "Cerrar sesión") }
    var languageLabel: String { pick("Language", "Lingua", "Sprache", "Langue", "Idioma") }

    func role(_ role: PanelAccounts.Role) -> String {
        switch role {
        case .chainAdmin:
            pick("chain administrator", "amministratore della catena", "Administration der Kette", "administrateur de la chaîne",
                 "administrador de la cadena")
        case .storeManager:
            pick("store manager", "responsabile del negozio", "Filialleitung", "responsable du magasin", "responsable de la tienda")
        }
    }

    func ofStore(_ store: String) -> String {
        pick("store \(store)", "negozio \(store)", "Filiale \(store)", "magasin \(store)", "tienda \(store)")
    }

    // MARK: Logging in

    var logIn: String { pick("Log in", "Accedi", "Anmelden", "Se connecter", "Iniciar sesión") }
    var panelTitle: String {
        pick("CLup — managers' panel", "CLup — pannello dei responsabili", "CLup — Bereich der Filialleitungen",
             "CLup — espace des responsables", "CLup — panel de los responsables")
    }
    var name: String { pick("Name", "Nome", "Name", "Nom", "Nombre") }
    var password: String { pick("Password", "Password", "Passwort", "Mot de passe", "Contraseña") }
    var nameRule: String {
        pick("A manager's name is 2 to 32 small letters, digits, . _ or -, starting with a letter.",
             "Il nome di un responsabile ha da 2 a 32 lettere minuscole, cifre, . _ o -, e comincia con una lettera.",
             "Der Name einer Filialleitung hat 2 bis 32 Kleinbuchstaben, Ziffern, . _ oder - und beginnt mit einem Buchstaben.",
             "Le nom d'un responsable compte 2 à 32 lettres minuscules, chiffres, . _ ou - et commence par une lettre.",
             "El nombre de un responsable tiene de 2 a 32 letras minúsculas, cifras, . _ o - y empieza por una letra.")
    }
    var wrongPassword: String {
        pick("Wrong name or password.", "Nome o password errati.", "Falscher Name oder falsches Passwort.",
             "Nom ou mot de passe incorrect.", "Nombre o contraseña incorrectos.")
    }

    /// How long the lock lasts from `now`, in whole minutes rounded up: a clock time would be
    /// the hub's, not the manager's.
    func lockedOut(after failures: Int, until: Date, now: Date) -> String {
        let minutes = max(1, Int((until.timeIntervalSince(now) / 60).rounded(.up)))
        let count = number(minutes)
        return pick("After \(failures) wrong passwords this name is locked for \(count) \(plural(minutes, "minute", "minutes")).",
                    "Dopo \(failures) password errate questo nome è bloccato per \(count) \(plural(minutes, "minuto", "minuti")).",
                    "Nach \(failures) falschen Passwörtern ist dieser Name für \(count) \(plural(minutes, "Minute", "Minuten")) gesperrt.",
                    "Après \(failures) mots de passe erronés, ce nom est bloqué pendant \(count) \(plural(minutes, "minute", "minutes")).",
                    "Tras \(failures) contraseñas incorrectas, este nombre queda bloqueado durante \(count) \(plural(minutes, "minuto", "minutos")).")
    }

    // MARK: Refusals

    var noSuchStore: String { pick("No such store", "Negozio inesistente", "Unbekannte Filiale", "Magasin inconnu", "Tienda inexistente") }
    func thereIsNoStore(_ store: String) -> String {
        pick("There is no store \(store).", "Non esiste il negozio \(store).", "Es gibt keine Filiale \(store).",
             "Il n'existe pas de magasin \(store).", "No existe la tienda \(store).")
    }
    var notAllowed: String { pick("Not allowed", "Non consentito", "Nicht erlaubt", "Non autorisé", "No permitido") }
    var refused: String { pick("Refused", "Rifiutato", "Abgelehnt", "Refusé", "Rechazado") }
    var crossSite: String {
        pick("This form was sent from another site, not from the panel's page: nothing was changed. Open the panel and try again.",
             "Questo modulo è stato inviato da un altro sito, non da una pagina del pannello: non è stato cambiato nulla. Apri il pannello e riprova.",
             "Dieses Formular kam von einer anderen Website, nicht von einer Seite des Panels: es wurde nichts geändert. Öffnen Sie das Panel und versuchen Sie es erneut.",
             "Ce formulaire a été envoyé depuis un autre site, pas depuis une page du panneau : rien n'a été modifié. Ouvrez le panneau et réessayez.",
             "Este formulario se envió desde otro sitio, no desde una página del panel: no se ha cambiado nada. Abra el panel e inténtelo de nuevo.")
    }
    var notLoggedIn: String { pick("not logged in", "accesso non effettuato", "nicht angemeldet", "non connecté", "sesión no iniciada") }
    func managesOnly(_ manager: String, _ store: String) -> String {
        pick("\(manager) manages store \(store) only", "\(manager) gestisce solo il negozio \(store)",
             "\(manager) verwaltet nur die Filiale \(store)", "\(manager) ne gère que le magasin \(store)",
             "\(manager) solo gestiona la tienda \(store)")
    }
    var csrfRefused: String {
        pick("the form did not come from this session's page (CSRF check)",
             "il modulo non viene da una pagina di questa sessione (controllo CSRF)",
             "das Formular stammt nicht von einer Seite dieser Sitzung (CSRF-Prüfung)",
             "le formulaire ne vient pas d'une page de cette session (contrôle CSRF)",
             "el formulario no procede de una página de esta sesión (control CSRF)")
    }
    func formTooLarge(_ bytes: Int) -> String {
        pick("a form is at most \(number(bytes)) bytes", "un modulo ha al massimo \(number(bytes)) byte",
             "ein Formular hat höchstens \(number(bytes)) Byte", "un formulaire fait au plus \(number(bytes)) octets",
             "un formulario tiene como máximo \(number(bytes)) bytes")
    }

    /// A refusal as the manager reads it. The panel's own are in their language already; of
    /// the hub's, those whose code tells what happened are told in it too, and the rest in
    /// the hub's English, which names what the panel cannot know.
    func refusal(_ error: HubError) -> String {
        switch ErrorCode(rawValue: error.coded.code) {
        case .hubDatabaseUnavailable?:
            pick("The hub's database cannot be reached right now: try again in a moment.",
                 "Il database dell'hub non è raggiungibile in questo momento: riprovi tra poco.",
                 "Die Datenbank des Hubs ist gerade nicht erreichbar: versuchen Sie es gleich noch einmal.",
                 "La base de données du hub est injoignable pour le moment : réessayez dans un instant.",
                 "La base de datos del hub no está disponible en este momento: inténtelo de nuevo dentro de un momento.")
        case .hubDatabaseError?:
            pick("The hub's database refused the request; the hub's log says why.",
                 "Il database dell'hub ha rifiutato la richiesta; il log dell'hub dice perché.",
                 "Die Datenbank des Hubs hat die Anfrage abgelehnt; das Protokoll des Hubs nennt den Grund.",
                 "La base de données du hub a refusé la demande ; le journal du hub en donne la raison.",
                 "La base de datos del hub ha rechazado la petición; el registro del hub indica el motivo.")
        default:
            error.coded.message
        }
    }

    // MARK: Tables and charts

    var noData: String { pick("no data", "nessun dato", "keine Daten", "aucune donnée", "sin datos") }
    var none: String { pick("none", "nessuno", "keine", "aucun", "ninguno") }
    var unknown: String { "?" }
}
