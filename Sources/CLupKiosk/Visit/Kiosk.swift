import CLupCore
import CLupHardware
import CLupPrinting
import Crypto
import Foundation
import Logging

/// The devices the kiosk drives, whichever backends they have.
struct KioskDevices {
    let display: Display
    let touchscreen: Touchscreen
    let presence: PresenceSensor
    let turnstile: Turnstile
    let reader: DoorReader
    /// The spoken guidance; nil when `voice.enabled` is false.
    let voice: Voice?
    /// The headphone jack; nil where the totem has none.
    var headset: HeadsetJack?
    /// A second screen, above the door, that shows the numbers called alone; nil: none.
    var callingBoard: Display?
    /// The USB ticket printer's port, for its paper and error lines; nil: none named.
    var printerPort: PrinterPortWatch?
}

/// The loop the kiosk runs on, its clock and its log.
struct KioskRuntime {
    let loop: EventLoop
    let clock: any Clock
    let logger: Logger
}

/// What a device event or a staff request did: a sentence for the shell, and the ticket it
/// issued or why it was refused.
struct KioskOutcome: Equatable {
    let sentence: String
    var ticket: TicketNumber?
    var refusal: CodedError?

    init(_ sentence: String, ticket: TicketNumber? = nil) {
        self.sentence = sentence
        self.ticket = ticket
    }

    init(refused refusal: CodedError) {
        sentence = refusal.description
        self.refusal = refusal
    }
}

/// The kiosk's application: turns device events into the screen flow, the queue's commands
/// and their effects (printing, the turnstile, drawing, speaking).
///
/// Runs on the event loop. The pieces it joins are each testable alone: the screens
/// (`ScreenFlow`, pure), the queue and the door (`QueueDesk`, which commits every command
/// before its result is acted on), the printer (`PrintSpooler`, running `PrintJob`s).
final class Kiosk {
    /// The configuration in force; `adopt` replaces it when clupd reloads its file.
    private(set) var config: KioskConfiguration
    let devices: KioskDevices
    let desk: QueueDesk
    let spooler: PrintSpooler
    /// The paper on the roll, counted as prints come out (set by the daemon).
    var paper: PaperRoll?
    let runtime: KioskRuntime
    var loop: EventLoop { runtime.loop }
    var clock: any Clock { runtime.clock }
    var logger: Logger { runtime.logger }
    /// Signs this totem's tickets and judges the codes read at its door.
    var authority: TicketAuthority
    /// The screen shown, where its buttons sit, and what it waits for.
    var screens: ScreenState
    /// Whether the display was missing or faulty at the last look at the devices.
    private var displayWasDown = false
    /// Likewise the calling board above the door.
    private var boardWasDown = false
    /// The kiosk's timers running: the screen flow's, the store's hours, the look at the devices.
    var timers: [Timer: EventLoop.TimerID] = [:]
    /// Says the tickets called, and shows them on the calling board.
    private(set) lazy var caller = Caller(desk: desk, voice: devices.voice, board: devices.callingBoard,
                                          runtime: runtime) { [unowned self] in
        Caller.Settings(repeatSeconds: config.screen.callRepeatSeconds, language: config.tickets.languages.first ?? "en")
    }
    /// Books places through the hub for "Book a later time"; nil where there is no hub.
    var hubBookings: HubBookingDesk?
    /// The PIN pad's lock after wrong PINs.
    var padLock: PadLock
    /// Devices lent to a technician's self-test or calibration: what they report goes there.
    var maintenance: MaintenanceHold?

    /// What the kiosk waits for, as data: at most one timer of each runs.
    enum Timer: Hashable {
        /// One of the screen flow's (`ScreenFlow.Timer`).
        case screen(ScreenFlow.Timer)
        /// Tells the flow the store opened or closed, at the time it does.
        case hours
        /// The next look at the devices.
        case devices
        /// The next look at the printer's port.
        case printerPort
    }

    /// (Re)starts `timer`: `fire` runs when it is up, unless it was stopped or started again before.
    func start(_ timer: Timer, after seconds: Double, _ fire: @escaping () -> Void) {
        loop.cancel(timers[timer])
        timers[timer] = loop.schedule(after: seconds) { [unowned self] in
            timers[timer] = nil
            fire()
        }
    }

