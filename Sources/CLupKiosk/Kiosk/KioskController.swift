import CLupCore
import CLupDrawing
import CLupHardware
import CLupPrinting
import CLupStore
import Crypto
import Foundation
import Logging

/// The kiosk's application: turns device events into queue commands, screens and effects.
///
/// Runs on the event loop. Every command is committed to the store with its events before
/// its effect (printing, releasing the turnstile, redrawing) is performed, so a crash never
/// leaves a printed ticket or a passage unrecorded.
final class KioskController {
    /// The configuration in force; `adopt` replaces it when clupd reloads its file.
    private(set) var config: KioskConfiguration
    let store: TotemStore
    let loop: EventLoop
    let display: Display
    let touchscreen: Touchscreen
    let presence: PresenceSensor
    let turnstile: Turnstile
    let reader: DoorReader
    let voice: Voice?
    private(set) var printJob: TicketPrintJob
    let clock: any Clock
    let logger: Logger

    private(set) var issuer: TicketIssuer
    /// This totem's public key and those of the store's other totems, to check codes at the door.
    private(set) var keyring: TicketKeyring
    let geometry: ScreenGeometry
    /// Today's tickets, ledgers and exit history, as committed.
    var day: DayState
    private(set) var screen = Screen.asleep
    /// The frame on the display now, for screenshots.
    private(set) var currentFrame: Canvas?
    var someonePresent = false
    var idleTimer: EventLoop.TimerID?
    var resultTimer: EventLoop.TimerID?
    var expiryTimer: EventLoop.TimerID?
    /// Stored rows or events that could not be read (the day was rebuilt from the log), for
    /// the log and `clupctl status`.
    var dataProblems: [String] = []
    /// What the last device event did, in one sentence, for the shell.
    private(set) var lastOutcome = ""
    private(set) var lastIssued: TicketNumber?
    /// Why the last device event could not be recorded, if it could not.
    private(set) var lastFailure: Error?

    init(config: KioskConfiguration, store: TotemStore, loop: EventLoop, display: Display,
         touchscreen: Touchscreen, presence: PresenceSensor, turnstile: Turnstile, reader: DoorReader, voice: Voice?,
         printJob: TicketPrintJob, key: Curve25519.Signing.PrivateKey, clock: any Clock, logger: Logger) throws {
        self.config = config
        self.store = store
        self.loop = loop
        self.display = display
        self.touchscreen = touchscreen
        self.presence = presence
        self.turnstile = turnstile
        self.reader = reader
        self.voice = voice
        self.printJob = printJob
        self.clock = clock
        self.logger = logger
        issuer = TicketIssuer(store: config.storeID, totem: config.totemLetter,
                              validMinutes: config.ticketValidMinutes, key: key)
        keyring = Self.keyring(config, key: key)
        geometry = ScreenGeometry(width: Double(display.width), height: Double(display.height))
        // Opening the day commits through this controller, so it needs one: an empty day
        // stands in until the stored one is read.
        day = DayState(businessDay: BusinessDay("0000-00-00"))
        day = try openDay(businessDay, after: nil)
    }

    static func keyring(_ config: KioskConfiguration, key: Curve25519.Signing.PrivateKey) -> TicketKeyring {
        var keys = config.totemKeys.compactMapValues { try? Curve25519.Signing.PublicKey(rawRepresentation: $0) }
        keys[config.totemLetter] = key.publicKey
        return TicketKeyring(store: config.storeID, keys: keys, ownTotem: config.totemLetter)
    }

    /// Puts a reloaded configuration in force (the caller kept the keys only a restart
    /// changes): the queue rules, the printer, ticket validity and texts, the other
    /// totems' keys. Tickets already printed keep what they were given; the queue is
    /// settled again under the new rules (a larger capacity calls who can come in now).
    func adopt(_ next: KioskConfiguration) {
        config = next
        issuer = TicketIssuer(store: next.storeID, totem: next.totemLetter, validMinutes: next.ticketValidMinutes, key: issuer.key)
        keyring = Self.keyring(next, key: issuer.key)
        printJob = TicketPrintJob(printer: CUPSPrinter(queue: next.printerQueue), profile: next.printerProfile ?? .pdf(next.paper),
                                  spoolDirectory: printJob.spoolDirectory, timeout: next.printTimeoutSeconds)
        settleQueue()
    }

