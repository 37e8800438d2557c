import CLupCore
import Foundation

/// What the customer sees. Each case is one screen of the kiosk.
enum Screen: Equatable {
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
    /// "Book a later time": the free slots are being looked up.
    case findingSlots
    /// Today's free slots to choose from (at most `ScreenGeometry.slotButtons`).
    case choosingSlot([SlotChoice])
    /// A place in the chosen slot is being booked.
    case bookingSlot(time: String)
    /// No slot has a free place left today.
    case noFreeSlots

    /// Whether a ticket is on its way out of the printer.
    var isPrinting: Bool {
        if case .printing = self { true } else { false }
    }

    /// Whether the totem is busy for the customer (printing, booking): the idle timeout
    /// does not end it.
    var isBusy: Bool {
        switch self {
        case .printing, .bookingSlot: true
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
        case .findingSlots: "finding-slots"
        case .choosingSlot: "choosing-slot"
        case .bookingSlot: "booking-slot"
        case .noFreeSlots: "no-free-slots"
        }
    }
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
        /// Say the screen again.
        case repeatSpeech
        /// Large, high-contrast text on or off.
        case largeText

        /// The slot buttons, first to last.
        static let slots: [Action] = (0..<4).map { .slot($0) }

        /// The name `clupctl screen` shows and `clupctl sim press` takes: "get-ticket", "slot-1", "language-it".
        var name: String {
            switch self {
            case .getTicket: "get-ticket"
            case .bookLater: "book-later"
            case let .slot(index): "slot-\(index + 1)"
            case .back: "back"
            case let .language(code): "language-\(code)"
            case .repeatSpeech: "repeat"
            case .largeText: "large-text"
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

    /// The buttons `screen` offers, labelled in `language`; every screen a customer can use
    /// ends with "Repeat" and the large-text switch (labelled with what it turns to).
    func buttons(on screen: Screen, language: String = "en", largeText: Bool = false) -> [Button] {
        switch screen {
        case .asleep, .outOfOrder:
            return []
        default:
            let texts = TextCatalog.of(language)
            return ownButtons(on: screen, texts: texts) + [
                Button(action: .repeatSpeech, label: texts(.buttonRepeat), x: width * 0.03, y: height * 0.9,
                       width: width * 0.455, height: height * 0.095),
                Button(action: .largeText, label: texts(largeText ? .buttonNormalText : .buttonLargeText), x: width * 0.515,
                       y: height * 0.9, width: width * 0.455, height: height * 0.095),
            ]
        }
    }

    /// The buttons of `screen` itself.
    private func ownButtons(on screen: Screen, texts: TextCatalog) -> [Button] {
        switch screen {
        case .welcome:
            return languageButtons()
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
        case .asleep, .printing, .ticketReady, .printFailed, .outOfOrder, .findingSlots, .bookingSlot, .noFreeSlots:
            return []
        }
    }

    /// One button per language with a catalog, each named in itself, in a row under the header.
    private func languageButtons() -> [Button] {
        let languages = CustomerTexts.supported
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
