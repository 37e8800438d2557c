import HTTPTypes
import CLupCore
import Foundation

/// The words of the fleet page: the totems, the notices not delivered, the rollouts.
extension PanelWords {
    // MARK: Notices

    var undeliveredNotices: String {
        pick("Notices not delivered", "Avvisi non consegnati", "Nicht zugestellte Benachrichtigungen", "Avis non remis", "Avisos no entregados")
    }
    var everyNoticeDelivered: String {
        pick("Every notice to a customer was delivered, or is still being sent.",
             "Ogni avviso a un cliente è stato consegnato o è ancora in invio.",
             "Jede Benachrichtigung an einen Kunden wurde zugestellt oder wird noch gesendet.",
             "Chaque avis à un client a été remis ou est encore en cours d'envoi.",
             "Todos los avisos a clientes se han entregado o se siguen enviando.")
    }
    var deadNoticeHeader: [String] {
        [pick("notice", "avviso", "Benachrichtigung", "avis", "aviso"), pick("store", "negozio", "Filiale", "magasin", "tienda"),
         pick("about", "riguardo", "Inhalt", "objet", "asunto"),
         pick("booking or place", "prenotazione o posto", "Buchung oder Platz", "réservation ou place", "reserva o turno"),
         pick("attempts", "tentativi", "Versuche", "tentatives", "intentos"),
         pick("given up (UTC)", "abbandonato (UTC)", "aufgegeben (UTC)", "abandonné (UTC)", "abandonado (UTC)"),
         pick("why", "motivo", "Grund", "motif", "motivo")]
    }

    /// What a notice told the customer.
    func noticeKind(_ kind: String) -> String {
        switch kind {
        case "cancelled": pick("booking cancelled", "prenotazione annullata", "Buchung storniert", "réservation annulée", "reserva cancelada")
        case "delayed": pick("store running late", "negozio in ritardo", "Verspätung im Geschäft", "magasin en retard", "tienda con retraso")
        case "called":
            pick("place called: come to the door", "posto chiamato: venga alla porta", "Platz aufgerufen: bitte zum Eingang kommen",
                 "place appelée : venez à l'entrée", "turno llamado: venga a la puerta")
        case "reminder":
            pick("booking reminder", "promemoria della prenotazione", "Erinnerung an die Buchung", "rappel de réservation",
                 "recordatorio de la reserva")
        default: kind
        }
    }

    // MARK: The totems

