import CLupCore
import Foundation

/// The words of the list of stores, of a store's page and of its settings form.
extension PanelWords {
    // MARK: The list of stores

    func storeLine(_ store: String, _ name: String) -> String {
        pick("Store \(store) — \(name)", "Negozio \(store) — \(name)", "Filiale \(store) — \(name)", "Magasin \(store) — \(name)",
             "Tienda \(store) — \(name)")
    }
    func inside(_ inside: Int, of capacity: Int) -> String {
        let (inside, capacity) = (number(inside), number(capacity))
        return pick("\(inside) inside of \(capacity)", "\(inside) dentro su \(capacity)", "\(inside) von \(capacity) im Geschäft",
                    "\(inside) présents sur \(capacity)", "\(inside) dentro (aforo: \(capacity))")
    }

    // MARK: A store's page

    func storeTitle(_ store: String) -> String {
        pick("Store \(store)", "Negozio \(store)", "Filiale \(store)", "Magasin \(store)", "Tienda \(store)")
    }
    var saved: String { pick("Saved.", "Salvato.", "Gespeichert.", "Enregistré.", "Guardado.") }
    func settingsVersion(_ version: Int64) -> String {
        pick("Settings (version \(version))", "Impostazioni (versione \(version))", "Einstellungen (Version \(version))",
             "Réglages (version \(version))", "Configuración (versión \(version))")
    }
    var statistics: String { pick("Statistics", "Statistiche", "Statistik", "Statistiques", "Estadísticas") }
    func statisticsOf(_ day: String) -> String {
        pick("Statistics of \(day)", "Statistiche del \(day)", "Statistik vom \(day)", "Statistiques du \(day)", "Estadísticas del \(day)")
    }
    var backToToday: String {
        pick("back to the day under way", "torna alla giornata in corso", "zurück zum laufenden Tag", "retour à la journée en cours",
             "volver a la jornada en curso")
    }
    func notADay(_ typed: String) -> String {
        pick("\"\(typed)\" is not a day (YYYY-MM-DD)", "\"\(typed)\" non è un giorno (AAAA-MM-GG)", "\"\(typed)\" ist kein Tag (JJJJ-MM-TT)",
             "\"\(typed)\" n'est pas une date (AAAA-MM-JJ)", "\"\(typed)\" no es una fecha (AAAA-MM-DD)")
    }
    func storeClock(_ zone: String) -> String {
        pick("Hours and times on the store's clock (\(zone)).", "Ore e orari secondo l'orologio del negozio (\(zone)).",
             "Stunden und Uhrzeiten nach der Uhr der Filiale (\(zone)).", "Heures et horaires selon l'horloge du magasin (\(zone)).",
             "Horas y horarios según el reloj de la tienda (\(zone)).")
    }
    var insideByHour: String {
        pick("People inside at the end of each hour of the store's day", "Persone dentro alla fine di ogni ora della giornata del negozio",
             "Personen im Geschäft am Ende jeder Stunde des Geschäftstags",
             "Personnes présentes à la fin de chaque heure de la journée du magasin",
             "Personas dentro al final de cada hora de la jornada de la tienda")
    }
    var entriesPerDay: String {
        pick("Entries per day, the last 14 days", "Ingressi al giorno, ultimi 14 giorni", "Eintritte pro Tag, die letzten 14 Tage",
             "Entrées par jour, les 14 derniers jours", "Entradas por día, últimos 14 días")
    }
    var ticketsByLane: String {
        pick("Tickets of the store's day by lane", "Biglietti della giornata del negozio per corsia",
             "Tickets des Geschäftstags nach Warteschlange", "Tickets de la journée du magasin par file",
             "Turnos de la jornada de la tienda por fila")
    }
    func slotsNowAndNext(_ places: Int) -> String {
        let places = number(places)
        return pick("Booking slots now and next (\(places) places each)",
                    "Fasce di prenotazione, quella in corso e le successive (\(places) posti ciascuna)",
                    "Buchungszeitfenster, das laufende und die nächsten (je \(places) Plätze)",
                    "Créneaux de réservation, celui en cours et les suivants (\(places) places chacun)",
                    "Franjas de reserva, la actual y las siguientes (\(places) plazas cada una)")
    }
    var days: String { pick("Days", "Giorni", "Tage", "Jours", "Días") }
    var noTimeInStore: String {
        pick("Time in store: no ticket was scanned on the way out on this day.",
             "Tempo nel negozio: in questa giornata nessun biglietto è stato letto all'uscita.",
             "Verweildauer: an diesem Tag wurde kein Ticket beim Hinausgehen gescannt.",
             "Temps passé en magasin : aucun ticket n'a été scanné à la sortie ce jour-là.",
             "Tiempo en la tienda: este día no se escaneó ningún turno a la salida.")
    }
    func timeInStore(minutes: Double, tickets: Int) -> String {
        let (average, count) = (decimal(minutes, digits: 1), number(tickets))
        return pick("Average time in store on this day: \(average) min, from \(count) \(plural(tickets, "ticket", "tickets")) "
                        + "scanned on the way in and again on the way out.",
                    "Tempo medio nel negozio in questa giornata: \(average) min, da \(count) "
                        + "\(plural(tickets, "biglietto letto", "biglietti letti")) all'ingresso e di nuovo all'uscita.",
                    "Durchschnittliche Verweildauer an diesem Tag: \(average) Min., aus \(count) \(plural(tickets, "Ticket", "Tickets")), "
                        + "beim Hineingehen und wieder beim Hinausgehen gescannt.",
                    "Temps moyen passé en magasin ce jour-là : \(average) min, d'après \(count) "
                        + "\(plural(tickets, "ticket scanné", "tickets scannés")) à l'entrée puis à la sortie.",
                    "Tiempo medio en la tienda este día: \(average) min, a partir de \(count) "
                        + "\(plural(tickets, "turno escaneado", "turnos escaneados")) a la entrada y de nuevo a la salida.")
    }