    /// Connects the devices, finishes what a restart interrupted and shows the first screen.
    func start() throws {
        presence.onChange = { [unowned self] present in self.presenceChanged(present) }
        touchscreen.onGesture = { [unowned self] gesture in self.touched(gesture) }
        turnstile.onPassage = { [unowned self] direction in self.passed(direction) }
        reader.onRead = { [unowned self] output in self.read(output) }
        settleInterruptedPrints()
        settleQueue()
        watchTheDay()
        showOrLog(.asleep)
        watchTheDevices()
    }

    /// Every second: with the touch panel gone, the screen says the totem is out of order
    /// (rather than showing buttons nobody can press); when it is back, the kiosk resumes.
    /// A display that failed is given the current screen again.
    private func watchTheDevices() {
        if display.health.state == .missing {
            try? show(screen)   // why it failed was logged once and is in `clupctl status`
        }
        let working = touchscreen.health.state == .ok
        if !working && screen != .outOfOrder {
            logger.error("the touchscreen is gone; out of order", metadata: ["detail": "\(touchscreen.health.detail)"])
            showOrLog(.outOfOrder)
        } else if working && screen == .outOfOrder {
            logger.notice("the touchscreen is back")
            showOrLog(someonePresent ? .welcome : .asleep)
        }
        loop.schedule(after: 1) { [unowned self] in watchTheDevices() }
    }

    /// Once a minute, starts the new business day if it has begun, so the screen and the
    /// shell never show yesterday's counts for long.
    private func watchTheDay() {
        loop.schedule(after: 60) { [unowned self] in
            settleQueue()   // rolls the day over, and redraws
            watchTheDay()
        }
    }

    var businessDay: BusinessDay {
        BusinessDay(containing: clock.now(), startMinute: config.businessDayStartMinute, timeZone: config.timeZone)
    }

    // MARK: Device events

    func presenceChanged(_ present: Bool) {
        someonePresent = present
        if present {
            loop.cancel(idleTimer)
            idleTimer = nil
            if screen == .asleep { showOrLog(.welcome) }
            report("someone approached; screen \(screen.name)")
        } else {
            restartIdleTimer()
            report("they left; the screen sleeps after \(Int(config.idleTimeoutSeconds)) s idle")
        }
    }

    func touched(_ gesture: TouchGesture) {
        restartIdleTimer()
        if screen == .asleep {
            // The first touch only wakes the screen: the customer has not seen a button yet.
            showOrLog(.welcome)
            report("the touch woke the screen")
            return
        }
        guard gesture.kind == .tap else {
            report("a \(gesture.kind.rawValue) does nothing here")
            return
        }
        let x = gesture.x1 * geometry.width, y = gesture.y1 * geometry.height
        guard let button = geometry.button(on: screen, atX: x, y: y) else {
            report("the tap at (\(Int(x)), \(Int(y))) hit no button on the \(screen.name) screen")
            return
        }
        switch button.action {
        // A ticket that cannot be issued is already on the screen and in the report.
        case .getTicket: _ = try? issueTicket(.regular)
        }
    }

    func passed(_ direction: PassageDirection) {
        do {
            let events = try perform { day, now in day.pass(direction, door: config.doorName, at: now) }
            let holder = events.compactMap { event -> TicketNumber? in
                if case let .passage(_, _, _, _, ticket, _) = event { return ticket }
                return nil
            }.first
            report("passage \(direction.rawValue)" + (holder.map { " by ticket \($0)" } ?? "")
                   + "; \(day.inside) inside")
        } catch {
            logger.error("could not record a passage", metadata: ["error": "\(error)"])
            report(failure: CodedError(.passageNotRecorded, "passage not recorded: \(error)"))
        }
    }