    var fleetHeader: [String] {
        [pick("totem", "totem", "Totem", "totem", "tótem"), pick("store", "negozio", "Filiale", "magasin", "tienda"),
         pick("door", "porta", "Eingang", "entrée", "puerta"),
         pick("last contact (UTC)", "ultimo contatto (UTC)", "letzter Kontakt (UTC)", "dernier contact (UTC)", "último contacto (UTC)"),
         pick("software", "software", "Software", "logiciel", "software"),
         pick("last update", "ultimo aggiornamento", "letzte Aktualisierung", "dernière mise à jour", "última actualización"),
         pick("settings version", "versione delle impostazioni", "Version der Einstellungen", "version des réglages",
              "versión de la configuración"),
         pick("outbox", "in uscita", "Postausgang", "en attente d'envoi", "pendientes de envío"),
         pick("clock skew (s)", "scarto dell'orologio (s)", "Uhrabweichung (s)", "décalage d'horloge (s)", "desfase del reloj (s)"),
         pick("devices", "dispositivi", "Geräte", "appareils", "dispositivos"), pick("printer", "stampante", "Drucker", "imprimante", "impresora"),
         pick("alerts", "avvisi", "Warnungen", "alertes", "alertas"),
         pick("state", "stato", "Zustand", "état", "estado")]
    }
    /// The daily integrity check found files of the package changed (`files`: the first of them).
    func filesChanged(_ count: Int, _ files: String) -> String {
        pick("\(count) file(s) changed outside an update: \(files)", "\(count) file modificati fuori da un aggiornamento: \(files)",
             "\(count) Datei(en) außerhalb eines Updates geändert: \(files)", "\(count) fichier(s) modifié(s) hors mise à jour : \(files)",
             "\(count) archivo(s) modificado(s) fuera de una actualización: \(files)")
    }
    func integrityNotRun(_ why: String) -> String {
        pick("integrity check not run: \(why)", "controllo di integrità non eseguito: \(why)", "Integritätsprüfung nicht gelaufen: \(why)",
             "contrôle d'intégrité non effectué : \(why)", "comprobación de integridad no realizada: \(why)")
    }
    func auditTrailFull(_ percent: Int) -> String {
        pick("audit trail \(percent) % full", "registro di audit pieno al \(percent) %", "Audit-Protokoll zu \(percent) % voll",
             "journal d'audit plein à \(percent) %", "registro de auditoría lleno al \(percent) %")
    }
    /// On the row of a silent totem holding places at a door another totem serves now.
    func holdsTheDoor(_ places: Int, silence: String, serving: String, door: String) -> String {
        pick("holds \(places) places of door \(door), \(silence), while \(serving) serves it: revoke it? (clup-hub totem replace)",
             "tiene \(places) posti della porta \(door), \(silence), mentre la serve \(serving): revocarlo? (clup-hub totem replace)",
             "hält \(places) Plätze der Tür \(door), \(silence), während \(serving) sie bedient: widerrufen? (clup-hub totem replace)",
             "garde \(places) places de la porte \(door), \(silence), alors que \(serving) la sert : le révoquer ? (clup-hub totem replace)",
             "retiene \(places) plazas de la puerta \(door), \(silence), mientras \(serving) la atiende: ¿revocarlo? (clup-hub totem replace)")
    }
    /// On the row of the totem serving that door.
    func doorHeldBy(_ holder: String, silence: String) -> String {
        pick("door's places held by \(holder), \(silence): revoke it?", "posti della porta tenuti da \(holder), \(silence): revocarlo?",
             "Plätze der Tür gehalten von \(holder), \(silence): widerrufen?", "places de la porte gardées par \(holder), \(silence) : le révoquer ?",
             "plazas de la puerta retenidas por \(holder), \(silence): ¿revocarlo?")
    }
    /// "not heard for 2 h 5 min", "never heard".
    func silence(since lastContact: Date?, now: Date) -> String {
        guard let lastContact else { return pick("never heard", "mai sentito", "nie gehört", "jamais entendu", "nunca oído") }
        let minutes = Int(max(0, min(now.timeIntervalSince(lastContact), 1e9)) / 60)
        let span = minutes >= 60 ? "\(minutes / 60) h \(minutes % 60) min" : "\(minutes) min"
        return pick("not heard for \(span)", "non sentito da \(span)", "seit \(span) nicht gehört", "muet depuis \(span)", "sin noticias desde hace \(span)")
    }
    func paperLow(_ left: Int?) -> String {
        guard let left else {
            return pick("paper low", "carta in esaurimento", "Papier fast leer", "papier presque épuisé", "queda poco papel")
        }
        return pick("paper low: about \(left) tickets left", "carta in esaurimento: circa \(left) biglietti", "Papier fast leer: etwa \(left) Tickets",
                    "papier presque épuisé : environ \(left) tickets", "queda poco papel: unos \(left) tickets")
    }
    var screenTitle: String {
        pick("A totem's screen", "Lo schermo di un totem", "Der Bildschirm eines Totems", "L'écran d'une borne", "La pantalla de un tótem")
    }
    var screenOf: String { pick("Totem", "Totem", "Totem", "Borne", "Tótem") }
    var lookAtScreen: String {
        pick("Look at its screen now", "Guarda il suo schermo ora", "Seinen Bildschirm jetzt ansehen", "Voir son écran maintenant",
             "Ver su pantalla ahora")
    }
    var screenNote: String {
        pick("The totem sends one picture of what its screen shows; the totem and the hub both keep who looked. The picture is deleted after 10 minutes.",
             "Il totem invia un'immagine di ciò che mostra lo schermo; il totem e l'hub registrano chi ha guardato. L'immagine è cancellata dopo 10 minuti.",
             "Das Totem sendet ein Bild dessen, was sein Bildschirm zeigt; Totem und Hub halten fest, wer hingesehen hat. Das Bild wird nach 10 Minuten gelöscht.",
             "La borne envoie une image de ce qu'affiche son écran ; la borne et le hub gardent qui a regardé. L'image est effacée après 10 minutes.",
             "El tótem envía una imagen de lo que muestra su pantalla; el tótem y el hub guardan quién miró. La imagen se borra a los 10 minutos.")
    }
    func screenOfTotem(_ device: String) -> String {
        pick("Screen of \(device)", "Schermo di \(device)", "Bildschirm von \(device)", "Écran de \(device)", "Pantalla de \(device)")
    }
    func screenAsked(by who: String, at time: String) -> String {
        pick("Asked by \(who) at \(time).", "Chiesto da \(who) alle \(time).", "Angefragt von \(who) um \(time).", "Demandé par \(who) à \(time).",
             "Pedido por \(who) a las \(time).")
    }
    func screenTaken(_ time: String) -> String {
        pick("As the screen was at \(time).", "Com'era lo schermo alle \(time).", "So sah der Bildschirm um \(time) aus.", "L'écran tel qu'il était à \(time).",
             "La pantalla tal como estaba a las \(time).")
    }
    var screenKept: String {
        pick("This picture is deleted 10 minutes after it was asked for.", "Questa immagine è cancellata 10 minuti dopo la richiesta.",
             "Dieses Bild wird 10 Minuten nach der Anfrage gelöscht.", "Cette image est effacée 10 minutes après la demande.",
             "Esta imagen se borra 10 minutos después de pedirla.")
    }
    var screenWaiting: String {
        pick("Waiting for the totem's picture (it comes within seconds when the totem is heard)…",
             "In attesa dell'immagine del totem (arriva in pochi secondi se il totem è in linea)…",
             "Warten auf das Bild des Totems (es kommt in Sekunden, wenn das Totem erreichbar ist)…",
             "En attente de l'image de la borne (elle arrive en quelques secondes si la borne répond)…",
             "Esperando la imagen del tótem (llega en segundos si el tótem responde)…")
    }
    var screenNoAnswer: String {
        pick("The totem sent no picture within a minute: see its last contact on the fleet page.",
             "Il totem non ha inviato immagini entro un minuto: vedi il suo ultimo contatto nella flotta.",
             "Das Totem hat binnen einer Minute kein Bild gesendet: siehe seinen letzten Kontakt in der Flotte.",
             "La borne n'a envoyé aucune image en une minute : voir son dernier contact dans la flotte.",
             "El tótem no envió imagen en un minuto: mira su último contacto en la flota.")
    }
    var noSuchLook: String {
        pick("No such look (or more than 10 minutes old).", "Nessuna richiesta così (o più vecchia di 10 minuti).",
             "Keine solche Anfrage (oder älter als 10 Minuten).", "Pas de telle demande (ou de plus de 10 minutes).",
             "No hay tal petición (o tiene más de 10 minutos).")
    }
    func allDevicesOK(_ count: Int) -> String {
        pick("all \(count) ok", "tutti e \(count) a posto", "alle \(count) in Ordnung", "les \(count) fonctionnent", "los \(count) funcionan")
    }
    /// A version whose release line's support ended (its signed manifest says when).
    func outOfSupport(_ version: String, since day: String) -> String {
        pick("\(version): OUT OF SUPPORT since \(day)", "\(version): SENZA SUPPORTO dal \(day)", "\(version): OHNE SUPPORT seit \(day)",
             "\(version) : HORS SUPPORT depuis le \(day)", "\(version): SIN SOPORTE desde el \(day)")
    }
    var revoked: String { pick("revoked", "revocato", "widerrufen", "révoqué", "revocado") }
    /// The flag of a totem not heard from, named the same in `fleetNote`.
    func silent(for seconds: Int) -> String {
        pick("SILENT for over \(seconds) s", "MUTO da oltre \(seconds) s", "KEIN KONTAKT seit über \(seconds) s",
             "SANS NOUVELLES depuis plus de \(seconds) s", "SIN CONTACTO desde hace más de \(seconds) s")
    }
    var ok: String { pick("ok", "a posto", "in Ordnung", "OK", "correcto") }
    func fleetNote(silentAfter seconds: Int) -> String {
        pick("A totem not heard from for \(seconds) s is flagged SILENT. Devices and printer are as the totem last reported them "
                 + "(with every upload, at least every 30 s).",
             "Un totem che non si fa sentire da \(seconds) s è segnalato MUTO. Dispositivi e stampante sono come il totem li ha descritti "
                 + "l'ultima volta (a ogni invio, almeno ogni 30 s).",
             "Ein Totem, von dem seit \(seconds) s nichts kam, wird mit KEIN KONTAKT markiert. Geräte und Drucker stehen so da, wie das Totem "
                 + "sie zuletzt gemeldet hat (mit jeder Übertragung, mindestens alle 30 s).",
             "Un totem sans nouvelles depuis \(seconds) s est signalé SANS NOUVELLES. Appareils et imprimante sont tels que le totem les a "
                 + "décrits la dernière fois (à chaque envoi, au moins toutes les 30 s).",
             "Un tótem del que no se sabe nada desde hace \(seconds) s se marca SIN CONTACTO. Dispositivos e impresora figuran como el tótem "
                 + "los describió la última vez (en cada envío, al menos cada 30 s).")
    }