    func lane(_ name: String) -> String {
        switch Lane(rawValue: name) {
        case .regular: pick("regular", "normale", "normal", "normale", "normal")
        case .priority: pick("priority", "prioritaria", "Vorrang", "prioritaire", "prioritaria")
        case .booking: pick("booking", "prenotazione", "Buchung", "réservation", "reserva")
        case .remote: pick("from a phone", "dal telefono", "vom Telefon", "depuis un téléphone", "desde el móvil")
        case nil: name
        }
    }

    var slotHeader: [String] {
        [pick("slot", "fascia", "Zeitfenster", "créneau", "franja"), pick("booked", "prenotati", "gebucht", "réservées", "reservadas"),
         pick("free", "liberi", "frei", "libres", "libres")]
    }
    var dayHeader: [String] {
        [pick("day", "giorno", "Tag", "jour", "día"), pick("entries", "ingressi", "Eintritte", "entrées", "entradas"),
         pick("exits", "uscite", "Austritte", "sorties", "salidas"),
         pick("corrections", "correzioni", "Korrekturen", "corrections", "correcciones"),
         pick("inside at the end", "dentro alla fine", "am Ende im Geschäft", "présents à la fin", "dentro al final"),
         pick("entries without release", "ingressi senza sblocco", "Eintritte ohne Freigabe", "entrées sans déblocage", "entradas sin desbloqueo"),
         pick("releases unused", "sblocchi non usati", "ungenutzte Freigaben", "déblocages inutilisés", "desbloqueos sin usar"),
         pick("exits while released", "uscite a tornello sbloccato", "Austritte bei Freigabe", "sorties pendant un déblocage",
              "salidas con el torniquete desbloqueado")]
    }
    /// Under the days' table: what a flagged day means.
    func countingTolerance(_ people: Int) -> String {
        pick("A closed day is flagged when more than \(people) people, either way, were left inside at its end as counted "
                + "(in − out ± corrections): the count was off by that much.",
             "Un giorno chiuso è segnalato quando alla fine risultano dentro più di \(people) persone, in più o in meno "
                + "(ingressi − uscite ± correzioni): il conteggio era sbagliato di tanto.",
             "Ein abgeschlossener Tag wird markiert, wenn an seinem Ende mehr als \(people) Personen, in die eine oder andere "
                + "Richtung, als im Geschäft gezählt waren (Eintritte − Austritte ± Korrekturen): so weit lag die Zählung daneben.",
             "Un jour clos est signalé quand plus de \(people) personnes, dans un sens ou dans l'autre, restaient comptées "
                + "présentes à la fin (entrées − sorties ± corrections) : le comptage était faux d'autant.",
             "Un día cerrado se marca cuando al final quedaban contadas dentro más de \(people) personas, de más o de menos "
                + "(entradas − salidas ± correcciones): el conteo se equivocó en tanto.")
    }
    var laneHeader: [String] {
        [pick("lane", "corsia", "Warteschlange", "file", "fila"), pick("issued", "emessi", "ausgegeben", "émis", "emitidos"),
         pick("called", "chiamati", "aufgerufen", "appelés", "llamados"), pick("admitted", "ammessi", "eingelassen", "admis", "admitidos"),
         pick("no-shows", "non presentati", "nicht erschienen", "absents", "no presentados"),
         pick("waiting now", "in attesa ora", "warten jetzt", "en attente", "esperando ahora"),
         pick("average wait to the call (min)", "attesa media fino alla chiamata (min)", "mittlere Wartezeit bis zum Aufruf (Min.)",
              "attente moyenne jusqu'à l'appel (min)", "espera media hasta la llamada (min)"),
         pick("average wait predicted at issue, of those called (min)", "attesa media prevista all'emissione, dei chiamati (min)",
              "bei Ausgabe vorhergesagte mittlere Wartezeit der Aufgerufenen (Min.)",
              "attente moyenne prévue à l'émission, des appelés (min)", "espera media prevista al emitirse, de los llamados (min)")]
    }

