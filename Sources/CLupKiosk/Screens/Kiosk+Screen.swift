import Logging
import CLupCore
import CLupDrawing
import CLupHardware
import CLupProtocol
import Foundation

/// A frame drawn on a worker, handed to the loop once and never shared.
struct DrawnFrame: @unchecked Sendable {
    let canvas: Result<Canvas, any Error>
}

/// The screen: the flow's effects, drawing, speaking.
extension Kiosk {
    /// Passes `input` to the screen flow and carries out what it says; returns what issuing
    /// a ticket did, when the input asked for one. `at` is when the input arrived (monotonic
    /// seconds), from which the ticket's wait is measured.
    ///
    /// One input at a time: an input that comes while another is carried out (issuing a
    /// ticket records it, and the flow hears that) waits its turn (`ScreenState.takeInTurn`) and is handled
    /// once the first is done, in order. The flow never runs inside itself.
    @discardableResult
    func handle(_ input: ScreenFlow.Input, at arrival: Double? = nil) -> KioskOutcome? {
        guard screens.takeInTurn(input, arrival: arrival) else { return nil }
        let outcome = carryOut(input, at: arrival)
        while let (next, arrival) = screens.nextQueued() {
            carryOut(next, at: arrival)
        }
        return outcome
    }

    /// The flow's answer to `input`: its screen drawn and said, its effects carried out.
    @discardableResult
    private func carryOut(_ input: ScreenFlow.Input, at arrival: Double?) -> KioskOutcome? {
        let (before, languageBefore) = (screens.flow.screen, screens.flow.language)
        let effects = screens.flow.handle(input)
        // The input's own screen first: an effect may change it again, and draws that itself.
        if screens.flow.screen != before {
            screenChanged(from: before)
        } else if screens.flow.language != languageBefore {
            // The customer chose a language: the screen in it, and its greeting.
            screenChanged(from: .asleep)
        }
        var issued: KioskOutcome?
        for effect in effects {
            switch effect {
            case .issueTicket:
                issued = issueTicket(.regular, askedAt: arrival, language: screens.flow.language)
            case .findSlots:
                findSlots()
                issued = KioskOutcome("looking up today's free times")
            case let .book(choice):
                issued = book(choice, askedAt: arrival)
            case .repeatSpeech:
                if let line = CustomerTexts(language: screens.flow.language).repeated(screens.flow.screen) { tellTheCustomer(line) }
                issued = KioskOutcome("said again: the \(screens.flow.screen.name) screen")
            case .largeTextSwitched:
                let texts = TextCatalog.of(screens.flow.language)
                tellTheCustomer(texts(screens.flow.largeText ? .spokenLargeTextOn : .spokenLargeTextOff))
                redraw()
                issued = KioskOutcome("large text \(screens.flow.largeText ? "on" : "off"); screen \(screens.flow.screen.name)")
            case let .start(timer):
                start(.screen(timer), after: seconds(timer)) { [unowned self] in handle(timer.input) }
            case let .stop(timer):
                stop(.screen(timer))
            case let .checkPin(staffNumber, pin):
                checkPin(staffNumber: staffNumber, pin: pin)
                issued = KioskOutcome("checking the PIN of staff number \(staffNumber)")
            case let .issuePriority(reason, employee):
                issued = issuePriority(reason, by: employee, askedAt: arrival)
            case let .sessionEnded(employee, why):
                staffSessionEnded(employee, why: why)
            case let .describe(action):
                let label = screens.buttons.first { $0.action == action }?.label ?? action.name
                tellTheCustomer(TextCatalog.of(screens.flow.language)(.spokenExplore, ["label": label]))
                issued = KioskOutcome("said \"\(label)\"; touch it again to press it")
            case let .headsetChanged(plugged):
                devices.voice?.route(toHeadset: plugged)
                let texts = CustomerTexts(language: screens.flow.language)
                if plugged {
                    tellTheCustomer([texts.catalog(.spokenHeadset), texts.repeated(screens.flow.screen)].compactMap { $0 }.joined(separator: " "))
                } else {
                    devices.voice?.silence()
                }
                issued = KioskOutcome(plugged ? "a headset is in: speech goes to it, explore by touch is on"
                                              : "the headset is out: speech is back on the speaker")
            case .warned:
                tellTheCustomer(TextCatalog.of(screens.flow.language)(.spokenStillThere))
                issued = KioskOutcome("asked whether anyone is still there")
            }
        }
        return issued
    }

