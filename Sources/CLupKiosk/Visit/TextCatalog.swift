import CLupCore
import Foundation

/// What the totem says and shows, by key: one catalog per language (`Texts/LANG.json`,
/// compiled into clupd), used by the screens, the voice and the printed ticket. A text's
/// `{name}` placeholders are filled in when it is used; a plural text has a form for each
/// of CLDR's plural categories the language uses ("one", "many", "other"), chosen by the
/// language's rule as ICU has it (`PluralRules`).
struct TextCatalog: Decodable, Sendable {
    /// ISO 639-1 code.
    let language: String
    /// The language's name in itself, for the language buttons.
    let name: String
    let texts: [String: String]
    let plurals: [String: [String: String]]

    /// The languages with a catalog, in the order the welcome screen offers them.
    static let languages = ["it", "en", "fr", "de", "es"]

    /// Every catalog compiled in, by language.
    static let all: [String: TextCatalog] = {
        let files: [(String, [UInt8])] = [("it", PackageResources.it_json), ("en", PackageResources.en_json),
                                          ("fr", PackageResources.fr_json), ("de", PackageResources.de_json),
                                          ("es", PackageResources.es_json)]
        var catalogs: [String: TextCatalog] = [:]
        for (language, bytes) in files {
            // Each is checked by the tests; one that did not decode leaves its language out.
            if let catalog = try? JSONDecoder().decode(TextCatalog.self, from: Data(bytes)), catalog.language == language {
                catalogs[language] = catalog
            }
        }
        return catalogs
    }()

    /// The catalog of `language`, else English's.
    static func of(_ language: String) -> TextCatalog {
        all[language] ?? all["en"] ?? TextCatalog(language: "en", name: "English", texts: [:], plurals: [:])
    }

    /// The text of `key` with its placeholders filled from `values`; English's where this
    /// catalog lacks it, the key itself where both do.
    func callAsFunction(_ key: TextKey, _ values: [String: String] = [:]) -> String {
        let text = texts[key.rawValue] ?? (language == "en" ? nil : Self.of("en").texts[key.rawValue]) ?? key.rawValue
        return Self.fill(text, values)
    }

    /// The form of `key` for `count`, its `{count}` and other placeholders filled.
    func plural(_ key: PluralKey, count: Int, _ values: [String: String] = [:]) -> String {
        let forms = plurals[key.rawValue] ?? (language == "en" ? nil : Self.of("en").plurals[key.rawValue]) ?? [:]
        let form = PluralRules.category(of: count, in: language)
        var values = values
        values["count"] = "\(count)"
        return Self.fill(forms[form] ?? forms["other"] ?? key.rawValue, values)
    }

    /// A wait in words: "no wait", "about 12 min", "10–18 min".
    func wait(_ wait: WaitEstimate) -> String {
        if wait.high == 0 { return self(.waitNone) }
        if wait.low == wait.high { return self(.waitAbout, ["minutes": "\(wait.low)"]) }
        return self(.waitRange, ["low": "\(wait.low)", "high": "\(wait.high)"])
    }

    /// A ticket number as the voice says it: "AP-004" → "A P 4", in the language's order.
    func spokenNumber(_ number: String) -> String {
        let parts = number.split(separator: "-")
        guard parts.count == 2, let sequence = Int(parts[1]) else { return number }
        return self(.spokenNumber, ["letters": parts[0].map(String.init).joined(separator: " "), "sequence": "\(sequence)"])
    }

    /// `{name}` in `text` replaced by `values[name]`; an unknown one stays as it is.
    static func fill(_ text: String, _ values: [String: String]) -> String {
        guard text.contains("{") else { return text }
        var result = text
        for (name, value) in values {
            result = result.replacingOccurrences(of: "{\(name)}", with: value)
        }
        return result
    }

