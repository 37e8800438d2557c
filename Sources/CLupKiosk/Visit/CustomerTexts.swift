import CLupCore

/// What the customer is told, on screen, aloud and on paper, in one language: the
/// language's catalog (`TextCatalog`) applied to the screens and the ticket.
struct CustomerTexts {
    /// Languages with texts, by ISO 639-1 code.
    static var supported: [String] { TextCatalog.languages.filter { TextCatalog.all[$0] != nil } }

    let language: String
    let catalog: TextCatalog

    init(language: String) {
        self.language = language
        catalog = TextCatalog.of(language)
    }

    func laneLabel(_ lane: Lane) -> String {
        switch lane {
        case .regular: catalog(.ticketLaneRegular)
        case .priority: catalog(.ticketLanePriority)
        case .booking: catalog(.ticketLaneBooking)
        case .remote: catalog(.ticketLaneRemote)
        }
    }

    func estimatedWait(_ wait: WaitEstimate) -> String { catalog(.ticketWait, ["wait": catalog.wait(wait)]) }

    var scanInstruction: String { catalog(.ticketScan) }

    var bookingScanInstruction: String { catalog(.ticketScanBooking) }

    /// A booking's time on its ticket: "Your time: 14:30 (come 14:20 to 14:45)".
    func bookedTime(_ time: String, from: String, to: String) -> String {
        catalog(.ticketBookedTime, ["time": time, "from": from, "to": to])
    }

    // MARK: Spoken

    /// What the voice says as `screen` replaces `previous`, or nil to stay quiet. The
    /// greeting is for someone who just woke the totem, not for the return to the welcome
    /// screen after a ticket (which would talk over "take your ticket").
    func spoken(_ screen: Screen, after previous: Screen) -> String? {
        switch screen {
        case .welcome: previous == .asleep ? catalog(.spokenWelcome) : nil
        case .storeFull: previous == .asleep || previous == .welcome ? catalog(.spokenFull) : nil
        case let .storeClosed(hours): catalog(.spokenClosed, ["hours": hours])
        case let .noTickets(paperOut): catalog(paperOut ? .noPaperTitle : .printerDownTitle) + ". " + catalog(.outOfOrderHint) + "."
        case let .pinPad(entry):
            // As the pad opens, the PIN step begins or a PIN is refused; never a digit typed.
            if entry.refused { catalog(.spokenStaffWrong) }
            else if case let .pinPad(before) = previous, before.typingPin == entry.typingPin { nil }
            else { catalog(entry.typingPin ? .spokenStaffPin : .spokenStaffNumber) }
        case let .padLocked(until): catalog(.spokenStaffLocked, ["time": until])
        case .priorityReason: catalog(.spokenStaffReason)
        case .stillThere: catalog(.spokenStillThere)
        case let .speechSettings(speed, loudness):
            // Opened: what it offers; then each change, said at the new speed and loudness.
            if case .speechSettings = previous { speechSettings(speed: speed, loudness: loudness) }
            else { catalog(.spokenSpeechSettings) + " " + speechSettings(speed: speed, loudness: loudness) }
        case .choosingLanguage:
            catalog(.languageChoose) + ": " + Self.supported.map { TextCatalog.of($0).name }.joined(separator: ", ") + "."
        case let .ticketReady(number, _) where TicketNumber(number)?.lane == .booking:
            catalog(.spokenBookingReady, ["number": catalog.spokenNumber(number)])
        case let .ticketReady(number, _): catalog(.spokenReady, ["number": catalog.spokenNumber(number)])
        case .printFailed: catalog(.spokenPrintFailed)
        case .noFreeSlots: catalog(.spokenNoSlots)
        case .choosingSlot: catalog(.spokenChooseSlot)
        case .asleep, .printing, .outOfOrder, .backSoon, .findingSlots, .bookingSlot, .checkingPin: nil
        }
    }

    /// "Speed: 3 of 5. Volume: 3 of 4."
    func speechSettings(speed: Int, loudness: Int) -> String {
        catalog(.speechSpeed, ["step": "\(speed + 1)", "steps": "\(ScreenFlow.speeds.count)"]) + ". "
            + catalog(.speechLoudness, ["step": "\(loudness + 1)", "steps": "\(ScreenFlow.gains.count)"]) + "."
    }

    /// What "Repeat" says on `screen`: what it says as it appears, else its title.
    func repeated(_ screen: Screen) -> String? {
        if let line = spoken(screen, after: .asleep) { return line }
        switch screen {
        case .findingSlots: return catalog(.slotsFinding)
        case let .bookingSlot(time): return catalog(.slotsBooking, ["time": time])
        case .printing: return catalog(.printingTitle)
        case .outOfOrder: return catalog(.outOfOrderTitle) + ". " + catalog(.outOfOrderHint)
        case .backSoon: return catalog(.backSoonTitle) + ". " + catalog(.backSoonHint) + ". " + catalog(.outOfOrderHint)
        case .checkingPin: return catalog(.staffChecking)
        default: return nil
        }
    }
}