    /// The same on the wall clock: up at `date` (a clock set by NTP moves it).
    func start(_ timer: Timer, at date: Date, _ fire: @escaping () -> Void) {
        loop.cancel(timers[timer])
        timers[timer] = loop.schedule(at: date) { [unowned self] in
            timers[timer] = nil
            fire()
        }
    }

    func stop(_ timer: Timer) {
        loop.cancel(timers.removeValue(forKey: timer))
    }

    /// How often the devices are looked at while they work: a framebuffer given another mode
    /// tells nobody, nor does a screen's connector on a card without hotplug detection (a
    /// touch panel that goes or comes back does, at once, and so does a DRM connector whose
    /// driver sends the kernel's hotplug uevent: HDMI and DisplayPort do). Few wakeups
    /// while nobody is there (KioskTimeOfDayTests).
    static let deviceLookSeconds = 30.0

    /// How often the USB printer's port is read, where one is named: its lines are the only
    /// word of a printer out of paper before a ticket fails on it (CUPS's usb backend never
    /// asks), so this is how soon the screen says so.
    static let printerPortLookSeconds = 2.0

    /// Told when what the printer's port says changes (the hub hears the printer's health).
    var onPrinterPortChange: (() -> Void)?

    init(config: KioskConfiguration, devices: KioskDevices, desk: QueueDesk, spooler: PrintSpooler,
         key: Curve25519.Signing.PrivateKey, runtime: KioskRuntime) {
        self.config = config
        self.devices = devices
        self.desk = desk
        self.spooler = spooler
        self.runtime = runtime
        authority = TicketAuthority(config, key: key)
        screens = ScreenState(flow: ScreenFlow(language: config.tickets.languages.first ?? "en"),
                              geometry: Self.geometry(of: devices.display, config))
        padLock = Self.padLock(from: desk.store, lockSeconds: config.screen.pinLockSeconds, now: runtime.clock.now())
    }

    /// Where things sit on `display`: its size in pixels, and in millimetres as the display
    /// tells it, else as `[screen]` says.
    static func geometry(of display: Display, _ config: KioskConfiguration) -> ScreenGeometry {
        var geometry = ScreenGeometry(width: Double(display.width), height: Double(display.height), panel: config.screen,
                                      offersBookings: takesBookings(config))
        if let millimetres = display.physicalSizeMM { (geometry.widthMM, geometry.heightMM) = millimetres }
        return geometry
    }

    /// Whether the store takes bookings at the totem: a booking share and slots.
    static func takesBookings(_ config: KioskConfiguration) -> Bool {
        config.queue.bookingsPerSlot > 0 && config.queue.slotLength > 0
    }

    /// Connects the devices, settles what a restart interrupted and shows the first screen.
    func start() {
        devices.presence.onChange = { [unowned self] in logged(receive(.presence($0))) }
        devices.touchscreen.onGesture = { [unowned self] in logged(receive(.touch($0))) }
        devices.turnstile.onPassage = { [unowned self] in logged(receive(.passage($0))) }
        devices.reader.onRead = { [unowned self] in logged(receive(.read($0))) }
        devices.headset?.onChange = { [unowned self] in logged(receive(.headset($0))) }
        devices.touchscreen.onHealthChange = { [unowned self] in watchTheDevices() }
        devices.display.onHealthChange = { [unowned self] in watchTheDevices() }
        spooler.onAccepted = { [unowned self] number, job in recordAccepted(number, job: job) }
        spooler.onEnded = { [unowned self] number, outcome in printEnded(number, outcome) }
        desk.add(self)
        settleInterruptedPrints()
        desk.settle()
        desk.watchTheDay()
        redraw()
        watchTheHours()
        watchTheDevices()
        watchThePrinterPort()
    }

