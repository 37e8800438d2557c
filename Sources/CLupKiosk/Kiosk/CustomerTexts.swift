import CLupCore

/// What the ticket says to the customer, in the languages a store configures.
struct CustomerTexts {
    /// Languages with texts, by ISO 639-1 code.
    static let supported = ["en", "it", "de", "fr", "es"]

    let language: String

    func laneLabel(_ lane: Lane) -> String {
        switch (language, lane) {
        case ("it", .regular): "Biglietto di coda"
        case ("it", .priority): "Biglietto prioritario"
        case ("it", .booking): "Visita prenotata"
        case ("de", .regular): "Warteschlangen-Ticket"
        case ("de", .priority): "Vorrang-Ticket"
        case ("de", .booking): "Gebuchter Besuch"
        case ("fr", .regular): "Ticket de file"
        case ("fr", .priority): "Ticket prioritaire"
        case ("fr", .booking): "Visite réservée"
        case ("es", .regular): "Turno de cola"
        case ("es", .priority): "Turno prioritario"
        case ("es", .booking): "Visita reservada"
        case (_, .regular): "Queue ticket"
        case (_, .priority): "Priority ticket"
        case (_, .booking): "Booked visit"
        }
    }

    func estimatedWait(_ wait: WaitEstimate) -> String {
        switch language {
        case "it": "Attesa stimata: \(wait.description.replacingOccurrences(of: "about", with: "circa").replacingOccurrences(of: "now", with: "nessuna"))"
        case "de": "Geschätzte Wartezeit: \(wait.description.replacingOccurrences(of: "about", with: "etwa").replacingOccurrences(of: "now", with: "keine"))"
        case "fr": "Attente estimée : \(wait.description.replacingOccurrences(of: "about", with: "environ").replacingOccurrences(of: "now", with: "aucune"))"
        case "es": "Espera estimada: \(wait.description.replacingOccurrences(of: "about", with: "unos").replacingOccurrences(of: "now", with: "ninguna"))"
        default: "Estimated wait: \(wait)"
        }
    }

    var scanInstruction: String {
        switch language {
        case "it": "Scansiona il codice all'ingresso quando chiamano il tuo numero"
        case "de": "Code am Eingang scannen, wenn Ihre Nummer aufgerufen wird"
        case "fr": "Scannez ce code à l'entrée quand votre numéro est appelé"
        case "es": "Escanee este código en la entrada cuando llamen su número"
        default: "Scan this code at the door when your number is called"
        }
    }

    // MARK: Spoken

    /// What the voice says as `screen` replaces `previous`, or nil to stay quiet. The
    /// greeting is for someone who just woke the totem, not for the return to the welcome
    /// screen after a ticket (which would talk over "take your ticket").
    func spoken(_ screen: Screen, after previous: Screen) -> String? {
        switch screen {
        case .welcome: previous == .asleep ? welcomeSpoken : nil
        case let .ticketReady(number, _) where TicketNumber(number)?.lane == .booking: bookingReadySpoken(Self.spokenNumber(number))
        case let .ticketReady(number, _): ticketReadySpoken(Self.spokenNumber(number))
        case .printFailed: printFailedSpoken
        case .noFreeSlots: noFreeSlotsSpoken
        case .choosingSlot: chooseSlotSpoken
        case .asleep, .printing, .outOfOrder, .findingSlots, .bookingSlot: nil
        }
    }

    private var chooseSlotSpoken: String {
        switch language {
        case "it": "Scegliete un orario di oggi."
        case "de": "Wählen Sie eine Uhrzeit für heute."
        case "fr": "Choisissez une heure aujourd'hui."
        case "es": "Elija una hora para hoy."
        default: "Choose a time today."
        }
    }

    private var noFreeSlotsSpoken: String {
        switch language {
        case "it": "Oggi non ci sono più orari liberi. Potete prendere un biglietto per adesso."
        case "de": "Heute sind keine Uhrzeiten mehr frei. Sie können ein Ticket für jetzt ziehen."
        case "fr": "Il n'y a plus d'heure libre aujourd'hui. Vous pouvez prendre un ticket pour maintenant."
        case "es": "Hoy no quedan horas libres. Puede sacar un turno para ahora."
        default: "There are no free times left today. You can take a ticket for now instead."
        }
    }

