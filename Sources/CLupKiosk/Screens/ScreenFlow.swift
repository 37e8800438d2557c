import CLupCore
import CLupHardware
import CLupProtocol

/// Which screen the customer sees, as a pure state machine over what happens in front of
/// the totem: someone comes or goes, touches a button, a ticket is recorded or printed,
/// time runs out. It says which timers to start and when a ticket is asked for; the kiosk
/// does the rest (drawing, speaking, printing).
struct ScreenFlow: Equatable {
    private(set) var screen = Screen.asleep
    private(set) var someonePresent = false
    /// Whether the touch panel is there: without it the screen says "out of order", and
    /// nothing replaces that until it is back.
    private(set) var panelWorking = true
    /// What the customer in front chose; the usual again once nobody is there.
    private(set) var chosen: CustomerChoices
    /// The language each customer starts in.
    let defaultLanguage: String
    /// The language the customer in front of the totem chose.
    var language: String { chosen.language }
    /// Large, high-contrast text, switched by the customer on any screen.
    var largeText: Bool { chosen.largeText }
    /// Whether the store is open, full or closed: which screen the customer starts on.
    private(set) var entrance = Entrance.open
    /// The employee logged in at the PIN pad, until their ticket is issued, they cancel, or
    /// their session times out.
    private(set) var employee: String?
    /// The PIN digits typed so far; only `Effect.checkPin` takes them out.
    private var pin = ""
    /// The screen the voice's settings were opened from, to go back to.
    private var beforeSettings: Screen?
    /// A personal headset is in the jack.
    private(set) var headsetIn = false
    /// Explore by touch: a touch says what is under it, a second touch on the same button
    /// presses it. On while a headset is in, for whoever is at the totem.
    var exploring: Bool { headsetIn }
    /// The button last said in explore mode, which the next touch on it presses.
    private(set) var focused: Button.Action?

    /// The voice's speeds, as multiples of the configured words per minute.
    static let speeds = [0.7, 0.85, 1.0, 1.2, 1.4]
    static let usualSpeed = 2
    /// Its loudness, in decibels from the usual: an 18 dB span in 6 dB steps (EN 301 549
    /// 5.1.3.12 and 8.2.1: a span of at least 18 dB, one step 12 dB above the lowest).
    static let gains = [-12.0, -6, 0, 6]
    static let usualLoudness = 2

    /// How the voice speaks now.
    var speechStyle: SpeechStyle { SpeechStyle(rate: Self.speeds[chosen.speed], gainDecibels: Self.gains[chosen.loudness]) }

    /// What one customer chose, which goes with them.
    struct CustomerChoices: Equatable {
        var language: String
        var largeText = false
        /// The voice's speed and loudness, as steps of `speeds` and `gains` (the usual: the middle ones).
        var speed = ScreenFlow.usualSpeed
        var loudness = ScreenFlow.usualLoudness
    }

    /// What the customer starts on.
    enum Entrance: Equatable {
        case open
        /// At capacity: a ticket still joins the queue.
        case full
        /// Outside the opening hours ("08:00–20:00").
        case closed(hours: String)
        /// The printer's port says no ticket can come out: no paper, or an error.
        case noTickets(paperOut: Bool)

        var screen: Screen {
            switch self {
            case .open: .welcome
            case .full: .storeFull
            case let .closed(hours): .storeClosed(hours: hours)
            case let .noTickets(paperOut): .noTickets(paperOut: paperOut)
            }
        }
    }

    init(language: String = "en") {
        chosen = CustomerChoices(language: language)
        defaultLanguage = language
    }

    /// What happened.
    enum Input: Equatable {
        case presence(Bool)
        /// A tap; the button under it, if any.
        case tap(Button.Action?)
        /// A touch that is not a tap (a drag, a long press).
        case gesture
        case ticketRecorded(number: String)
        case ticketNotRecorded(reason: String)
        case ticketPrinted(number: String, wait: String)
        case ticketNotPrinted(reason: String)
        /// The result screen has been shown long enough.
        case resultTimeUp
        /// Nobody touched the screen for the idle timeout.
        case idleTimeUp
        case panel(working: Bool)
        /// Today's free slots, for "Book a later time" (empty: none is free).
        case slotsFound([SlotChoice])
        /// The store opened, filled up, emptied or closed.
        case entrance(Entrance)
        /// A 3 s press in the staff corner (`staffNumber` nil), or a staff badge at the door
        /// reader; `lockedUntil` says the pad is locked after too many wrong PINs.
        case staffAccess(staffNumber: String?, lockedUntil: String?)
        /// The PIN was checked: right, or wrong (and the pad locked until `lockedUntil`).
        case pinChecked(staffNumber: String, right: Bool, lockedUntil: String?)
        /// The employee touched nothing for the session timeout (less the warning's time).
        case sessionTimeUp
        /// Nobody answered the "still there?" warning in time.
        case warningTimeUp
        /// A headset went into the jack, or out.
        case headset(Bool)
        /// A finger slid onto a button (explore by touch), without lifting on another.
        case explore(Button.Action?)
    }