    /// Puts a reloaded configuration in force (the caller kept the keys only a restart
    /// changes): the queue rules, the printer, ticket validity and texts, the other totems'
    /// keys. Tickets already printed keep what they were given.
    func adopt(_ next: KioskConfiguration) {
        config = next
        authority.adopt(next)
        spooler.printer = CUPSPrinter(queue: next.printer.queue)
        spooler.model = next.printer.model
        spooler.timeout = next.printer.timeoutSeconds
        desk.rules = Self.rules(next)
        screens.geometry = Self.geometry(of: devices.display, next)
        padLock.lockSeconds = next.screen.pinLockSeconds
        watchTheHours()
    }

    /// The queue's rules and calendar as `config` sets them.
    static func rules(_ config: KioskConfiguration) -> QueueDesk.Rules {
        QueueDesk.Rules(policy: config.queue, dayStartMinute: config.store.businessDayStartMinute,
                        timeZone: config.store.timeZone, ticketValidity: Double(config.tickets.validMinutes) * 60)
    }

    /// With the touch panel gone, the screen says the totem is out of order (rather than
    /// showing buttons nobody can press); when it is back, the kiosk resumes. A display that
    /// failed is given the current screen again. Looked at when the touch panel comes or goes,
    /// every second while a device is in trouble, else every `deviceLookSeconds`.
    private func watchTheDevices() {
        stop(.devices)
        // A display missing is given the screen each look (it may be back); one back (a
        // connector plugged again) is given it once.
        let display = devices.display.health
        if display.state != .ok && !displayWasDown {
            logger.error("the display is gone", metadata: ["detail": "\(display.detail)"])
        } else if display.state == .ok && displayWasDown {
            logger.notice("the display is back", metadata: ["detail": "\(display.detail)"])
        }
        if display.state == .missing || (display.state == .ok && displayWasDown) { redraw() }
        displayWasDown = display.state != .ok
        // The calling board likewise (drawn by the caller): while down it is only looked at
        // (a look opens it again, or probes a DRM card's connectors every few seconds), and
        // drawn once it is back.
        if let board = devices.callingBoard {
            var state = board.health.state
            if state != .ok {
                _ = board.noticeSizeChange()
                state = board.health.state
            }
            if state == .ok && boardWasDown { caller.boardNeedsDrawing() }
            boardWasDown = state != .ok
        }
        if devices.display.noticeSizeChange() {
            // Another mode or another panel: the screens are laid out again for it.
            screens.geometry = Self.geometry(of: devices.display, config)
            logger.notice("the display changed size; the screens are laid out again",
                          metadata: ["size": "\(devices.display.width)x\(devices.display.height)"])
            redraw()
        }
        let working = devices.touchscreen.health.state == .ok
        if working != screens.flow.panelWorking {
            if working {
                logger.notice("the touchscreen is back")
            } else {
                logger.error("the touchscreen is gone; out of order", metadata: ["detail": "\(devices.touchscreen.health.detail)"])
            }
            handle(.panel(working: working))
        }
        // As the display was at this look: one that was down is looked at again in a second
        // (and said back then), whatever the frame drawn meanwhile made of it.
        let trouble = !working || display.state != .ok || boardWasDown
        start(.devices, after: trouble ? 1 : Self.deviceLookSeconds) { [unowned self] in watchTheDevices() }
    }

    /// Reads the USB printer's port off the loop, every `printerPortLookSeconds`: no paper,
    /// a cover open or the printer off line stop the tickets at the entrance (the screen says
    /// why) until its lines are right again.
    private func watchThePrinterPort() {
        guard let port = devices.printerPort else { return }
        let (path, interface, read) = (port.path, port.interface, port.read)
        loop.background({ read(path, interface) }) { [unowned self] result in
            if port.update(result) {
                let detail = port.health.detail
                if port.stopsTickets != nil {
                    logger.error("the printer's port says no ticket can be printed; tickets stop", metadata: ["detail": "\(detail)"])
                } else if port.health.state == .ok {
                    logger.notice("the printer's port says it is ready", metadata: ["detail": "\(detail)"])
                } else {
                    logger.warning("the printer's port cannot be read; CUPS's word alone says what fails",
                                   metadata: ["detail": "\(detail)"])
                }
                updateEntrance()
                onPrinterPortChange?()
            }
            // A port that did not answer held a worker for up to usblp's 5 s: looked at less often.
            let failed = if case .failed = port.reading { true } else { false }
            start(.printerPort, after: failed ? Self.printerPortLookSeconds * 15 : Self.printerPortLookSeconds) { [unowned self] in
                watchThePrinterPort()
            }
        }
    }

