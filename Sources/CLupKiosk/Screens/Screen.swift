import CLupCore
import Foundation

/// What the customer sees. Each case is one screen of the kiosk.
enum Screen: Equatable, Sendable {
    /// Panel dark; nobody around.
    case asleep
    /// "Get a ticket", with how many are inside and waiting.
    case welcome
    /// The ticket is recorded and on its way out of the printer.
    case printing(number: String)
    /// The printer finished: take your ticket.
    case ticketReady(number: String, wait: String)
    /// The printer failed; the customer is told what to do.
    case printFailed(reason: String)
    /// The touch panel is gone: nobody can use the totem until it is back.
    case outOfOrder
    /// clupd stopping for a software update: the frame it leaves on the panel while the new
    /// version starts (or the one before comes back): back in a moment, staff asked meanwhile.
    case backSoon
    /// "Book a later time": the free slots are being looked up.
    case findingSlots
    /// Today's free slots to choose from (at most `ScreenGeometry.slotButtons`).
    case choosingSlot([SlotChoice])
    /// A place in the chosen slot is being booked.
    case bookingSlot(time: String)
    /// No slot has a free place left today.
    case noFreeSlots
    /// The welcome screen while the store is at its capacity: a ticket still joins the queue.
    case storeFull
    /// Outside the opening hours ("08:00–20:00"): no ticket.
    case storeClosed(hours: String)
    /// The printer's port says no ticket can come out (no paper, or a cover open, a jam,
    /// off line): no ticket, and staff are asked for.
    case noTickets(paperOut: Bool)
    /// An employee types their staff number (or it came from their badge), then their PIN.
    case pinPad(PinEntry)
    /// The PIN is being checked (a slow hash, on a worker).
    case checkingPin
    /// Too many wrong PINs: the pad opens again at `until` (the store's clock).
    case padLocked(until: String)
    /// A logged-in employee picks why the customer has priority.
    case priorityReason
    /// The languages, one big button each (large text has no room for them in a row).
    case choosingLanguage
    /// The voice's speed and loudness, which the customer sets (they are back to the usual
    /// once nobody is there).
    case speechSettings(speed: Int, loudness: Int)
    /// Nobody touched `screen` for a while (and nobody is seen): "Are you still there?",
    /// by sight and sound, before the totem gives up; a touch brings `screen` back.
    indirect case stillThere(Screen)

    /// The screen under a timeout warning, else itself.
    var underlying: Screen {
        if case let .stillThere(screen) = self { screen } else { self }
    }

    /// Whether a ticket is on its way out of the printer.
    var isPrinting: Bool {
        if case .printing = self { true } else { false }
    }

    /// Whether the totem is busy for the customer (printing, booking, checking a PIN): the
    /// idle timeout does not end it.
    var isBusy: Bool {
        switch self {
        case .printing, .bookingSlot, .checkingPin: true
        default: false
        }
    }

    /// Where a customer starts: welcome, or what replaces it while the store is full or closed.
    var isEntrance: Bool {
        switch self {
        case .welcome, .storeFull, .storeClosed, .noTickets: true
        default: false
        }
    }

    /// An employee's screens: their own 30 s session timer ends them, not the customers' idle timeout.
    var isStaff: Bool {
        switch self {
        case .pinPad, .priorityReason: true
        default: false
        }
    }

    /// A short name for the shell and logs.
    var name: String {
        switch self {
        case .asleep: "asleep"
        case .welcome: "welcome"
        case .printing: "printing"
        case .ticketReady: "ticket-ready"
        case .printFailed: "print-failed"
        case .outOfOrder: "out-of-order"
        case .backSoon: "back-soon"
        case .findingSlots: "finding-slots"
        case .choosingSlot: "choosing-slot"
        case .bookingSlot: "booking-slot"
        case .noFreeSlots: "no-free-slots"
        case .storeFull: "store-full"
        case .storeClosed: "store-closed"
        case let .noTickets(paperOut): paperOut ? "no-paper" : "printer-down"
        case .pinPad: "pin-pad"
        case .checkingPin: "checking-pin"
        case .padLocked: "pad-locked"
        case .priorityReason: "priority-reason"
        case .choosingLanguage: "choosing-language"
        case .stillThere: "still-there"
        case .speechSettings: "speech-settings"
        }
    }
}