    // MARK: Rollouts

    var noRollout: String {
        pick("No rollout yet: clup-hub rollout start VERSION.", "Ancora nessun rilascio: clup-hub rollout start VERSIONE.",
             "Noch kein Rollout: clup-hub rollout start VERSION.", "Aucun déploiement pour l'instant : clup-hub rollout start VERSION.",
             "Aún no hay ningún despliegue: clup-hub rollout start VERSIÓN.")
    }
    func rolloutTitle(_ id: Int64, _ version: String) -> String {
        pick("Rollout \(id) of clup-totem \(version)", "Rilascio \(id) di clup-totem \(version)", "Rollout \(id) von clup-totem \(version)",
             "Déploiement \(id) de clup-totem \(version)", "Despliegue \(id) de clup-totem \(version)")
    }
    func rolloutLine(_ status: Rollouts.Status) -> String {
        // Its state opens the sentence, so each language writes it with its capital.
        let state = switch status.state {
        case .running: pick("Running", "In corso", "Läuft", "En cours", "En curso")
        case .paused: pick("Paused", "In pausa", "Pausiert", "En pause", "En pausa")
        case .aborted: pick("Aborted", "Annullato", "Abgebrochen", "Annulé", "Cancelado")
        case .done: pick("Done", "Completato", "Abgeschlossen", "Terminé", "Terminado")
        }
        let stage = if status.stage == 0 {
            pick("the canaries", "i totem sentinella", "die Vorab-Totems", "les totems pilotes", "los tótems piloto")
                + " (\(status.canaries.joined(separator: ", ")))"
        } else if status.stage <= status.shares.count {
            pick("\(status.shares[status.stage - 1]) % of each store's totems", "\(status.shares[status.stage - 1]) % dei totem di ogni negozio",
                 "\(status.shares[status.stage - 1]) % der Totems jeder Filiale",
                 "\(status.shares[status.stage - 1]) % des totems de chaque magasin",
                 "el \(status.shares[status.stage - 1]) % de los tótems de cada tienda")
        } else {
            pick("every totem", "tutti i totem", "alle Totems", "tous les totems", "todos los tótems")
        }
        let (index, updated, targeted, totems) = (status.stage, status.updated, status.targeted, status.totems)
        return pick("\(state), stage \(index): \(stage). \(updated) of the \(targeted) totems taken in run it; the fleet has \(totems).",
                    "\(state), fase \(index): \(stage). \(updated) dei \(targeted) totem coinvolti lo usano; la flotta ne ha \(totems).",
                    "\(state), Stufe \(index): \(stage). \(updated) der \(targeted) einbezogenen Totems verwenden sie; die Flotte hat \(totems).",
                    "\(state), étape \(index) : \(stage). \(updated) des \(targeted) totems concernés l'utilisent ; le parc en compte \(totems).",
                    "\(state), fase \(index): \(stage). \(updated) de los \(targeted) tótems incluidos la usan; la flota tiene \(totems).")
    }
    var noRelease: String {
        pick("The repository holds no release yet: clup-hub release add FILE.deb.", "Il repository non ha ancora rilasci: clup-hub release add FILE.deb.",
             "Das Repository enthält noch keine Version: clup-hub release add DATEI.deb.",
             "Le dépôt ne contient encore aucune version : clup-hub release add FICHIER.deb.",
             "El repositorio aún no contiene ninguna versión: clup-hub release add ARCHIVO.deb.")
    }
    var startRollout: String {
        pick("Start a rollout", "Avvia un rilascio", "Rollout starten", "Lancer un déploiement", "Iniciar un despliegue")
    }
    var versionLabel: String { pick("Version", "Versione", "Version", "Version", "Versión") }
    var canariesLabel: String {
        pick("Canary totems (they take it first)", "Totem sentinella (lo ricevono per primi)", "Vorab-Totems (sie erhalten sie zuerst)",
             "Totems pilotes (ils la reçoivent en premier)", "Tótems piloto (la reciben primero)")
    }
    var stagesLabel: String {
        pick("Then these shares of each store's totems, in %, rising (every totem comes last)",
             "Poi queste quote dei totem di ogni negozio, in %, crescenti (tutti i totem per ultimi)",
             "Dann diese Anteile der Totems jeder Filiale, in %, steigend (alle Totems kommen zuletzt)",
             "Puis ces parts des totems de chaque magasin, en %, croissantes (tous les totems en dernier)",
             "Después estas cuotas de los tótems de cada tienda, en %, crecientes (todos los tótems al final)")
    }
    var healthyLabel: String {
        pick("Minutes a stage stays healthy before the next", "Minuti in cui una fase resta sana prima della successiva",
             "Minuten, die eine Stufe fehlerfrei bleibt, bevor die nächste beginnt",
             "Minutes pendant lesquelles une étape reste saine avant la suivante",
             "Minutos que una fase sigue sana antes de la siguiente")
    }
    var pauseRollout: String {
        pick("Pause the rollout", "Metti in pausa il rilascio", "Rollout pausieren", "Mettre le déploiement en pause", "Pausar el despliegue")
    }
    var resumeRollout: String {
        pick("Resume the rollout", "Riprendi il rilascio", "Rollout fortsetzen", "Reprendre le déploiement", "Reanudar el despliegue")
    }
    var abortRollout: String {
        pick("Abort the rollout", "Annulla il rilascio", "Rollout abbrechen", "Annuler le déploiement", "Cancelar el despliegue")
    }