    /// How long `timer` runs, as `[screen]` says. An employee's session ends
    /// `staff_session_seconds` after the last touch, the warning's time included.
    private func seconds(_ timer: ScreenFlow.Timer) -> Double {
        switch timer {
        case .idle: config.screen.idleTimeoutSeconds
        case .result: config.screen.resultSeconds
        case .session: max(1, config.screen.staffSessionSeconds - config.screen.timeoutWarningSeconds)
        case .warning: config.screen.timeoutWarningSeconds
        }
    }

    /// Draws the new screen and says what it says, once, as it appears.
    private func screenChanged(from previous: Screen) {
        if screens.flow.screen == .asleep {
            devices.voice?.silence()
            caller.repeatCallsCutShort()
        } else if let line = CustomerTexts(language: screens.flow.language).spoken(screens.flow.screen, after: previous) {
            tellTheCustomer(line)
        }
        redraw()
    }

    /// Says `line` to the customer in front: in their language, at the speed and loudness
    /// they set, instead of whatever was being said.
    private func tellTheCustomer(_ line: String) {
        devices.voice?.say(line, language: TextCatalog.of(screens.flow.language).language, style: screens.flow.speechStyle)
    }

    /// Redraws the welcome screen when the figures it shows may have changed: once the loop
    /// is done with what it is doing (a ticket being issued changes the figures, then the
    /// screen), and not if a frame was asked for meanwhile.
    func refreshScreen() {
        guard screens.refreshAskedAt == nil else { return }
        screens.refreshAskedAt = screens.frameRequests
        loop.schedule(after: 0) { [unowned self] in
            defer { screens.refreshAskedAt = nil }
            updateEntrance()
            if screens.flow.screen.isEntrance || screens.flow.screen == .asleep, screens.frameRequests == screens.refreshAskedAt { redraw() }
        }
    }

    /// Tells the flow whether the store is open, full (as many inside as its capacity) or
    /// closed (outside its opening hours on its own clock), or whether the printer's port
    /// says no ticket can come out; the entrance screen follows.
    func updateEntrance() {
        let next: ScreenFlow.Entrance
        if !isOpen(at: clock.now()) {
            next = .closed(hours: StoreSettingsDocument.OpeningHours(opensMinute: config.store.opensMinute,
                                                                     closesMinute: config.store.closesMinute).description)
        } else if let lines = devices.printerPort?.stopsTickets {
            next = .noTickets(paperOut: lines.paperOut)
        } else if desk.day.inside >= config.queue.capacity {
            next = .full
        } else {
            next = .open
        }
        if next != screens.flow.entrance { handle(.entrance(next)) }
    }

    /// Whether `instant` falls within the opening hours, on the store's clock.
    func isOpen(at instant: Date) -> Bool {
        let minute = ClockFace(timeZone: config.store.timeZone).minuteOfDay(at: instant)
        return minute >= config.store.opensMinute && minute < config.store.closesMinute
    }

    /// Tells the flow whether the store is open now, and again when it next opens or closes:
    /// a timer on the wall clock, so nothing looks at the hours in between.
    func watchTheHours() {
        stop(.hours)
        updateEntrance()
        let (opens, closes) = (config.store.opensMinute, config.store.closesMinute)
        // Open from midnight to midnight: it never opens nor closes.
        guard opens > 0 || closes < 24 * 60 else { return }
        let (face, now) = (ClockFace(timeZone: config.store.timeZone), clock.now())
        guard let next = [opens, closes].compactMap({ face.next(minuteOfDay: $0, after: now) }).min() else { return }
        start(.hours, at: next) { [unowned self] in watchTheHours() }
    }

