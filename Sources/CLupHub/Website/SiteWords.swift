import CLupCore
import Foundation

/// The languages of the customers' website: the five the totems speak.
enum SiteLanguage: String, CaseIterable, Sendable {
    case english = "en", italian = "it", german = "de", french = "fr", spanish = "es"

    /// Its name as its speakers write it.
    var name: String {
        switch self {
        case .english: "English"
        case .italian: "Italiano"
        case .german: "Deutsch"
        case .french: "Français"
        case .spanish: "Español"
        }
    }

    /// `?lang=` when given and known, else the first of the browser's languages the site
    /// speaks (by weight), else English.
    static func chosen(query: String?, acceptLanguage: String?) -> SiteLanguage {
        if let query, let language = SiteLanguage(rawValue: query) { return language }
        var best: (language: SiteLanguage, weight: Double)?
        for part in (acceptLanguage ?? "").prefix(512).split(separator: ",") {
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let code = fields.first?.split(separator: "-").first?.lowercased(), let language = SiteLanguage(rawValue: code) else {
                continue
            }
            let weight = fields.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if weight > 0, weight > (best?.weight ?? 0) { best = (language, weight) }
        }
        return best?.language ?? .english
    }
}

/// Every word of the website, in one language. Each text is written once per language,
/// side by side (`pick`), so that none is missing in one of them.
struct SiteWords: Sendable {
    let language: SiteLanguage

    init(_ language: SiteLanguage) {
        self.language = language
    }

    private func pick(_ en: String, _ it: String, _ de: String, _ fr: String, _ es: String) -> String {
        switch language {
        case .english: en
        case .italian: it
        case .german: de
        case .french: fr
        case .spanish: es
        }
    }