    /// What the kiosk should do besides showing `screen`.
    /// The flow's timers, as data: the kiosk starts and stops them as the effects say, and
    /// hands the flow the timer's `input` when one runs out.
    enum Timer: Hashable, CaseIterable {
        /// Nobody in front: the screen goes back to sleep.
        case idle
        /// How long a result ("take your ticket", "refused") stays on the screen.
        case result
        /// An employee's session at the PIN pad, until "Are you still there?".
        case session
        /// How long "Are you still there?" waits for an answer.
        case warning

        /// What the flow is told when the timer runs out.
        var input: Input {
            switch self {
            case .idle: .idleTimeUp
            case .result: .resultTimeUp
            case .session: .sessionTimeUp
            case .warning: .warningTimeUp
            }
        }
    }

    enum Effect: Equatable {
        case issueTicket
        /// (Re)start a timer, or stop it (stopping one that is not running does nothing).
        case start(Timer)
        case stop(Timer)
        /// Look up today's free slots (then `slotsFound`).
        case findSlots
        /// Book a place in the chosen slot and print it.
        case book(SlotChoice)
        /// Say the screen again.
        case repeatSpeech
        /// Large text was switched (`largeText`): draw and say so.
        case largeTextSwitched
        /// Check the PIN typed for `staffNumber` (then `pinChecked`).
        case checkPin(staffNumber: String, pin: String)
        /// Issue the logged-in employee's priority ticket; their session ends with it.
        case issuePriority(PriorityReason, employee: String)
        /// The employee's session ended without a ticket ("cancelled", "idle").
        case sessionEnded(employee: String, why: String)
        /// Say what this button is (explore by touch).
        case describe(Button.Action)
        /// Speech goes to the headset and explore by touch is on (true), or back to the speaker.
        case headsetChanged(Bool)
        /// "Are you still there?" is shown: say it too, and give up if nobody answers in time.
        case warned
    }