    /// What the door reader delivered: a code to check, or a scan it could not read.
    func read(_ output: WedgeDecoder.Output) {
        switch output {
        case let .code(code):
            do {
                try scanned(code)
            } catch {
                report(failure: error)
            }
        case let .refused(reason):
            logger.warning("unreadable scan at the door", metadata: ["reason": "\(reason)"])
            report(failure: CodedError(.unreadableScan, "unreadable scan: \(reason)"))
        }
    }

    /// Before a simulated device event: nothing has happened yet.
    func beginDeviceEvent() {
        report("nothing happened")
    }

    /// A code read at the door: admits its ticket once and releases the turnstile.
    func scanned(_ code: String) throws {
        do {
            let events = try perform { day, now in
                try day.admit(code: code, keyring: keyring, at: now, policy: config.policy)
            }
            guard let number = events.compactMap({ event -> TicketNumber? in
                if case let .ticketAdmitted(number, _, _, _) = event { return number }
                return nil
            }).first else { return }
            do {
                try turnstile.release()
            } catch {
                // The door stayed shut: give the admission back so the customer can scan again.
                logger.error("the turnstile did not release", metadata: ["number": "\(number)", "error": "\(error)"])
                try perform { day, now in day.lapseAdmission(number, at: now) }
                throw CodedError(.turnstileDidNotOpen, "the turnstile did not open for \(number): \(error)")
            }
            logger.info("admitted at the door", metadata: ["number": "\(number)"])
            report("admitted \(number): the turnstile is released")
        } catch let refusal as Refusal {
            logger.warning("scan refused at the door", metadata: ["reason": "\(refusal)"])
            throw refusal
        }
    }

    // MARK: Screen

    func restartIdleTimer() {
        loop.cancel(idleTimer)
        idleTimer = loop.schedule(after: config.idleTimeoutSeconds) { [unowned self] in
            self.idleTimer = nil
            guard !self.someonePresent else { return }
            // While a ticket prints, the result screen's own timer puts the screen to sleep.
            if case .printing = self.screen { return }
            self.showOrLog(.asleep)
        }
    }

    /// Makes `next` the kiosk's screen and puts it on the display. The kiosk moves on even
    /// when the display fails (the error is for the log and `clupctl status`); the screen is
    /// drawn again once the display is back.
    func show(_ next: Screen) throws {
        let facts = ScreenFacts(storeName: config.storeName, inside: day.inside, capacity: config.policy.capacity,
                                waiting: day.queueLength, wait: estimatedWait(for: .regular).description)
        let frame = try ScreenRenderer(geometry: geometry).render(next, facts: facts)
        let previous = screen
        screen = next
        currentFrame = frame
        if next == .asleep {
            voice?.silence()
            try display.sleep()
        } else {
            // Said once as the screen appears, not again when its figures are redrawn.
            let texts = CustomerTexts(language: config.languages.first ?? "en")
            if next != previous, let line = texts.spoken(next, after: previous) { voice?.say(line, language: texts.language) }
            try display.show(frame)
        }
    }

    /// How each device is doing, for `clupctl status` and `devices`; the voice with what it said last.
    var deviceHealth: [DeviceHealth] {
        var devices = [display.health, touchscreen.health, presence.health, turnstile.health, reader.health]
        if let voice {
            let health = voice.health
            let said = voice.lastUtterance.map { "; last said \"\($0)\"" } ?? ""
            devices.append(DeviceHealth(role: health.role, backend: health.backend, state: health.state, detail: health.detail + said))
        }
        return devices
    }

    func showOrLog(_ next: Screen) {
        // Nothing replaces "out of order" while the touch panel is still gone.
        if screen == .outOfOrder && next != .outOfOrder && touchscreen.health.state != .ok { return }
        do {
            try show(next)
        } catch {
            logger.error("could not draw the \(next.name) screen", metadata: ["error": "\(error)"])
        }
    }

    /// Redraws the screen when the figures it shows may have changed.
    func refreshScreen() {
        if screen == .welcome { showOrLog(.welcome) }
    }

    func report(_ outcome: String, issued: TicketNumber? = nil) {
        lastOutcome = outcome
        lastIssued = issued
        lastFailure = nil
    }

    func report(failure: Error) {
        lastOutcome = String(describing: failure)
        lastIssued = nil
        lastFailure = failure
    }
}