/// What the PIN pad shows: the staff number typed, and only how many PIN digits are (the
/// digits themselves stay in `ScreenFlow`, never drawn, spoken or reported).
struct PinEntry: Equatable {
    var staffNumber = ""
    /// The staff number is done and the PIN is being typed.
    var typingPin = false
    var pinDigits = 0
    /// The last attempt was refused.
    var refused = false
}

/// A slot of today offered at the totem, and where its free places are: the hub's (booked
/// through it) and this totem's own (issued here, offline too).
struct SlotChoice: Equatable {
    let start: Date
    /// "14:30" on the store's clock.
    let time: String
    let atHub: Int
    let own: Int

    var free: Int { atHub.addingSaturating(own) }
}

/// A touchable area of a screen, in display pixels.
struct Button: Equatable {
    /// What pressing the button does.
    enum Action: Hashable {
        case getTicket
        case bookLater
        /// The `n`-th time offered (from 0).
        case slot(Int)
        case back
        /// Speak and show everything in this language (ISO 639-1).
        case language(String)
        /// Opens the list of languages (in large text, where they do not fit in a row).
        case languages
        /// Say the screen again.
        case repeatSpeech
        /// Large, high-contrast text on or off.
        case largeText
        /// A key of the PIN pad.
        case digit(Int)
        case deleteDigit
        case confirm
        case cancel
        /// Why an employee gives a priority ticket.
        case reason(PriorityReason)
        /// The marked corner where a 3 s press opens the PIN pad (no label, no tap).
        case staffCorner
        /// "More time" on the timeout warning (any touch does it).
        case moreTime
        /// Opens the voice's settings; on them, slower, faster, quieter, louder.
        case voice
        case slower
        case faster
        case quieter
        case louder

        /// The slot buttons, first to last.
        static let slots: [Action] = (0..<4).map { .slot($0) }
        /// The PIN pad's digits, row by row: 1 2 3 / 4 5 6 / 7 8 9 / 0.
        static let digits: [Action] = (1...9).map { .digit($0) } + [.digit(0)]

        /// The name `clupctl screen` shows and `clupctl sim press` takes: "get-ticket", "slot-1", "language-it".
        var name: String {
            switch self {
            case .getTicket: "get-ticket"
            case .bookLater: "book-later"
            case let .slot(index): "slot-\(index + 1)"
            case .back: "back"
            case let .language(code): "language-\(code)"
            case .languages: "languages"
            case .repeatSpeech: "repeat"
            case .largeText: "large-text"
            case let .digit(digit): "digit-\(digit)"
            case .deleteDigit: "delete"
            case .confirm: "ok"
            case .cancel: "cancel"
            case let .reason(reason): "reason-\(reason.rawValue)"
            case .staffCorner: "staff-corner"
            case .moreTime: "more-time"
            case .voice: "voice"
            case .slower: "slower"
            case .faster: "faster"
            case .quieter: "quieter"
            case .louder: "louder"
            }
        }
    }

    let action: Action
    let label: String
    let x, y, width, height: Double

    func contains(x px: Double, y py: Double) -> Bool {
        px >= x && px < x + width && py >= y && py < y + height
    }
}

/// Where things sit on a screen of a given size, shared by drawing and hit-testing so
/// the two can never disagree.
struct ScreenGeometry {
    let width: Double
    let height: Double
    /// Whether the welcome screen offers "Book a later time" (the store takes bookings).
    var offersBookings = false
    /// The panel's visible size, and how far the customer reads it from.
    var widthMM = ScreenSettings().widthMM
    var heightMM = ScreenSettings().heightMM
    var viewingDistanceMM = ScreenSettings().viewingDistanceMM

    init(width: Double, height: Double, offersBookings: Bool = false) {
        self.width = width
        self.height = height
        self.offersBookings = offersBookings
    }

    /// The geometry of a display of `width` × `height` pixels on the panel `settings` describe.
    init(width: Double, height: Double, panel settings: ScreenSettings, offersBookings: Bool) {
        self.init(width: width, height: height, offersBookings: offersBookings)
        (widthMM, heightMM, viewingDistanceMM) = (settings.widthMM, settings.heightMM, settings.viewingDistanceMM)
    }

