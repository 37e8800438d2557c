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
}