    private func logged(_ outcome: KioskOutcome) {
        if let refusal = outcome.refusal {
            logger.warning("device event refused", metadata: ["reason": "\(refusal)"])
        }
    }

    // MARK: Device events

    /// What a device reports, whichever device: every report comes in through `receive`.
    enum DeviceInput {
        case presence(Bool)
        case touch(TouchGesture)
        case passage(PassageDirection)
        case read(WedgeDecoder.Output)
        case headset(Bool)
    }

    /// A device's report: the technician's while a maintenance hold listens to that device
    /// (a test pulse counts nobody, a test scan admits nobody), else the kiosk's.
    func receive(_ input: DeviceInput) -> KioskOutcome {
        if let taken = maintenance?.take(input) { return taken }
        switch input {
        case let .presence(present): return presenceChanged(present)
        case let .touch(gesture): return touched(gesture)
        case let .passage(direction): return passed(direction)
        case let .read(output): return read(output)
        case let .headset(plugged): return headsetChanged(plugged)
        }
    }

    func presenceChanged(_ present: Bool) -> KioskOutcome {
        handle(.presence(present))
        return KioskOutcome(present ? "someone approached; screen \(screens.flow.screen.name)"
                                    : "they left; the screen sleeps after \(Int(config.screen.idleTimeoutSeconds)) s idle")
    }

    func touched(_ gesture: TouchGesture) -> KioskOutcome {
        let arrival = clock.monotonic()
        let wasAsleep = screens.flow.screen == .asleep
        if gesture.kind == .longPress, let outcome = longPressed(gesture) { return outcome }
        // A touch stops what the voice is saying (EN 301 549 5.1.3.5).
        if !wasAsleep { devices.voice?.silence() }
        if screens.flow.exploring, gesture.kind == .drag, !wasAsleep {
            // Explore by touch: a finger slid onto a button hears it, and presses nothing.
            let button = screens.button(atFractionX: gesture.x1, y: gesture.y1)
            return handle(.explore(button?.action)) ?? KioskOutcome("a slide onto no button")
        }
        guard gesture.kind == .tap || wasAsleep else {
            handle(.gesture)
            return KioskOutcome("a \(gesture.kind.rawValue) does nothing here")
        }
        let button = screens.button(atFractionX: gesture.x1, y: gesture.y1)
        let issued = handle(.tap(button?.action), at: arrival)
        if wasAsleep { return KioskOutcome("the touch woke the screen") }
        if let issued { return issued }
        if let button { return KioskOutcome("\(button.action.name) pressed; screen \(screens.flow.screen.name) in \(screens.flow.language)") }
        let (x, y) = (Int(gesture.x1 * screens.geometry.width), Int(gesture.y1 * screens.geometry.height))
        return KioskOutcome("the tap at (\(x), \(y)) hit no button on the \(screens.flow.screen.name) screen")
    }

    func headsetChanged(_ plugged: Bool) -> KioskOutcome {
        handle(.headset(plugged)) ?? KioskOutcome(plugged ? "a headset is in" : "the headset is out")
    }

    func passed(_ direction: PassageDirection) -> KioskOutcome {
        do {
            let events = try desk.perform { day, now in day.pass(direction, door: config.totem.door, at: now) }
            let holder = events.compactMap { event -> TicketNumber? in
                if case let .passage(_, _, _, _, ticket, _) = event { return ticket }
                return nil
            }.first
            return KioskOutcome("passage \(direction.rawValue)" + (holder.map { " by ticket \($0)" } ?? "")
                                + "; \(desk.day.inside) inside")
        } catch {
            logger.error("could not record a passage", metadata: ["error": "\(error)"])
            return KioskOutcome(refused: CodedError(.passageNotRecorded, "passage not recorded: \(error)"))
        }
    }

