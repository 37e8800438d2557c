import CLupCore
import Foundation

/// The languages of the managers' panel.
enum PanelLanguage: String, CaseIterable, Sendable {
    case english = "en"
    case italian = "it"

    /// Its name as its speakers write it, for the switch in the panel's bar.
    var name: String {
        switch self {
        case .english: "English"
        case .italian: "Italiano"
        }
    }

    var locale: Locale { Locale(identifier: self == .italian ? "it_IT" : "en_GB") }

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
/// language, side by side (`pick(english, italian)`), so that a missing translation does not
/// build. Numbers and dates follow the language's conventions (1,234.5 / 1.234,5;
/// 2026-11-24 / 24/11/2026). The CSV downloads keep English column names, whatever the
/// language: a spreadsheet or a script reads them by name.
struct PanelWords: Sendable {
    let language: PanelLanguage

    init(_ language: PanelLanguage) {
        self.language = language
    }

    private func pick(_ english: String, _ italian: String) -> String {
        switch language {
        case .english: english
        case .italian: italian
        }
    }

    // MARK: Numbers and times

    func number(_ value: Int) -> String { value.formatted(.number.locale(language.locale)) }

    func decimal(_ value: Double, digits: Int) -> String {
        value.formatted(.number.precision(.fractionLength(digits)).grouping(.automatic).locale(language.locale))
    }