    /// Puts the current screen on the display: drawn on a worker, shown on the loop unless a
    /// newer screen was asked for meanwhile. The kiosk goes on when the display fails (the
    /// error is logged and in `clupctl status`; the screen is drawn again once it is back).
    func redraw() {
        let request = screens.askForFrame()
        // A self-test or a calibration has the screen: the kiosk draws again once it is done.
        if maintenance?.display == true { return }
        // Nobody in front: the numbers called and the queue, else a dark screen.
        guard screens.flow.screen != .asleep || attracts else {
            do {
                try devices.display.sleep()
            } catch {
                logger.error("could not darken the display", metadata: ["error": "\(error)"])
            }
            return
        }
        let (screen, language, large) = (screens.flow.screen, screens.flow.language, screens.flow.largeText)
        let (facts, renderer) = (screenFacts, ScreenRenderer(geometry: screens.geometry))
        loop.draw({ DrawnFrame(canvas: Result { try renderer.render(screen, facts: facts, language: language, largeText: large) }) }) {
            [unowned self] frame in
            guard request == screens.frameRequests else { return }
            do {
                try devices.display.show(try frame.canvas.get())
            } catch {
                logger.error("could not draw the \(screen.name) screen", metadata: ["error": "\(error)"])
            }
        }
    }

    /// What the panel shows while clupd is not running (stopped for an update, a restart, a
    /// crash's restart): "out of order", or "back in a moment" while the update helper
    /// installs a version (`updating`), drawn now, on the loop's own thread, and left there
    /// (a framebuffer keeps its last frame). A display that fails is only logged.
    func showOutOfOrderWhileAway(updating: Bool = false) {
        do {
            let frame = try ScreenRenderer(geometry: screens.geometry).render(updating ? .backSoon : .outOfOrder, facts: screenFacts,
                                                                            language: screens.flow.language,
                                                                            largeText: screens.flow.largeText)
            try devices.display.show(frame)
            devices.display.finishShowing()
        } catch {
            logger.error("could not show the out-of-order screen as clupd stops", metadata: ["error": "\(error)"])
        }
    }

    /// Whether the screen shows something while nobody is in front: the numbers called, or
    /// how many wait and how long (else it is dark, to save the backlight).
    var attracts: Bool { !caller.calledTickets.isEmpty || desk.day.queueLength > 0 }

    /// The current screen as PNG, drawn now (for `clupctl screenshot`).
    func screenshot() throws -> [UInt8] {
        guard screens.flow.screen != .asleep || attracts else {
            let black = try Canvas(width: Int(screens.geometry.width), height: Int(screens.geometry.height))
            black.fill(.black)
            return try black.pngData()
        }
        return try ScreenRenderer(geometry: screens.geometry).render(screens.flow.screen, facts: screenFacts, language: screens.flow.language,
                                                             largeText: screens.flow.largeText).pngData()
    }

    /// The screen shown, its language and its buttons, for `clupctl screen`.
    var screenReport: ScreenReport {
        ScreenReport(name: screens.flow.screen.name, language: screens.flow.language,
                     width: Int(screens.geometry.width), height: Int(screens.geometry.height),
                     buttons: screens.buttons.map {
                         ScreenReport.Button(name: $0.action.name, label: $0.label, x: Int($0.x.rounded()), y: Int($0.y.rounded()),
                                             width: Int($0.width.rounded()), height: Int($0.height.rounded()))
                     })
    }

    var screenFacts: ScreenFacts {
        ScreenFacts(storeName: config.store.name, inside: desk.day.inside, capacity: config.queue.capacity,
                    waiting: desk.day.queueLength, called: caller.calledTickets.map(\.number.description),
                    wait: desk.estimatedWait(for: .regular, defaultMinutes: config.tickets.defaultWaitMinutes))
    }
}