    /// Pixels per millimetre, across and down.
    var pixelsPerMM: (x: Double, y: Double) { (width / widthMM, height / heightMM) }

    /// The smallest capital H large text may have, in pixels: 0.7° at the viewing distance
    /// (6.1 mm at 500 mm), EN 301 549 5.1.4.
    var largeCapHeight: Double { viewingDistanceMM * tan(0.7 * .pi / 180) * pixelsPerMM.y }

    /// The buttons `screen` offers, labelled in `language`; every screen a customer can use
    /// ends with "Repeat" and the large-text switch (labelled with what it turns to).
    func buttons(on screen: Screen, language: String = "en", largeText: Bool = false) -> [Button] {
        switch screen {
        case .asleep, .outOfOrder, .backSoon:
            return []
        default:
            let texts = TextCatalog.of(language)
            let large = Button(action: .largeText, label: texts(largeText ? .buttonNormalText : .buttonLargeText),
                               x: width * (screen.isStaff || largeText ? 0.515 : 0.67), y: height * 0.9,
                               width: width * (screen.isStaff || largeText ? 0.455 : 0.3), height: height * 0.095)
            // An employee's screens have no voice settings (the customer's, reset when they go);
            // in large text three do not fit in a row, and the voice's settings sit beside the
            // languages on the welcome screen.
            guard !screen.isStaff, !largeText else {
                return ownButtons(on: screen, texts: texts, largeText: largeText) + [
                    Button(action: .repeatSpeech, label: texts(.buttonRepeat), x: width * 0.03, y: height * 0.9,
                           width: width * 0.455, height: height * 0.095), large,
                ]
            }
            return ownButtons(on: screen, texts: texts, largeText: largeText) + [
                Button(action: .repeatSpeech, label: texts(.buttonRepeat), x: width * 0.03, y: height * 0.9, width: width * 0.3,
                       height: height * 0.095),
                Button(action: .voice, label: texts(.buttonVoice), x: width * 0.35, y: height * 0.9, width: width * 0.3,
                       height: height * 0.095),
                large,
            ]
        }
    }

    /// The buttons of `screen` itself.
    private func ownButtons(on screen: Screen, texts: TextCatalog, largeText: Bool) -> [Button] {
        switch screen {
        case .storeClosed, .noTickets:
            return languageButtons(largeText: largeText, language: texts.language)
        case .welcome, .storeFull:
            return languageButtons(largeText: largeText, language: texts.language)
                + [Button(action: .getTicket, label: texts(.buttonGetTicket),
                          x: width * 0.15, y: height * 0.40, width: width * 0.7, height: height * 0.16)]
                + (offersBookings ? [Button(action: .bookLater, label: texts(.buttonBookLater),
                                            x: width * 0.15, y: height * 0.58, width: width * 0.7, height: height * 0.10)] : [])
        case let .choosingSlot(choices):
            return zip(Button.Action.slots, choices).enumerated().map { index, pair in
                Button(action: pair.0, label: texts(.buttonSlot, ["time": pair.1.time, "free": "\(pair.1.free)"]),
                       x: width * 0.15, y: height * (0.25 + 0.13 * Double(index)), width: width * 0.7, height: height * 0.11)
            } + [Button(action: .back, label: texts(.buttonBack), x: width * 0.3, y: height * 0.80, width: width * 0.4,
                        height: height * 0.09)]
        case .pinPad:
            // Three columns of digits, 0 and OK under them; Delete beside Cancel.
            let (each, gap) = (width * 0.29, width * 0.025)
            let digits = Button.Action.digits.enumerated().map { index, action in
                Button(action: action, label: "\(index == 9 ? 0 : index + 1)", x: width * 0.04 + Double(index % 3) * (each + gap),
                       y: height * (0.30 + 0.12 * Double(index / 3)), width: each, height: height * 0.105)
            }
            return digits + [
                Button(action: .confirm, label: texts(.buttonOk), x: width * 0.04 + each + gap, y: height * 0.66,
                       width: each * 2 + gap, height: height * 0.105),
                Button(action: .deleteDigit, label: texts(.buttonDelete), x: width * 0.03, y: height * 0.785,
                       width: width * 0.455, height: height * 0.095),
                Button(action: .cancel, label: texts(.buttonCancel), x: width * 0.515, y: height * 0.785,
                       width: width * 0.455, height: height * 0.095),
            ]
        case .priorityReason:
            let labels: [(PriorityReason, TextKey)] = [(.pregnant, .buttonPregnant), (.disability, .buttonDisability),
                                                       (.elderly, .buttonElderly), (.other, .buttonOther)]
            return labels.enumerated().map { index, pair in
                Button(action: .reason(pair.0), label: texts(pair.1), x: width * 0.15, y: height * (0.25 + 0.125 * Double(index)),
                       width: width * 0.7, height: height * 0.105)
            } + [cancelButton(texts)]
        case .speechSettings:
            let pairs: [(Button.Action, TextKey)] = [(.slower, .buttonSlower), (.faster, .buttonFaster), (.quieter, .buttonQuieter),
                                                     (.louder, .buttonLouder)]
            return pairs.enumerated().map { index, pair in
                Button(action: pair.0, label: texts(pair.1), x: width * (index % 2 == 0 ? 0.03 : 0.515),
                       y: height * (index < 2 ? 0.30 : 0.56), width: width * 0.455, height: height * 0.12)
            } + [Button(action: .back, label: texts(.buttonBack), x: width * 0.3, y: height * 0.77, width: width * 0.4, height: height * 0.095)]
        case .stillThere:
            return [Button(action: .moreTime, label: texts(.buttonMoreTime), x: width * 0.15, y: height * 0.5, width: width * 0.7,
                           height: height * 0.14)]
        case .choosingLanguage:
            return CustomerTexts.supported.enumerated().map { index, code in
                Button(action: .language(code), label: TextCatalog.of(code).name, x: width * 0.15, y: height * (0.20 + 0.11 * Double(index)),
                       width: width * 0.7, height: height * 0.095)
            } + [Button(action: .back, label: texts(.buttonBack), x: width * 0.3, y: height * 0.77, width: width * 0.4, height: height * 0.095)]
        case .asleep, .printing, .ticketReady, .printFailed, .outOfOrder, .backSoon, .findingSlots, .bookingSlot, .noFreeSlots,
             .checkingPin, .padLocked:
            return []
        }
    }