    // The panel's own refusals of a rollout: who may, what it may be asked, and what its form
    // may not ask for (checked before `Rollouts.start` sees it).
    var rolloutsAreTheChains: String {
        pick("rollouts are the chain administrators'", "i rilasci sono degli amministratori della catena",
             "Rollouts sind Sache der Administration der Kette", "les déploiements relèvent des administrateurs de la chaîne",
             "los despliegues corresponden a los administradores de la cadena")
    }
    var rolloutActions: String {
        pick("start, pause, resume or abort", "avvia, metti in pausa, riprendi o annulla", "starten, pausieren, fortsetzen oder abbrechen",
             "lancer, mettre en pause, reprendre ou annuler", "iniciar, pausar, reanudar o cancelar")
    }
    func notAShare(_ typed: String) -> String {
        pick("\"\(typed)\" is not a whole number", "\"\(typed)\" non è un numero intero", "\"\(typed)\" ist keine ganze Zahl",
             "\"\(typed)\" n'est pas un nombre entier", "\"\(typed)\" no es un número entero")
    }
    var canariesCount: String {
        pick("Tick 1 to 20 canary totems: they take the version first.",
             "Spunti da 1 a 20 totem sentinella: ricevono la versione per primi.",
             "Wählen Sie 1 bis 20 Vorab-Totems: sie erhalten die Version zuerst.",
             "Cochez de 1 à 20 totems pilotes : ils reçoivent la version en premier.",
             "Marque de 1 a 20 tótems piloto: reciben la versión primero.")
    }
    var sharesRule: String {
        pick("The stages' shares are 1 to 99 %, rising, at most 10 of them (every totem comes last).",
             "Le quote delle fasi vanno da 1 a 99 %, crescenti, al massimo 10 (tutti i totem per ultimi).",
             "Die Anteile der Stufen liegen zwischen 1 und 99 %, steigend, höchstens 10 (alle Totems kommen zuletzt).",
             "Les parts des étapes vont de 1 à 99 %, croissantes, 10 au plus (tous les totems en dernier).",
             "Las cuotas de las fases van del 1 al 99 %, crecientes, 10 como máximo (todos los tótems al final).")
    }