    // MARK: A store's settings

    var capacityLabel: String {
        pick("Capacity (people inside at once)", "Capienza (persone dentro allo stesso tempo)", "Kapazität (Personen gleichzeitig im Geschäft)",
             "Capacité (personnes présentes en même temps)", "Aforo (personas dentro a la vez)")
    }
    var walkInLabel: String {
        pick("Places for walk-in customers", "Posti per i clienti senza prenotazione", "Plätze für Kunden ohne Buchung",
             "Places pour les clients sans réservation", "Plazas para clientes sin reserva")
    }
    func bookingPlaces(_ places: String) -> String {
        pick("Places for bookings, per slot: \(places) (the capacity less the walk-in places: raising one lowers the other)",
             "Posti per le prenotazioni, per fascia: \(places) (la capienza meno i posti senza prenotazione: alzarne uno abbassa l'altro)",
             "Plätze für Buchungen, je Zeitfenster: \(places) (die Kapazität abzüglich der Plätze ohne Buchung: steigt das eine, sinkt das andere)",
             "Places pour les réservations, par créneau : \(places) (la capacité moins les places sans réservation : augmenter l'une diminue l'autre)",
             "Plazas para reservas, por franja: \(places) (el aforo menos las plazas sin reserva: subir unas baja las otras)")
    }
    var priorityLabel: String {
        pick("Priority share of the capacity (places kept for priority tickets), %",
             "Quota prioritaria della capienza (posti tenuti per i biglietti prioritari), %",
             "Vorranganteil der Kapazität (Plätze, die für Vorrang-Tickets frei bleiben), %",
             "Part prioritaire de la capacité (places gardées pour les tickets prioritaires), %",
             "Cuota prioritaria del aforo (plazas guardadas para los turnos prioritarios), %")
    }
    var slotLabel: String {
        pick("Slot length, minutes", "Durata di una fascia, minuti", "Länge eines Zeitfensters, Minuten", "Durée d'un créneau, minutes",
             "Duración de una franja, minutos")
    }
    var presentationLabel: String {
        pick("Minutes a called ticket has to reach the door", "Minuti che un biglietto chiamato ha per arrivare alla porta",
             "Minuten, die ein aufgerufenes Ticket hat, um zum Eingang zu kommen",
             "Minutes dont dispose un ticket appelé pour arriver à l'entrée", "Minutos que tiene un turno llamado para llegar a la puerta")
    }
    var earlyLabel: String {
        pick("A booking is admitted from minutes before its slot", "Una prenotazione è ammessa da minuti prima della sua fascia",
             "Eine Buchung wird eingelassen ab Minuten vor ihrem Zeitfenster",
             "Une réservation est admise à partir de minutes avant son créneau", "Una reserva se admite desde minutos antes de su franja")
    }
    var lateLabel: String {
        pick("… to minutes after its start (then it is a no-show)", "… a minuti dopo il suo inizio (poi non si è presentata)",
             "… bis Minuten nach seinem Beginn (danach gilt sie als nicht erschienen)",
             "… jusqu'à minutes après son début (ensuite elle est considérée comme absente)",
             "… hasta minutos después de su inicio (luego se considera no presentada)")
    }
    var delayNoticeLabel: String {
        pick("While the store is full, bookings whose slot starts within minutes hear they may wait",
             "A negozio pieno, le prenotazioni la cui fascia inizia entro minuti sono avvisate che potrebbero attendere",
             "Solange das Geschäft voll ist, erfahren Buchungen, deren Zeitfenster in Minuten beginnt, dass sie warten könnten",
             "Tant que le magasin est plein, les réservations dont le créneau commence d'ici minutes sont prévenues qu'elles pourraient attendre",
             "Mientras la tienda está llena, las reservas cuya franja empieza dentro de minutos reciben aviso de que quizá esperen")
    }
    var majorDelayLabel: String {
        pick("Full for minutes: those bookings are cancelled and told so (0: never)",
             "Pieno da minuti: quelle prenotazioni sono annullate e avvisate (0: mai)",
             "Seit Minuten voll: diese Buchungen werden storniert und benachrichtigt (0: nie)",
             "Plein depuis minutes : ces réservations sont annulées et prévenues (0 : jamais)",
             "Llena desde hace minutos: esas reservas se cancelan y se avisa (0: nunca)")
    }
    var reminderLabel: String {
        pick("Bookings made in the app are reminded minutes before their slot (0: no reminder)",
             "Le prenotazioni fatte nell'app ricevono un promemoria minuti prima della fascia (0: nessuno)",
             "In der App gemachte Buchungen werden Minuten vor ihrem Zeitfenster erinnert (0: keine Erinnerung)",
             "Les réservations faites dans l'appli reçoivent un rappel minutes avant leur créneau (0 : aucun rappel)",
             "Las reservas hechas en la app reciben un recordatorio minutos antes de su franja (0: ninguno)")
    }
    var alertWaitLabel: String {
        pick("Alert the store's staff when the estimated wait passes minutes (0: never)",
             "Avvisa il personale del negozio quando l'attesa stimata supera minuti (0: mai)",
             "Das Personal des Geschäfts benachrichtigen, wenn die geschätzte Wartezeit Minuten übersteigt (0: nie)",
             "Alerter le personnel du magasin quand l'attente estimée dépasse minutes (0 : jamais)",
             "Avisar al personal de la tienda cuando la espera estimada supere minutos (0: nunca)")
    }
    var alertWaitingLabel: String {
        pick("Alert the store's staff when more are waiting than (0: never)",
             "Avvisa il personale del negozio quando in attesa ci sono più di (0: mai)",
             "Das Personal des Geschäfts benachrichtigen, wenn mehr warten als (0: nie)",
             "Alerter le personnel du magasin quand plus de personnes attendent que (0 : jamais)",
             "Avisar al personal de la tienda cuando esperan más de (0: nunca)")
    }
    var totemPlacesLabel: String {
        pick("Of each slot's booking places, kept for each totem's own bookings (offline too)",
             "Dei posti prenotabili di ogni fascia, tenuti per le prenotazioni fatte a ciascun totem (anche offline)",
             "Von den buchbaren Plätzen jedes Zeitfensters, für die eigenen Buchungen jedes Totems freigehalten (auch offline)",
             "Des places réservables de chaque créneau, gardées pour les réservations faites à chaque totem (hors ligne aussi)",
             "De las plazas reservables de cada franja, guardadas para las reservas hechas en cada tótem (también sin conexión)")
    }
    func openingHours(_ hours: String) -> String {
        pick("Opening hours (<code>clup-hub store hours</code>): \(hours)", "Orario di apertura (<code>clup-hub store hours</code>): \(hours)",
             "Öffnungszeiten (<code>clup-hub store hours</code>): \(hours)", "Horaires d'ouverture (<code>clup-hub store hours</code>) : \(hours)",
             "Horario de apertura (<code>clup-hub store hours</code>): \(hours)")
    }
    var notSet: String { pick("not set", "non impostato", "nicht festgelegt", "non défini", "sin definir") }
    var save: String { pick("Save", "Salva", "Speichern", "Enregistrer", "Guardar") }