    /// What the door reader delivered: a code to check, or a scan it could not read.
    func read(_ output: WedgeDecoder.Output) -> KioskOutcome {
        switch output {
        case let .code(code) where code.hasPrefix(Self.staffBadgePrefix):
            return badgeRead(code)
        case let .code(code):
            do {
                switch try scanned(code) {
                case let .admitted(number): return KioskOutcome("admitted \(number): the turnstile is released")
                case let .left(number, minutes): return KioskOutcome("goodbye: \(number) leaves after \(minutes) min in the store")
                }
            } catch {
                if let refusal = error as? Refusal {
                    // Whose code it was decides the language: the ticket's customer's, else the store's.
                    let ticket = DoorWords.number(in: refusal).flatMap { desk.day.tickets[$0] }
                    caller.tellAtTheDoor(DoorWords(refusal), language: ticket.map(caller.language(of:)) ?? config.tickets.languages.first ?? "en")
                }
                return KioskOutcome(refused: CodedError(describing: error))
            }
        case let .refused(reason):
            logger.warning("unreadable scan at the door", metadata: ["reason": "\(reason)"])
            return KioskOutcome(refused: CodedError(.unreadableScan, "unreadable scan: \(reason)"))
        }
    }

    /// What a code read at the door did.
    enum Scan: Equatable {
        /// Its ticket was admitted and the turnstile released.
        case admitted(TicketNumber)
        /// Its ticket came in before: it is on its way out, after so many minutes inside.
        case left(TicketNumber, minutes: Int)
    }

    /// A code read at the door: admits its ticket once and releases the turnstile, or
    /// records the exit of a ticket that came in (the turnstile's exit pulse counts it).
    func scanned(_ code: String) throws -> Scan {
        let events: [DomainEvent]
        do {
            events = try desk.perform { day, now in
                try day.admit(code: code, keyring: authority.keyring, at: now, policy: config.queue, otherDoors: authority.otherDoors)
            }
        } catch let refusal as Refusal {
            logger.warning("scan refused at the door", metadata: ["reason": "\(refusal)"])
            throw refusal
        }
        if case let .ticketLeft(number, _, at)? = events.first {
            let entered = desk.day.tickets[number]?.enteredAt ?? at
            logger.info("left by the door", metadata: ["number": "\(number)"])
            return .left(number, minutes: Int(saturating: (at.timeIntervalSince(entered) / 60).rounded()))
        }
        // A ticket of another door, or a booking made through the hub, first joins the day.
        guard let number = events.lazy.compactMap({ event -> TicketNumber? in
            if case let .ticketAdmitted(number, _, _, _) = event { number } else { nil }
        }).first else {
            throw CodedError(.internalError, "the door admitted no ticket")
        }
        do {
            try devices.turnstile.release()
        } catch {
            // The door stayed shut: give the admission back so the customer can scan again.
            logger.error("the turnstile did not release", metadata: ["number": "\(number)", "error": "\(error)"])
            try desk.perform { day, now in day.lapseAdmission(number, at: now) }
            throw CodedError(.turnstileDidNotOpen, "the turnstile did not open for \(number): \(error)")
        }
        logger.info("admitted at the door", metadata: ["number": "\(number)"])
        return .admitted(number)
    }

    /// How each device is doing; the voice with what it said last.
    var deviceHealth: [DeviceHealth] {
        var health = [devices.display.health, devices.touchscreen.health, devices.presence.health,
                      devices.turnstile.health, devices.reader.health] + (devices.headset.map { [$0.health] } ?? [])
            + (devices.callingBoard.map { board in
                [DeviceHealth(role: "door-screen", backend: board.health.backend, state: board.health.state, detail: board.health.detail)]
            } ?? [])
            + (devices.printerPort.map { [$0.health] } ?? [])
        if let voice = devices.voice {
            let said = voice.lastUtterance.map { "; last said \"\($0)\"" } ?? ""
            health.append(DeviceHealth(role: voice.health.role, backend: voice.health.backend, state: voice.health.state,
                                       detail: voice.health.detail + said))
        }
        return health
    }
}

extension Kiosk: QueueDeskObserver {
    /// After each settling: the calls it made are announced, and the screen shows the day.
    func desk(_ desk: QueueDesk, settled events: [DomainEvent]) {
        caller.announceCalls()
        refreshScreen()
    }
}