    /// "2026-11-24 14:30" / "24/11/2026 14:30" as `zone`'s clocks read `date`.
    func clockTime(_ date: Date, _ zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        let (year, month, day) = (parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        return pick(String(format: "%04d-%02d-%02d ", year, month, day), String(format: "%02d/%02d/%04d ", day, month, year)) + time
    }

    /// A business day ("2026-11-24", as the database gives it) as the language writes it.
    func day(_ isoDay: String) -> String {
        let parts = isoDay.split(separator: "-")
        guard parts.count == 3 else { return isoDay }
        return pick(isoDay, "\(parts[2])/\(parts[1])/\(parts[0])")
    }

    /// The same, without the year: a chart's label.
    func shortDay(_ isoDay: String) -> String {
        let parts = isoDay.split(separator: "-")
        guard parts.count == 3 else { return isoDay }
        return pick("\(parts[1])-\(parts[2])", "\(parts[2])/\(parts[1])")
    }

    /// A moment in UTC, named as such ("never" if there was none).
    func utcTime(_ date: Date?) -> String {
        guard let date else { return pick("never", "mai") }
        return clockTime(date, .gmt) + " UTC"
    }

    // MARK: The frame of every page

    var stores: String { pick("Stores", "Negozi") }
    var fleet: String { pick("Fleet", "Flotta") }
    var logOut: String { pick("Log out", "Esci") }
    var languageLabel: String { pick("Language", "Lingua") }

    func role(_ role: PanelAccounts.Role) -> String {
        switch role {
        case .chainAdmin: pick("chain administrator", "amministratore della catena")
        case .storeManager: pick("store manager", "responsabile del negozio")
        }
    }

    func ofStore(_ store: String) -> String { pick("store \(store)", "negozio \(store)") }

    // MARK: Logging in

    var logIn: String { pick("Log in", "Accedi") }
    var panelTitle: String { pick("CLup — managers' panel", "CLup — pannello dei responsabili") }
    var name: String { pick("Name", "Nome") }
    var password: String { pick("Password", "Password") }
    var nameRule: String {
        pick("A manager's name is 2 to 32 small letters, digits, . _ or -, starting with a letter.",
             "Il nome di un responsabile ha da 2 a 32 lettere minuscole, cifre, . _ o -, e comincia con una lettera.")
    }
    var wrongPassword: String { pick("Wrong name or password.", "Nome o password errati.") }

    func lockedOut(after failures: Int, until: Date) -> String {
        pick("After \(failures) wrong passwords this name is locked until \(utcTime(until)).",
             "Dopo \(failures) password errate questo nome è bloccato fino alle \(utcTime(until)).")
    }

    // MARK: Refusals

    var noSuchStore: String { pick("No such store", "Negozio inesistente") }
    func thereIsNoStore(_ store: String) -> String { pick("There is no store \(store).", "Non esiste il negozio \(store).") }
    var notAllowed: String { pick("Not allowed", "Non consentito") }
    var refused: String { pick("Refused", "Rifiutato") }
    var notLoggedIn: String { pick("not logged in", "accesso non effettuato") }
    func managesOnly(_ manager: String, _ store: String) -> String {
        pick("\(manager) manages store \(store) only", "\(manager) gestisce solo il negozio \(store)")
    }
    var csrfRefused: String {
        pick("the form did not come from this session's page (CSRF check)",
             "il modulo non viene da una pagina di questa sessione (controllo CSRF)")
    }
    func formTooLarge(_ bytes: Int) -> String {
        pick("a form is at most \(number(bytes)) bytes", "un modulo ha al massimo \(number(bytes)) byte")
    }

    // MARK: Tables and charts

    var noData: String { pick("no data", "nessun dato") }
    var none: String { pick("none", "nessuno") }
    var unknown: String { "?" }

    // MARK: The list of stores

    func storeLine(_ store: String, _ name: String) -> String { pick("Store \(store) — \(name)", "Negozio \(store) — \(name)") }
    func inside(_ inside: Int, of capacity: Int) -> String {
        pick("\(number(inside)) inside of \(number(capacity))", "\(number(inside)) dentro su \(number(capacity))")
    }

    // MARK: A store's page

    func storeTitle(_ store: String) -> String { pick("Store \(store)", "Negozio \(store)") }
    var saved: String { pick("Saved.", "Salvato.") }
    func settingsVersion(_ version: Int64) -> String { pick("Settings (version \(version))", "Impostazioni (versione \(version))") }
    var statistics: String { pick("Statistics", "Statistiche") }
    func statisticsOf(_ day: String) -> String { pick("Statistics of \(day)", "Statistiche del \(day)") }
    var backToToday: String { pick("back to the day under way", "torna alla giornata in corso") }
    func notADay(_ typed: String) -> String {
        pick("\"\(typed)\" is not a day (YYYY-MM-DD)", "\"\(typed)\" non è un giorno (AAAA-MM-GG)")
    }
    func storeClock(_ zone: String) -> String {
        pick("Hours and times on the store's clock (\(zone)).", "Ore e orari secondo l'orologio del negozio (\(zone)).")
    }
    var insideByHour: String { pick("People inside at the end of each hour of the store's day", "Persone dentro alla fine di ogni ora della giornata del negozio") }
    var entriesPerDay: String { pick("Entries per day, the last 14 days", "Ingressi al giorno, ultimi 14 giorni") }
    var ticketsByLane: String { pick("Tickets of the store's day by lane", "Biglietti della giornata del negozio per corsia") }
    func slotsNowAndNext(_ places: Int) -> String {
        pick("Booking slots now and next (\(number(places)) places each)",
             "Fasce di prenotazione, quella in corso e le successive (\(number(places)) posti ciascuna)")
    }
    var days: String { pick("Days", "Giorni") }
    var noTimeInStore: String {
        pick("Time in store: no ticket was scanned on the way out on this day.",
             "Tempo nel negozio: in questa giornata nessun biglietto è stato letto all'uscita.")
    }
    func timeInStore(minutes: Double, tickets: Int) -> String {
        let count = number(tickets)
        return pick("Average time in store on this day: \(decimal(minutes, digits: 1)) min, from \(count) "
                        + (tickets == 1 ? "ticket" : "tickets") + " scanned on the way in and again on the way out.",
                    "Tempo medio nel negozio in questa giornata: \(decimal(minutes, digits: 1)) min, da \(count) "
                        + (tickets == 1 ? "biglietto letto" : "biglietti letti") + " all'ingresso e di nuovo all'uscita.")
    }

    func lane(_ name: String) -> String {
        switch Lane(rawValue: name) {
        case .regular: pick("regular", "normale")
        case .priority: pick("priority", "prioritaria")
        case .booking: pick("booking", "prenotazione")
        case .remote: pick("from a phone", "dal telefono")
        case nil: name
        }
    }

    var slotHeader: [String] { [pick("slot", "fascia"), pick("booked", "prenotati"), pick("free", "liberi")] }
    var dayHeader: [String] {
        [pick("day", "giorno"), pick("entries", "ingressi"), pick("exits", "uscite"), pick("corrections", "correzioni"),
         pick("inside at the end", "dentro alla fine")]
    }
    var laneHeader: [String] {
        [pick("lane", "corsia"), pick("issued", "emessi"), pick("called", "chiamati"), pick("admitted", "ammessi"),
         pick("no-shows", "non presentati"), pick("waiting now", "in attesa ora"),
         pick("average wait to the call (min)", "attesa media fino alla chiamata (min)"),
         pick("average wait predicted at issue, of those called (min)", "attesa media prevista all'emissione, dei chiamati (min)")]
    }

    // MARK: A store's settings

    var capacityLabel: String { pick("Capacity (people inside at once)", "Capienza (persone dentro allo stesso tempo)") }
    var walkInLabel: String { pick("Places for walk-in customers", "Posti per i clienti senza prenotazione") }
    func bookingPlaces(_ places: String) -> String {
        pick("Places for bookings, per slot: \(places) (the capacity less the walk-in places: raising one lowers the other)",
             "Posti per le prenotazioni, per fascia: \(places) (la capienza meno i posti senza prenotazione: alzarne uno abbassa l'altro)")
    }
    var priorityLabel: String {
        pick("Priority share of the capacity (places kept for priority tickets), %",
             "Quota prioritaria della capienza (posti tenuti per i biglietti prioritari), %")
    }
    var slotLabel: String { pick("Slot length, minutes", "Durata di una fascia, minuti") }
    var presentationLabel: String { pick("Minutes a called ticket has to reach the door", "Minuti che un biglietto chiamato ha per arrivare alla porta") }
    var earlyLabel: String { pick("A booking is admitted from minutes before its slot", "Una prenotazione è ammessa da minuti prima della sua fascia") }
    var lateLabel: String { pick("… to minutes after its start (then it is a no-show)", "… a minuti dopo il suo inizio (poi non si è presentata)") }
    var delayNoticeLabel: String {
        pick("While the store is full, bookings whose slot starts within minutes hear they may wait",
             "A negozio pieno, le prenotazioni la cui fascia inizia entro minuti sono avvisate che potrebbero attendere")
    }
    var majorDelayLabel: String {
        pick("Full for minutes: those bookings are cancelled and told so (0: never)",
             "Pieno da minuti: quelle prenotazioni sono annullate e avvisate (0: mai)")
    }
    var reminderLabel: String {
        pick("Bookings made in the app are reminded minutes before their slot (0: no reminder)",
             "Le prenotazioni fatte nell'app ricevono un promemoria minuti prima della fascia (0: nessuno)")
    }
    var totemPlacesLabel: String {
        pick("Of each slot's booking places, kept for each totem's own bookings (offline too)",
             "Dei posti prenotabili di ogni fascia, tenuti per le prenotazioni fatte a ciascun totem (anche offline)")
    }
    func openingHours(_ hours: String) -> String {
        pick("Opening hours (<code>clup-hub store hours</code>): \(hours)", "Orario di apertura (<code>clup-hub store hours</code>): \(hours)")
    }
    var notSet: String { pick("not set", "non impostato") }
    var save: String { pick("Save", "Salva") }

    // What a form's value may not be.
    func wholeNumber(_ field: String, typed: String) -> String {
        pick("\(field) is a whole number from 0 to 100,000: not \"\(typed)\"", "\(field): un numero intero da 0 a 100.000, non \"\(typed)\"")
    }
    func outOfRange(_ field: String, _ value: Int, _ range: ClosedRange<Int>) -> String {
        pick("\(field): \(number(value)) is outside \(number(range.lowerBound)) to \(number(range.upperBound))",
             "\(field): \(number(value)) è fuori dall'intervallo da \(number(range.lowerBound)) a \(number(range.upperBound))")
    }
    func walkInOverCapacity(_ walkIn: Int, _ capacity: Int) -> String {
        pick("\(number(walkIn)) walk-in places are more than the capacity, \(number(capacity))",
             "\(number(walkIn)) posti senza prenotazione sono più della capienza, \(number(capacity))")
    }
    func sharesOverCapacity(priority: Int, bookings: Int, capacity: Int) -> String {
        pick("\(priority) % for priority and \(number(bookings)) booking places are more than the capacity, \(number(capacity))",
             "\(priority) % per la priorità e \(number(bookings)) posti prenotabili sono più della capienza, \(number(capacity))")
    }
    func totemPlacesOverSlot(_ places: Int, _ bookings: Int) -> String {
        pick("\(number(places)) places per slot for each totem's own bookings, but a slot has \(number(bookings))",
             "\(number(places)) posti per fascia per le prenotazioni di ciascun totem, ma una fascia ne ha \(number(bookings))")
    }

    // MARK: The fleet

    var undeliveredNotices: String { pick("Notices not delivered", "Avvisi non consegnati") }
    var everyNoticeDelivered: String {
        pick("Every notice to a customer was delivered, or is still being sent.",
             "Ogni avviso a un cliente è stato consegnato o è ancora in invio.")
    }
    var deadNoticeHeader: [String] {
        [pick("notice", "avviso"), pick("store", "negozio"), pick("about", "riguardo"), pick("booking or place", "prenotazione o posto"),
         pick("attempts", "tentativi"), pick("given up (UTC)", "abbandonato (UTC)"), pick("why", "motivo")]
    }

    /// What a notice told the customer.
    func noticeKind(_ kind: String) -> String {
        switch kind {
        case "cancelled": pick("booking cancelled", "prenotazione annullata")
        case "delayed": pick("store running late", "negozio in ritardo")
        case "called": pick("place called: come to the door", "posto chiamato: venga alla porta")
        case "reminder": pick("booking reminder", "promemoria della prenotazione")
        default: kind
        }
    }

    var fleetHeader: [String] {
        [pick("totem", "totem"), pick("store", "negozio"), pick("door", "porta"), pick("last contact (UTC)", "ultimo contatto (UTC)"),
         pick("software", "software"), pick("last update", "ultimo aggiornamento"), pick("settings version", "versione delle impostazioni"),
         pick("outbox", "in uscita"),
         pick("clock skew (s)", "scarto dell'orologio (s)"), pick("devices", "dispositivi"), pick("printer", "stampante"),
         pick("state", "stato")]
    }
    func allDevicesOK(_ count: Int) -> String { pick("all \(count) ok", "tutti e \(count) a posto") }
    var revoked: String { pick("revoked", "revocato") }
    func silent(for seconds: Int) -> String { pick("SILENT for over \(seconds) s", "MUTO da oltre \(seconds) s") }
    var ok: String { pick("ok", "a posto") }
    var noRollout: String { pick("No rollout yet: clup-hub rollout start VERSION.", "Ancora nessun rilascio: clup-hub rollout start VERSIONE.") }
    func rolloutTitle(_ id: Int64, _ version: String) -> String {
        pick("Rollout \(id) of clup-totem \(version)", "Rilascio \(id) di clup-totem \(version)")
    }
    func rolloutLine(_ status: Rollouts.Status) -> String {
        let state = switch status.state {
        case .running: pick("running", "in corso")
        case .paused: pick("paused", "in pausa")
        case .aborted: pick("aborted", "annullato")
        case .done: pick("done", "completato")
        }
        let stage = status.stage == 0 ? pick("the canaries", "i totem sentinella") + " (\(status.canaries.joined(separator: ", ")))"
            : status.stage <= status.shares.count
                ? pick("\(status.shares[status.stage - 1]) % of each store's totems", "\(status.shares[status.stage - 1]) % dei totem di ogni negozio")
                : pick("every totem", "tutti i totem")
        return pick("\(state.capitalized), stage \(status.stage): \(stage). \(status.updated) of the \(status.targeted) totems taken in run it; the fleet has \(status.totems).",
                    "\(state.capitalized), fase \(status.stage): \(stage). \(status.updated) dei \(status.targeted) totem coinvolti lo usano; la flotta ne ha \(status.totems).")
    }
    var noRelease: String {
        pick("The repository holds no release yet: clup-hub release add FILE.deb.", "Il repository non ha ancora rilasci: clup-hub release add FILE.deb.")
    }
    var startRollout: String { pick("Start a rollout", "Avvia un rilascio") }
    var versionLabel: String { pick("Version", "Versione") }
    var canariesLabel: String { pick("Canary totems (they take it first)", "Totem sentinella (lo ricevono per primi)") }
    var stagesLabel: String {
        pick("Then these shares of each store's totems, in %, rising (every totem comes last)",
             "Poi queste quote dei totem di ogni negozio, in %, crescenti (tutti i totem per ultimi)")
    }
    var healthyLabel: String {
        pick("Minutes a stage stays healthy before the next", "Minuti in cui una fase resta sana prima della successiva")
    }
    func notAShare(_ typed: String) -> String {
        pick("\"\(typed)\" is not a whole number", "\"\(typed)\" non è un numero intero")
    }
    var pauseRollout: String { pick("Pause the rollout", "Metti in pausa il rilascio") }
    var resumeRollout: String { pick("Resume the rollout", "Riprendi il rilascio") }
    var abortRollout: String { pick("Abort the rollout", "Annulla il rilascio") }
    var rolloutsAreTheChains: String {
        pick("rollouts are the chain administrators'", "i rilasci sono degli amministratori della catena")
    }
    func fleetNote(silentAfter seconds: Int) -> String {
        pick("A totem not heard from for \(seconds) s is flagged SILENT. Devices and printer are as the totem last reported them (with every upload, at least every 30 s).",
             "Un totem che non si fa sentire da \(seconds) s è segnalato MUTO. Dispositivi e stampante sono come il totem li ha descritti l'ultima volta (a ogni invio, almeno ogni 30 s).")
    }
}