    /// A booking's time on its ticket: "Your time: 14:30 (come 14:20 to 14:45)".
    func bookedTime(_ time: String, from: String, to: String) -> String {
        switch language {
        case "it": "Il vostro orario: \(time) (dalle \(from) alle \(to))"
        case "de": "Ihre Uhrzeit: \(time) (von \(from) bis \(to))"
        case "fr": "Votre heure : \(time) (de \(from) à \(to))"
        case "es": "Su hora: \(time) (de \(from) a \(to))"
        default: "Your time: \(time) (come \(from) to \(to))"
        }
    }

    var bookingScanInstruction: String {
        switch language {
        case "it": "Scansiona il codice all'ingresso al tuo orario"
        case "de": "Code zu Ihrer Uhrzeit am Eingang scannen"
        case "fr": "Scannez ce code à l'entrée à votre heure"
        case "es": "Escanee este código en la entrada a su hora"
        default: "Scan this code at the door at your time"
        }
    }

    /// "AP-004" as a voice reads it best: "A P 4".
    static func spokenNumber(_ number: String) -> String {
        let parts = number.split(separator: "-")
        guard parts.count == 2, let sequence = Int(parts[1]) else { return number }
        return parts[0].map(String.init).joined(separator: " ") + " \(sequence)"
    }

    private var welcomeSpoken: String {
        switch language {
        case "it": "Benvenuti. Toccate il pulsante sullo schermo per prendere un biglietto."
        case "de": "Willkommen. Berühren Sie die Taste auf dem Bildschirm, um ein Ticket zu ziehen."
        case "fr": "Bienvenue. Touchez le bouton sur l'écran pour prendre un ticket."
        case "es": "Bienvenido. Toque el botón de la pantalla para sacar un turno."
        default: "Welcome. Touch the button on the screen to take a ticket."
        }
    }

    private func ticketReadySpoken(_ number: String) -> String {
        switch language {
        case "it": "Il vostro numero è \(number). Prendete il biglietto e scansionatelo all'ingresso quando viene chiamato."
        case "de": "Ihre Nummer ist \(number). Bitte nehmen Sie Ihr Ticket und scannen Sie es am Eingang, wenn Ihre Nummer aufgerufen wird."
        case "fr": "Votre numéro est \(number). Prenez votre ticket et scannez-le à l'entrée quand votre numéro est appelé."
        case "es": "Su número es \(number). Tome su turno y escanéelo en la entrada cuando llamen su número."
        default: "Your number is \(number). Please take your ticket, and scan it at the door when your number is called."
        }
    }

    private func bookingReadySpoken(_ number: String) -> String {
        switch language {
        case "it": "La vostra prenotazione è la \(number). Prendete il biglietto: l'orario è stampato sopra. Scansionatelo all'ingresso a quell'ora."
        case "de": "Ihre Buchung ist \(number). Bitte nehmen Sie Ihr Ticket, die Uhrzeit steht darauf. Scannen Sie es zu dieser Zeit am Eingang."
        case "fr": "Votre réservation est la \(number). Prenez votre ticket, l'heure y est imprimée. Scannez-le à l'entrée à cette heure."
        case "es": "Su reserva es la \(number). Tome su turno, la hora está impresa. Escanéelo en la entrada a esa hora."
        default: "Your booking is \(number). Please take your ticket; your time is printed on it. Scan it at the door at that time."
        }
    }

    private var printFailedSpoken: String {
        switch language {
        case "it": "Spiacenti, non è stato possibile stampare il biglietto. Rivolgetevi al personale."
        case "de": "Entschuldigung, das Ticket konnte nicht gedruckt werden. Bitte wenden Sie sich an das Personal."
        case "fr": "Désolé, le ticket n'a pas pu être imprimé. Veuillez vous adresser au personnel."
        case "es": "Lo sentimos, no se pudo imprimir el turno. Por favor, pregunte al personal."
        default: "Sorry, the ticket could not be printed. Please ask a member of staff."
        }
    }
}