    /// "Cancel", where Back sits on the other screens: it leaves the employee's screens.
    private func cancelButton(_ texts: TextCatalog) -> Button {
        Button(action: .cancel, label: texts(.buttonCancel), x: width * 0.25, y: height * 0.785, width: width * 0.5, height: height * 0.095)
    }

    /// The marked corner of an entrance screen, top right in the header, where a 3 s press
    /// opens the employees' PIN pad: 0.165 of the width by 0.092 of the height (at least
    /// 20 mm × 20 mm on the usual 125.8 mm × 223.6 mm panel).
    func staffCorner(on screen: Screen) -> Button? {
        guard screen.isEntrance else { return nil }
        return Button(action: .staffCorner, label: "", x: width * 0.835, y: 0, width: width * 0.165, height: height * 0.092)
    }

    /// One button per language with a catalog, each named in itself, in a row under the
    /// header; in large text, where they do not fit, one button that lists them.
    private func languageButtons(largeText: Bool, language: String) -> [Button] {
        let languages = CustomerTexts.supported
        if largeText {
            return [Button(action: .languages, label: languages.map { $0.uppercased() }.joined(separator: " "),
                           x: width * 0.03, y: height * 0.13, width: width * 0.56, height: height * 0.095),
                    Button(action: .voice, label: TextCatalog.of(language)(.buttonVoice), x: width * 0.62, y: height * 0.13,
                           width: width * 0.35, height: height * 0.095)]
        }
        let gap = width * 0.02
        let each = (width * 0.96 - gap * Double(max(0, languages.count - 1))) / Double(max(1, languages.count))
        return languages.enumerated().map { index, code in
            Button(action: .language(code), label: TextCatalog.of(code).name, x: width * 0.02 + Double(index) * (each + gap),
                   y: height * 0.13, width: each, height: height * 0.095)
        }
    }

    /// The button under pixel (`x`, `y`), if any.
    func button(on screen: Screen, atX x: Double, y: Double, language: String = "en", largeText: Bool = false) -> Button? {
        buttons(on: screen, language: language, largeText: largeText).first { $0.contains(x: x, y: y) }
    }
}