    var joinTitle: String { pick("Join the line", "Mettiti in coda", "In die Warteschlange", "Rejoindre la file", "Unirse a la fila") }
    var joinButton: String { pick("Join the line", "Mettiti in coda", "Anstellen", "Prendre une place", "Coger turno") }
    func openUntil(_ hours: String) -> String {
        pick("Open now (\(hours))", "Aperto ora (\(hours))", "Jetzt geöffnet (\(hours))", "Ouvert (\(hours))", "Abierto ahora (\(hours))")
    }
    func closed(_ hours: String) -> String {
        pick("Closed now (open \(hours))", "Chiuso ora (aperto \(hours))", "Jetzt geschlossen (geöffnet \(hours))",
             "Fermé (ouvert \(hours))", "Cerrado ahora (abre \(hours))")
    }
    func inside(_ count: Int, of capacity: Int) -> String {
        pick("\(count) of \(capacity) places taken inside", "\(count) posti su \(capacity) occupati", "\(count) von \(capacity) Plätzen belegt",
             "\(count) places sur \(capacity) occupées", "\(count) de \(capacity) plazas ocupadas")
    }
    func waiting(_ count: Int) -> String {
        pick("\(count) in line", "\(count) in coda", "\(count) warten", "\(count) dans la file", "\(count) en la fila")
    }
    func waitAbout(_ minutes: Int) -> String {
        minutes == 0 ? pick("No wait now", "Nessuna attesa ora", "Zurzeit keine Wartezeit", "Pas d'attente maintenant", "Sin espera ahora")
            : pick("about \(minutes) min wait", "attesa di circa \(minutes) min", "etwa \(minutes) Min. Wartezeit",
             "environ \(minutes) min d'attente", "unos \(minutes) min de espera")
    }
    var yourPlace: String { pick("Your place", "Il tuo posto", "Ihr Platz", "Votre place", "Tu turno") }
    func ahead(_ count: Int) -> String {
        count == 0 ? pick("You are next", "Sei il prossimo", "Sie sind als Nächste dran", "Vous êtes le prochain", "Es su turno enseguida")
            : pick("\(count) before you", "\(count) prima di te", "\(count) vor Ihnen", "\(count) avant vous", "\(count) antes que usted")
    }
    func state(_ state: String, door: String) -> String {
        switch state {
        case "waiting": pick("Waiting: we will call you here.", "In attesa: ti chiameremo qui.", "Sie warten: wir rufen Sie hier auf.",
                             "En attente : nous vous appellerons ici.", "En espera: le avisaremos aquí.")
        case "called": pick("It is your turn: go to the \(door) door now and show this code.",
                            "È il tuo turno: vai ora all'ingresso \(door) e mostra questo codice.",
                            "Sie sind dran: gehen Sie jetzt zum Eingang \(door) und zeigen Sie diesen Code.",
                            "C'est votre tour : allez maintenant à l'entrée \(door) et montrez ce code.",
                            "Es su turno: vaya ahora a la puerta \(door) y muestre este código.")
        case "admitted": pick("Admitted: walk through.", "Ammesso: puoi entrare.", "Zugelassen: bitte eintreten.", "Admis : entrez.", "Admitido: pase.")
        case "entered": pick("You are inside. Welcome!", "Sei dentro. Benvenuto!", "Sie sind drin. Willkommen!", "Vous êtes entré. Bienvenue !",
                             "Ya está dentro. ¡Bienvenido!")
        case "no-show": pick("Your turn passed: this place is over.", "Il tuo turno è passato: il posto è scaduto.",
                             "Ihr Aufruf ist verstrichen: der Platz ist verfallen.", "Votre tour est passé : la place est perdue.",
                             "Su turno pasó: el turno ha caducado.")
        case "left": pick("You left the line.", "Hai lasciato la coda.", "Sie haben die Schlange verlassen.", "Vous avez quitté la file.",
                          "Ha dejado la fila.")
        default: pick("This place was voided.", "Questo posto è stato annullato.", "Dieser Platz wurde storniert.", "Cette place a été annulée.",
                      "Este turno se ha anulado.")
        }
    }
    var code: String { pick("Your code for the door", "Il tuo codice per l'ingresso", "Ihr Code für den Eingang", "Votre code pour l'entrée",
                            "Su código para la puerta") }
    func codeLabel(_ number: String) -> String {
        pick("QR code of place \(number)", "Codice QR del posto \(number)", "QR-Code des Platzes \(number)", "Code QR de la place \(number)",
             "Código QR del turno \(number)")
    }
    var leaveButton: String { pick("Leave the line", "Lascia la coda", "Schlange verlassen", "Quitter la file", "Dejar la fila") }
    var refresh: String { pick("Refresh", "Aggiorna", "Aktualisieren", "Actualiser", "Actualizar") }
    var shorterWaitsNearby: String {
        pick("Shorter waits nearby", "Attese più brevi qui vicino", "Kürzere Wartezeiten in der Nähe", "Attentes plus courtes à proximité",
             "Esperas más cortas cerca")
    }
    /// A distance as the language writes it: "1.1 km", "1,1 km".
    func kilometres(_ distance: Double) -> String {
        distance.formatted(.number.precision(.fractionLength(1)).locale(Locale(identifier: language.rawValue))) + " km"
    }
    var stopUpdating: String { pick("Stop updating", "Non aggiornare più", "Nicht mehr aktualisieren", "Ne plus mettre à jour", "Dejar de actualizar") }
    var still: String {
        pick("This page does not update itself.", "Questa pagina non si aggiorna da sola.", "Diese Seite aktualisiert sich nicht selbst.",
             "Cette page ne se met pas à jour toute seule.", "Esta página no se actualiza sola.")
    }
    var keepUpdating: String {
        pick("Update every 10 seconds", "Aggiorna ogni 10 secondi", "Alle 10 Sekunden aktualisieren", "Mettre à jour toutes les 10 secondes",
             "Actualizar cada 10 segundos")
    }
    var refreshes: String {
        pick("This page updates itself every 10 seconds.", "Questa pagina si aggiorna ogni 10 secondi.",
             "Diese Seite aktualisiert sich alle 10 Sekunden.", "Cette page se met à jour toutes les 10 secondes.",
             "Esta página se actualiza cada 10 segundos.")
    }
    var storeLink: String { pick("The store's page", "La pagina del negozio", "Die Seite des Geschäfts", "La page du magasin", "La página de la tienda") }
    var languages: String { pick("Language", "Lingua", "Sprache", "Langue", "Idioma") }
    var pushOffer: String {
        pick("Tell me on this phone when it is my turn", "Avvisami su questo telefono quando tocca a me", "Auf diesem Telefon benachrichtigen, wenn ich dran bin",
             "Me prévenir sur ce téléphone quand c'est mon tour", "Avisarme en este móvil cuando sea mi turno")
    }
    var pushDone: String {
        pick("We will tell you on this phone, even with this page closed.", "Ti avviseremo su questo telefono, anche a pagina chiusa.",
             "Wir benachrichtigen Sie auf diesem Telefon, auch wenn diese Seite geschlossen ist.",
             "Nous vous préviendrons sur ce téléphone, même page fermée.", "Le avisaremos en este móvil, aunque cierre esta página.")
    }
    var pushRefused: String {
        pick("This browser cannot tell you, or its notifications are off: keep this page open.",
             "Questo browser non può avvisarti, o le notifiche sono spente: tieni aperta questa pagina.",
             "Dieser Browser kann Sie nicht benachrichtigen, oder Benachrichtigungen sind aus: lassen Sie diese Seite offen.",
             "Ce navigateur ne peut pas vous prévenir, ou ses notifications sont coupées : gardez cette page ouverte.",
             "Este navegador no puede avisarle, o sus notificaciones están desactivadas: mantenga esta página abierta.")
    }
    /// A notice by Web Push: its title and its line.
    func push(_ kind: String, number: String) -> (title: String, body: String) {
        switch kind {
        case "called":
            (pick("It is your turn: \(number)", "Tocca a te: \(number)", "Sie sind dran: \(number)", "C'est votre tour : \(number)",
                  "Es su turno: \(number)"),
             pick("Go to the door now and show your code.", "Vai ora all'ingresso e mostra il tuo codice.",
                  "Gehen Sie jetzt zum Eingang und zeigen Sie Ihren Code.", "Allez maintenant à l'entrée et montrez votre code.",
                  "Vaya ahora a la puerta y muestre su código."))
        case "delayed":
            (pick("The store is full: \(number) waits longer", "Il negozio è pieno: \(number) attende di più",
                  "Das Geschäft ist voll: \(number) wartet länger", "Le magasin est plein : \(number) attend plus longtemps",
                  "La tienda está llena: \(number) espera más"),
             pick("Your place is kept; the wait is longer than it said.", "Il tuo posto resta; l'attesa è più lunga del previsto.",
                  "Ihr Platz bleibt; die Wartezeit ist länger als angezeigt.", "Votre place est gardée ; l'attente est plus longue que prévu.",
                  "Su turno se mantiene; la espera es más larga de lo indicado."))
        default:
            (pick("Your place \(number) was cancelled", "Il tuo posto \(number) è stato annullato", "Ihr Platz \(number) wurde storniert",
                  "Votre place \(number) a été annulée", "Su turno \(number) se ha anulado"),
             pick("The store's staff cancelled it. You may join the line again.", "Il personale del negozio l'ha annullato. Puoi rimetterti in coda.",
                  "Das Personal des Geschäfts hat ihn storniert. Sie können sich erneut anstellen.",
                  "Le personnel du magasin l'a annulée. Vous pouvez reprendre une place.",
                  "El personal de la tienda lo ha anulado. Puede volver a la fila."))
        }
    }
    var crossSite: String {
        pick("This form was sent from another site, not from this site's page: nothing was done. Open the store's page here and try again.",
             "Questo modulo è stato inviato da un altro sito, non da una pagina di questo sito: non è stato fatto nulla. Apri qui la pagina del negozio e riprova.",
             "Dieses Formular kam von einer anderen Website, nicht von einer Seite dieser Website: es wurde nichts getan. Öffnen Sie hier die Seite des Geschäfts und versuchen Sie es erneut.",
             "Ce formulaire a été envoyé depuis un autre site, pas depuis une page de ce site : rien n'a été fait. Ouvrez ici la page du magasin et réessayez.",
             "Este formulario se envió desde otro sitio, no desde una página de este sitio: no se ha hecho nada. Abra aquí la página de la tienda e inténtelo de nuevo.")
    }
    var sorry: String { pick("Sorry", "Spiacenti", "Leider nicht möglich", "Désolé", "Lo sentimos") }