    /// The placeholders of `text`: `{inside}`, `{capacity}`.
    static func placeholders(of text: String) -> Set<String> {
        var found: Set<String> = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            found.insert(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return found
    }
}

/// The keys of the catalogs' texts.
enum TextKey: String, CaseIterable {
    case welcomeTitle = "welcome.title"
    case welcomeHint = "welcome.hint"
    case welcomeInside = "welcome.inside"
    case welcomeWait = "welcome.wait"
    case buttonGetTicket = "button.get-ticket"
    case buttonBookLater = "button.book-later"
    case buttonSlot = "button.slot"
    case buttonBack = "button.back"
    case waitNone = "wait.none"
    case waitAbout = "wait.about"
    case waitRange = "wait.range"
    case slotsFinding = "slots.finding"
    case slotsChoose = "slots.choose"
    case slotsBooking = "slots.booking"
    case slotsNone = "slots.none"
    case slotsNoneHint = "slots.none-hint"
    case printingTitle = "printing.title"
    case readyTitle = "ready.title"
    case readyWait = "ready.wait"
    case readyScan = "ready.scan"
    case readyScanBooking = "ready.scan-booking"
    case outOfOrderTitle = "out-of-order.title"
    case outOfOrderHint = "out-of-order.hint"
    case noPaperTitle = "no-paper.title"
    case printerDownTitle = "printer-down.title"
    case backSoonTitle = "back-soon.title"
    case backSoonHint = "back-soon.hint"
    case printFailedTitle = "print-failed.title"
    case printFailedHint = "print-failed.hint"
    case ticketLaneRegular = "ticket.lane.regular"
    case ticketLanePriority = "ticket.lane.priority"
    case ticketLaneBooking = "ticket.lane.booking"
    case ticketLaneRemote = "ticket.lane.remote"
    case ticketWait = "ticket.wait"
    case ticketScan = "ticket.scan"
    case ticketScanBooking = "ticket.scan-booking"
    case ticketBookedTime = "ticket.booked-time"
    case spokenNumber = "spoken.number"
    case spokenWelcome = "spoken.welcome"
    case spokenReady = "spoken.ready"
    case spokenBookingReady = "spoken.booking-ready"
    case spokenPrintFailed = "spoken.print-failed"
    case spokenChooseSlot = "spoken.choose-slot"
    case spokenNoSlots = "spoken.no-slots"
    case spokenCall = "spoken.call"
    case boardCalling = "board.calling"
    case boardGo = "board.go"
    case doorLeftTitle = "door.left-title"
    case doorLeftHint = "door.left-hint"
    case doorVoidedTitle = "door.voided-title"
    case doorVoidedHint = "door.voided-hint"
    case doorNotYetTitle = "door.not-yet-title"
    case doorNotYetHint = "door.not-yet-hint"
    case doorUsedTitle = "door.used-title"
    case doorUsedHint = "door.used-hint"
    case doorPassedTitle = "door.passed-title"
    case doorPassedHint = "door.passed-hint"
    case doorInvalidTitle = "door.invalid-title"
    case doorInvalidHint = "door.invalid-hint"
    case buttonRepeat = "button.repeat"
    case buttonLargeText = "button.large-text"
    case buttonNormalText = "button.normal-text"
    case spokenLargeTextOn = "spoken.large-text-on"
    case spokenLargeTextOff = "spoken.large-text-off"
    case fullTitle = "full.title"
    case fullHint = "full.hint"
    case closedTitle = "closed.title"
    case closedHours = "closed.hours"
    case staffNumber = "staff.number"
    case staffPin = "staff.pin"
    case staffWrong = "staff.wrong"
    case staffChecking = "staff.checking"
    case staffLocked = "staff.locked"
    case staffLockedHint = "staff.locked-hint"
    case staffReason = "staff.reason"
    case buttonPregnant = "button.pregnant"
    case buttonDisability = "button.disability"
    case buttonElderly = "button.elderly"
    case buttonOther = "button.other"
    case buttonCancel = "button.cancel"
    case buttonDelete = "button.delete"
    case buttonOk = "button.ok"
    case languageChoose = "language.choose"
    case stillTitle = "still.title"
    case stillHint = "still.hint"
    case buttonMoreTime = "button.more-time"
    case spokenStillThere = "spoken.still-there"
    case buttonVoice = "button.voice"
    case speechTitle = "speech.title"
    case speechSpeed = "speech.speed"
    case speechLoudness = "speech.loudness"
    case buttonSlower = "button.slower"
    case buttonFaster = "button.faster"
    case buttonQuieter = "button.quieter"
    case buttonLouder = "button.louder"
    case spokenSpeechSettings = "spoken.speech-settings"
    case spokenExplore = "spoken.explore"
    case spokenHeadset = "spoken.headset"
    case spokenFull = "spoken.full"
    case spokenClosed = "spoken.closed"
    case spokenStaffNumber = "spoken.staff-number"
    case spokenStaffPin = "spoken.staff-pin"
    case spokenStaffWrong = "spoken.staff-wrong"
    case spokenStaffLocked = "spoken.staff-locked"
    case spokenStaffReason = "spoken.staff-reason"
}

/// The keys of the catalogs' plural texts.
enum PluralKey: String, CaseIterable {
    case welcomeWaiting = "welcome.waiting"
}