    // What a form's value may not be.
    func wholeNumber(_ field: String, typed: String) -> String {
        let (lowest, highest) = (number(0), number(100_000))
        return pick("\(field) is a whole number from \(lowest) to \(highest): not \"\(typed)\"",
                    "\(field): un numero intero da \(lowest) a \(highest), non \"\(typed)\"",
                    "\(field): eine ganze Zahl von \(lowest) bis \(highest), nicht \"\(typed)\"",
                    "\(field) : un nombre entier de \(lowest) à \(highest), pas \"\(typed)\"",
                    "\(field): un número entero de \(lowest) a \(highest), no \"\(typed)\"")
    }
    func outOfRange(_ field: String, _ value: Int, _ range: ClosedRange<Int>) -> String {
        let (value, lowest, highest) = (number(value), number(range.lowerBound), number(range.upperBound))
        return pick("\(field): \(value) is outside \(lowest) to \(highest)",
                    "\(field): \(value) è fuori dall'intervallo da \(lowest) a \(highest)",
                    "\(field): \(value) liegt außerhalb von \(lowest) bis \(highest)",
                    "\(field) : \(value) est en dehors de \(lowest) à \(highest)",
                    "\(field): \(value) está fuera del intervalo de \(lowest) a \(highest)")
    }
    func walkInOverCapacity(_ walkIn: Int, _ capacity: Int) -> String {
        let (walkIn, capacity) = (number(walkIn), number(capacity))
        return pick("\(walkIn) walk-in places are more than the capacity, \(capacity)",
                    "\(walkIn) posti senza prenotazione sono più della capienza, \(capacity)",
                    "\(walkIn) Plätze ohne Buchung sind mehr als die Kapazität, \(capacity)",
                    "\(walkIn) places sans réservation dépassent la capacité, \(capacity)",
                    "\(walkIn) plazas sin reserva superan el aforo, \(capacity)")
    }
    func sharesOverCapacity(priority: Int, bookings: Int, capacity: Int) -> String {
        let (bookings, capacity) = (number(bookings), number(capacity))
        return pick("\(priority) % for priority and \(bookings) booking places are more than the capacity, \(capacity)",
                    "\(priority) % per la priorità e \(bookings) posti prenotabili sono più della capienza, \(capacity)",
                    "\(priority) % für Vorrang und \(bookings) buchbare Plätze sind mehr als die Kapazität, \(capacity)",
                    "\(priority) % pour la priorité et \(bookings) places réservables dépassent la capacité, \(capacity)",
                    "\(priority) % para prioridad y \(bookings) plazas reservables superan el aforo, \(capacity)")
    }
    func totemPlacesOverSlot(_ places: Int, _ bookings: Int) -> String {
        let (places, bookings) = (number(places), number(bookings))
        return pick("\(places) places per slot for each totem's own bookings, but a slot has \(bookings)",
                    "\(places) posti per fascia per le prenotazioni di ciascun totem, ma una fascia ne ha \(bookings)",
                    "\(places) Plätze je Zeitfenster für die eigenen Buchungen jedes Totems, aber ein Zeitfenster hat \(bookings)",
                    "\(places) places par créneau pour les réservations de chaque totem, mais un créneau en a \(bookings)",
                    "\(places) plazas por franja para las reservas de cada tótem, pero una franja tiene \(bookings)")
    }
}
