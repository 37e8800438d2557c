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
    /// The language the customer in front of the totem chose; back to `defaultLanguage`
    /// once nobody is there.
    private(set) var language: String
    let defaultLanguage: String
    /// Large, high-contrast text, switched by the customer on any screen; off again once
    /// nobody is there.
    private(set) var largeText = false

    init(language: String = "en") {
        self.language = language
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
    }

    /// What the kiosk should do besides showing `screen`.
    enum Effect: Equatable {
        case issueTicket
        case startResultTimer
        case startIdleTimer
        case stopIdleTimer
        /// Look up today's free slots (then `slotsFound`).
        case findSlots
        /// Book a place in the chosen slot and print it.
        case book(SlotChoice)
        /// Say the screen again.
        case repeatSpeech
        /// Large text was switched (`largeText`): draw and say so.
        case largeTextSwitched
    }

    /// Takes in what happened; returns what to do.
    mutating func handle(_ input: Input) -> [Effect] {
        switch input {
        case let .presence(present):
            someonePresent = present
            guard present else { return [.startIdleTimer] }
            if screen == .asleep { show(.welcome) }
            return [.stopIdleTimer]
        case let .tap(button):
            guard screen != .asleep else {
                // The first touch only wakes the screen: the customer has not seen a button yet.
                show(.welcome)
                return [.startIdleTimer]
            }
            switch (screen, button) {
            case (_, .repeatSpeech?):
                return [.startIdleTimer, .repeatSpeech]
            case (_, .largeText?):
                largeText.toggle()
                return [.startIdleTimer, .largeTextSwitched]
            case (.welcome, .getTicket?):
                return [.startIdleTimer, .issueTicket]
            case let (.welcome, .language(code)?):
                language = code
                return [.startIdleTimer]
            case (.welcome, .bookLater?):
                show(.findingSlots)
                return [.startIdleTimer, .findSlots]
            case (.choosingSlot, .back?):
                show(.welcome)
                return [.startIdleTimer]
            case let (.choosingSlot(choices), button?):
                guard let index = Button.Action.slots.firstIndex(of: button), index < choices.count else { return [.startIdleTimer] }
                show(.bookingSlot(time: choices[index].time))
                return [.startIdleTimer, .book(choices[index])]
            default:
                return [.startIdleTimer]
            }
        case let .slotsFound(choices):
            // The customer may have gone meanwhile.
            guard screen == .findingSlots else { return [] }
            if choices.isEmpty {
                show(.noFreeSlots)
                return [.startResultTimer]
            }
            show(.choosingSlot(choices))
            return [.startIdleTimer]
        case .gesture:
            return [.startIdleTimer]
        case let .ticketRecorded(number):
            show(.printing(number: number))
            return []
        case let .ticketNotRecorded(reason), let .ticketNotPrinted(reason):
            show(.printFailed(reason: reason))
            return [.startResultTimer]
        case let .ticketPrinted(number, wait):
            show(.ticketReady(number: number, wait: wait))
            return [.startResultTimer]
        case .resultTimeUp:
            show(someonePresent ? .welcome : .asleep)
            return []
        case .idleTimeUp:
            // While a ticket is booked or prints, the result screen's own timer ends it.
            if !someonePresent, !screen.isBusy { show(.asleep) }
            return []
        case let .panel(working):
            panelWorking = working
            if !working {
                screen = .outOfOrder
            } else if screen == .outOfOrder {
                screen = someonePresent ? .welcome : .asleep
                if screen == .asleep { (language, largeText) = (defaultLanguage, false) }
            }
            return []
        }
    }

    /// Nothing replaces "out of order" while the touch panel is gone. Asleep, the next
    /// customer starts in the default language.
    private mutating func show(_ next: Screen) {
        guard panelWorking else { return }
        screen = next
        if next == .asleep { (language, largeText) = (defaultLanguage, false) }
    }
}