    /// What a refusal of the hub means for the person, in their language; the hub's own
    /// message (English) for anything else.
    func refusal(_ error: HubError) -> String {
        switch ErrorCode(rawValue: error.coded.code) {
        case .doorNotHeard?:
            pick("The store's door cannot take places from phones right now. Book a time instead, or try again in a few minutes.",
                 "L'ingresso del negozio non accetta posti dal telefono in questo momento. Prenota un orario o riprova tra qualche minuto.",
                 "Der Eingang nimmt gerade keine Plätze vom Telefon an. Buchen Sie eine Uhrzeit oder versuchen Sie es gleich noch einmal.",
                 "L'entrée du magasin ne prend pas de places depuis un téléphone pour l'instant. Réservez un horaire ou réessayez dans quelques minutes.",
                 "La puerta de la tienda no acepta turnos desde el móvil ahora. Reserve una hora o inténtelo de nuevo en unos minutos.")
        case .alreadyInLine?:
            pick("You have a place in this line already.", "Hai già un posto in questa coda.", "Sie haben schon einen Platz in dieser Schlange.",
                 "Vous avez déjà une place dans cette file.", "Ya tiene un turno en esta fila.")
        case .joinLimit?:
            pick("The line takes no more places from phones now. Book a time instead, or try again later.",
                 "La coda non accetta altri posti dal telefono ora. Prenota un orario o riprova più tardi.",
                 "Die Schlange nimmt jetzt keine weiteren Plätze vom Telefon an. Buchen Sie eine Uhrzeit oder versuchen Sie es später.",
                 "La file ne prend plus de places depuis un téléphone. Réservez un horaire ou réessayez plus tard.",
                 "La fila no acepta más turnos desde el móvil ahora. Reserve una hora o inténtelo más tarde.")
        case .storeClosed?:
            pick("The store is closed now.", "Il negozio ora è chiuso.", "Das Geschäft ist jetzt geschlossen.", "Le magasin est fermé.",
                 "La tienda está cerrada ahora.")
        case .unknownPlace?:
            pick("This place is not yours, or does not exist.", "Questo posto non è tuo, o non esiste.", "Dieser Platz gehört Ihnen nicht oder existiert nicht.",
                 "Cette place n'est pas la vôtre, ou n'existe pas.", "Este turno no es suyo, o no existe.")
        case .placeOver?:
            pick("This place is over: there is nothing to leave.", "Questo posto è concluso: non c'è nulla da lasciare.",
                 "Dieser Platz ist vorbei: es gibt nichts zu verlassen.", "Cette place est terminée : rien à quitter.",
                 "Este turno ha terminado: no hay nada que dejar.")
        case .unknownStore?:
            pick("There is no such store.", "Questo negozio non esiste.", "Dieses Geschäft gibt es nicht.", "Ce magasin n'existe pas.",
                 "Esa tienda no existe.")
        default:
            error.coded.message
        }
    }
}