    /// Takes in what happened; returns what to do.
    mutating func handle(_ input: Input) -> [Effect] {
        switch input {
        case let .presence(present):
            someonePresent = present
            guard present else { return [.start(.idle)] }
            if screen == .asleep { show(entrance.screen) }
            if case let .stillThere(under) = screen, !under.isStaff {
                screen = under
                return [.stop(.warning), .stop(.idle)]
            }
            return [.stop(.idle)]
        case let .tap(button):
            return tapped(button)
        case let .slotsFound(choices):
            // The customer may have gone meanwhile.
            guard screen.underlying == .findingSlots else { return [] }
            if choices.isEmpty {
                show(.noFreeSlots)
                return [.start(.result)]
            }
            show(.choosingSlot(choices))
            return [.start(.idle)]
        case .gesture:
            return [.start(.idle)]
        case let .ticketRecorded(number):
            show(.printing(number: number))
            return []
        case let .ticketNotRecorded(reason), let .ticketNotPrinted(reason):
            show(.printFailed(reason: reason))
            return [.start(.result)]
        case let .ticketPrinted(number, wait):
            show(.ticketReady(number: number, wait: wait))
            return [.start(.result)]
        case .resultTimeUp:
            show(someonePresent ? entrance.screen : .asleep)
            return []
        case .idleTimeUp:
            // While a ticket is booked or prints, the result screen's own timer ends it; an
            // employee's screens end with their session. Otherwise the totem asks first.
            guard !someonePresent, !screen.isBusy, !screen.isStaff, screen != .asleep, screen != .outOfOrder else { return [] }
            guard case .stillThere = screen else {
                screen = .stillThere(screen)
                return [.warned, .start(.warning)]
            }
            return []
        case .warningTimeUp:
            guard case let .stillThere(under) = screen else { return [] }
            if under.isStaff {
                let effects = endSession(why: "idle")
                show(someonePresent ? entrance.screen : .asleep)
                return effects
            }
            show(.asleep)
            return []
        case let .panel(working):
            panelWorking = working
            var effects: [Effect] = []
            if !working {
                effects = endSession(why: "touch panel gone")
                screen = .outOfOrder
            } else if screen == .outOfOrder {
                screen = someonePresent ? entrance.screen : .asleep
                if screen == .asleep { resetForTheNextCustomer() }
            }
            return effects
        case let .headset(plugged):
            (headsetIn, focused) = (plugged, nil)
            // Plugging a headset in is how a blind customer starts: the totem wakes and speaks.
            if plugged, screen == .asleep { show(entrance.screen) }
            return [.start(.idle), .headsetChanged(plugged)]
        case let .explore(button):
            guard exploring, let button, button != focused, screen != .asleep else { return [] }
            focused = button
            return [screen.isStaff ? .start(.session) : .start(.idle), .describe(button)]
        case let .entrance(next):
            entrance = next
            if screen.isEntrance { show(next.screen) }
            return []
        case let .staffAccess(staffNumber, lockedUntil):
            guard screen == .asleep || screen.isEntrance else { return [] }
            pin = ""
            if let lockedUntil {
                show(.padLocked(until: lockedUntil))
                return [.start(.result)]
            }
            show(.pinPad(PinEntry(staffNumber: staffNumber ?? "", typingPin: staffNumber != nil)))
            return [.start(.session)]
        case let .pinChecked(staffNumber, right, lockedUntil):
            guard screen == .checkingPin else { return [] }
            if right {
                employee = staffNumber
                show(.priorityReason)
                return [.start(.session)]
            }
            if let lockedUntil {
                show(.padLocked(until: lockedUntil))
                return [.stop(.session), .start(.result)]
            }
            show(.pinPad(PinEntry(staffNumber: staffNumber, typingPin: true, refused: true)))
            return [.start(.session)]
        case .sessionTimeUp:
            guard screen.isStaff else { return [] }
            screen = .stillThere(screen)
            return [.warned, .start(.warning)]
        }
    }

    /// A tap, and the button under it if any: it wakes the screen, answers a timeout
    /// warning, is explored (a headset in), or presses the button.
    private mutating func tapped(_ button: Button.Action?) -> [Effect] {
        guard screen != .asleep else {
            // The first touch only wakes the screen: the customer has not seen a button yet.
            show(entrance.screen)
            return [.start(.idle)]
        }
        if case let .stillThere(under) = screen {
            // Any touch is the answer: the screen comes back as it was, nothing pressed.
            screen = under.isEntrance ? entrance.screen : under
            return [.stop(.warning), under.isStaff ? .start(.session) : .start(.idle)]
        }
        if exploring {
            let timer: Effect = screen.isStaff ? .start(.session) : .start(.idle)
            // A touch off every button says the screen again; the first touch on a button
            // says what it is; a touch on the button just said presses it.
            guard let button else { return [timer, .repeatSpeech] }
            guard focused == button else {
                focused = button
                return [timer, .describe(button)]
            }
            focused = nil
        }
        if screen.isStaff, button != .repeatSpeech, button != .largeText { return staffTap(button) }
        return customerTap(button)
    }