    // The refusals of `Rollouts` that the panel can tell apart (`rolloutRefusal`).
    var rolloutLive: String {
        pick("A rollout is live: abort it before starting another.", "Un rilascio è in corso: lo annulli prima di avviarne un altro.",
             "Ein Rollout läuft bereits: brechen Sie ihn ab, bevor Sie einen neuen starten.",
             "Un déploiement est déjà en cours : annulez-le avant d'en lancer un autre.",
             "Ya hay un despliegue en marcha: cancélelo antes de iniciar otro.")
    }
    var noLiveRollout: String {
        pick("No rollout is live.", "Nessun rilascio è in corso.", "Es läuft kein Rollout.", "Aucun déploiement n'est en cours.",
             "No hay ningún despliegue en marcha.")
    }
    var rolloutPausedAlready: String {
        pick("The rollout is paused already.", "Il rilascio è già in pausa.", "Der Rollout ist bereits pausiert.",
             "Le déploiement est déjà en pause.", "El despliegue ya está en pausa.")
    }
    var rolloutNotPaused: String {
        pick("The rollout is running: there is nothing to resume.", "Il rilascio è in corso: non c'è nulla da riprendere.",
             "Der Rollout läuft: es gibt nichts fortzusetzen.", "Le déploiement est en cours : il n'y a rien à reprendre.",
             "El despliegue está en marcha: no hay nada que reanudar.")
    }
    var noSuchRelease: String {
        pick("The repository does not hold this version of clup-totem: clup-hub release add it first.",
             "Il repository non contiene questa versione di clup-totem: la aggiunga prima con clup-hub release add.",
             "Das Repository enthält diese Version von clup-totem nicht: fügen Sie sie zuerst mit clup-hub release add hinzu.",
             "Le dépôt ne contient pas cette version de clup-totem : ajoutez-la d'abord avec clup-hub release add.",
             "El repositorio no contiene esta versión de clup-totem: añádala primero con clup-hub release add.")
    }
    var canaryNotEnrolled: String {
        pick("A canary totem is not enrolled any more (or was revoked): reload the page.",
             "Un totem sentinella non è più registrato (o è stato revocato): ricarichi la pagina.",
             "Ein Vorab-Totem ist nicht mehr angemeldet (oder wurde widerrufen): laden Sie die Seite neu.",
             "Un totem pilote n'est plus enregistré (ou a été révoqué) : rechargez la page.",
             "Un tótem piloto ya no está registrado (o fue revocado): vuelva a cargar la página.")
    }

    /// A refusal of `Rollouts` to `action`, in the manager's language where its code, its
    /// status and the action tell which it is; else as it came.
    func rolloutRefusal(_ error: HubError, action: Panel.RolloutAction) -> HubError {
        guard let code = ErrorCode(rawValue: error.coded.code) else { return error }
        let text: String
        switch code {
        case .releaseRefused: text = noSuchRelease
        case .unknownDevice: text = canaryNotEnrolled
        // Only a live rollout stops a start; pause and resume find it in the other state.
        case .badHubRequest where error.status == .conflict:
            text = action == .start ? rolloutLive : action == .pause ? rolloutPausedAlready : rolloutNotPaused
        case .badHubRequest where error.status == .notFound: text = noLiveRollout
        default: return error
        }
        return HubError(error.status, code, text, detail: error.detail)
    }
}