    /// A button of a customer's screen pressed (or Repeat and large text on any screen).
    private mutating func customerTap(_ button: Button.Action?) -> [Effect] {
        switch (screen, button) {
        case (_, .repeatSpeech?):
            return [screen.isStaff ? .start(.session) : .start(.idle), .repeatSpeech]
        case (_, .largeText?):
            chosen.largeText.toggle()
            return [screen.isStaff ? .start(.session) : .start(.idle), .largeTextSwitched]
        case (.welcome, .getTicket?), (.storeFull, .getTicket?):
            return [.start(.idle), .issueTicket]
        case let (_, .language(code)?) where screen.isEntrance || screen == .choosingLanguage:
            chosen.language = code
            if screen == .choosingLanguage { show(entrance.screen) }
            return [.start(.idle)]
        case (_, .languages?) where screen.isEntrance:
            show(.choosingLanguage)
            return [.start(.idle)]
        case (.choosingLanguage, .back?):
            show(entrance.screen)
            return [.start(.idle)]
        case (.speechSettings, .back?):
            let back = beforeSettings.map { $0.isEntrance ? entrance.screen : $0 } ?? entrance.screen
            show(back)
            return [.start(.idle)]
        case (.speechSettings, .slower?), (.speechSettings, .faster?):
            chosen.speed = min(max(chosen.speed + (button == .faster ? 1 : -1), 0), Self.speeds.count - 1)
            show(.speechSettings(speed: chosen.speed, loudness: chosen.loudness))
            return [.start(.idle)]
        case (.speechSettings, .quieter?), (.speechSettings, .louder?):
            chosen.loudness = min(max(chosen.loudness + (button == .louder ? 1 : -1), 0), Self.gains.count - 1)
            show(.speechSettings(speed: chosen.speed, loudness: chosen.loudness))
            return [.start(.idle)]
        case (.speechSettings, .voice?):
            return [.start(.idle)]
        case (_, .voice?):
            beforeSettings = screen
            show(.speechSettings(speed: chosen.speed, loudness: chosen.loudness))
            return [.start(.idle)]
        case (.welcome, .bookLater?), (.storeFull, .bookLater?):
            show(.findingSlots)
            return [.start(.idle), .findSlots]
        case (.choosingSlot, .back?):
            show(entrance.screen)
            return [.start(.idle)]
        case let (.choosingSlot(choices), button?):
            guard let index = Button.Action.slots.firstIndex(of: button), index < choices.count else { return [.start(.idle)] }
            show(.bookingSlot(time: choices[index].time))
            return [.start(.idle), .book(choices[index])]
        default:
            return [.start(.idle)]
        }
    }

    /// A key of the PIN pad or a reason pressed (or a tap beside them).
    private mutating func staffTap(_ button: Button.Action?) -> [Effect] {
        switch (screen, button) {
        case (.pinPad, .cancel?), (.priorityReason, .cancel?):
            let effects = endSession(why: "cancelled")
            show(someonePresent ? entrance.screen : .asleep)
            return [.stop(.session)] + effects
        case let (.pinPad(entry), button?):
            var entry = entry
            entry.refused = false
            switch button {
            case let .digit(digit) where entry.typingPin:
                if pin.count < PinHash.maximumPin { pin += "\(digit)" }
            case let .digit(digit):
                if entry.staffNumber.count < PinHash.maximumStaffNumber { entry.staffNumber += "\(digit)" }
            case .deleteDigit where entry.typingPin:
                // Delete on an empty PIN goes back to the staff number.
                if pin.isEmpty { entry.typingPin = false } else { pin.removeLast() }
            case .deleteDigit:
                if !entry.staffNumber.isEmpty { entry.staffNumber.removeLast() }
            case .confirm where entry.typingPin:
                guard pin.count >= PinHash.minimumPin else { break }
                let typed = pin
                pin = ""
                show(.checkingPin)
                return [.start(.session), .checkPin(staffNumber: entry.staffNumber, pin: typed)]
            case .confirm:
                if !entry.staffNumber.isEmpty { entry.typingPin = true }
            default:
                break
            }
            entry.pinDigits = pin.count
            screen = .pinPad(entry)
            return [.start(.session)]
        case let (.priorityReason, .reason(reason)?):
            guard let employee else { return [] }
            self.employee = nil
            return [.stop(.session), .issuePriority(reason, employee: employee)]
        default:
            return [.start(.session)]
        }
    }

    /// Logs the employee out, if one is in.
    private mutating func endSession(why: String) -> [Effect] {
        pin = ""
        guard let employee else { return [] }
        self.employee = nil
        return [.sessionEnded(employee: employee, why: why)]
    }

    /// Nothing replaces "out of order" while the touch panel is gone. Asleep, the next
    /// customer starts in the default language.
    private mutating func show(_ next: Screen) {
        guard panelWorking else { return }
        if next != screen { focused = nil }
        screen = next
        if next == .asleep { resetForTheNextCustomer() }
    }

    /// What one customer chose goes with them: the language, large text, the voice's settings.
    private mutating func resetForTheNextCustomer() {
        (chosen, beforeSettings, focused) = (CustomerChoices(language: defaultLanguage), nil, nil)
    }
}
