import CLupCore
import CLupDrawing
import CLupHardware
import CLupPrinting
import CLupStore
import Foundation
import Logging

/// The kiosk's application: turns device events into store commands and screens.
///
/// Runs on the event loop. Each command is committed to the store before its effect
/// (printing, redrawing) is performed, so a crash never leaves a printed ticket unrecorded.
final class KioskController {
    let config: KioskConfiguration
    let store: TotemStore
    let loop: EventLoop
    let display: Display
    let touchscreen: Touchscreen
    let presence: PresenceSensor
    let turnstile: Turnstile
    let printJob: TicketPrintJob
    let clock: any Clock
    let logger: Logger

    private let issuer: TicketIssuer
    private let geometry: ScreenGeometry
    private(set) var screen = Screen.asleep
    /// The frame on the display now, for screenshots.
    private(set) var currentFrame: Canvas?
    private var someonePresent = false
    private var idleTimer: EventLoop.TimerID?
    private var resultTimer: EventLoop.TimerID?
    /// What the last device event did, in one sentence, for the shell.
    private(set) var lastOutcome = ""
    private(set) var lastIssued: TicketNumber?

    init(config: KioskConfiguration, store: TotemStore, loop: EventLoop, display: Display,
         touchscreen: Touchscreen, presence: PresenceSensor, turnstile: Turnstile,
         printJob: TicketPrintJob, clock: any Clock, logger: Logger) {
        self.config = config
        self.store = store
        self.loop = loop
        self.display = display
        self.touchscreen = touchscreen
        self.presence = presence
        self.turnstile = turnstile
        self.printJob = printJob
        self.clock = clock
        self.logger = logger
        issuer = TicketIssuer(store: config.storeID, totem: config.totemLetter,
                              validMinutes: config.ticketValidMinutes)
        geometry = ScreenGeometry(width: Double(display.width), height: Double(display.height))
    }

    /// Connects the devices and shows the first screen.
    func start() throws {
        presence.onChange = { [unowned self] present in self.presenceChanged(present) }
        touchscreen.onGesture = { [unowned self] gesture in self.touched(gesture) }
        turnstile.onPassage = { [unowned self] direction in self.passed(direction) }
        try show(.asleep)
    }

    var businessDay: BusinessDay {
        BusinessDay(containing: clock.now(), startMinute: config.businessDayStartMinute,
                    timeZone: config.timeZone)
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
        case .getTicket: issueTicket(.regular)
        }
    }

    func passed(_ direction: PassageDirection) {
        do {
            let ledger = try store.recordPassage(direction, door: config.doorName, businessDay: businessDay,
                                                 at: clock.now())
            report("passage \(direction.rawValue); \(ledger.inside) inside")
            if screen == .welcome { showOrLog(.welcome) }
        } catch {
            logger.error("could not record a passage", metadata: ["error": "\(error)"])
            report("E-KSK-002 passage not recorded: \(error)")
        }
    }

    // MARK: Tickets

    private func issueTicket(_ lane: Lane) {
        let day = businessDay
        let ticket: Ticket
        do {
            ticket = try store.issueTicket(lane: lane, issuer: issuer, businessDay: day, at: clock.now())
        } catch {
            logger.error("could not record a ticket", metadata: ["error": "\(error)"])
            showOrLog(.printFailed(reason: "E-KSK-001 the ticket could not be recorded"))
            report("E-KSK-001 no ticket: \(error)")
            return
        }
        logger.info("ticket issued", metadata: ["number": "\(ticket.number)", "day": "\(day)"])
        showOrLog(.printing(number: ticket.number.description))
        report("ticket \(ticket.number) recorded and sent to the printer", issued: ticket.number)

        let content = ticketContent(ticket)
        let title = "\(ticket.number)-\(day)"
        let job = printJob
        loop.background({ job.run(content, title: title) }) { [unowned self] outcome in
            self.printFinished(ticket, outcome: outcome)
        }
    }

    private func printFinished(_ ticket: Ticket, outcome: JobOutcome) {
        do {
            switch outcome {
            case let .completed(job):
                try store.markPrinted(ticket.number, businessDay: ticket.businessDay, job: job, at: clock.now())
                logger.info("ticket printed", metadata: ["number": "\(ticket.number)", "job": "\(job)"])
                showOrLog(.ticketReady(number: ticket.number.description, wait: waitText))
            case let .failed(job, reason):
                try store.markPrintFailed(ticket.number, businessDay: ticket.businessDay,
                                          reason: reason.description, at: clock.now())
                logger.error("ticket not printed", metadata: ["number": "\(ticket.number)",
                                                              "job": "\(job.map(String.init) ?? "-")",
                                                              "reason": "\(reason)"])
                showOrLog(.printFailed(reason: reason.description))
            }
        } catch {
            logger.error("could not record the print outcome", metadata: ["error": "\(error)"])
        }
        loop.cancel(resultTimer)
        resultTimer = loop.schedule(after: config.resultScreenSeconds) { [unowned self] in
            self.resultTimer = nil
            self.showOrLog(self.someonePresent ? .welcome : .asleep)
        }
    }

    private var waitText: String {
        "Estimated wait: about \(config.defaultWaitMinutes) min"
    }

    private func ticketContent(_ ticket: Ticket) -> TicketContent {
        let formatter = DateFormatter()
        formatter.timeZone = config.timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let laneLabel = switch ticket.lane {
        case .regular: "Queue ticket"
        case .priority: "Priority ticket"
        case .booking: "Booked visit"
        }
        return TicketContent(storeName: config.storeName, number: ticket.number.description,
                             laneLabel: laneLabel, issuedAt: formatter.string(from: ticket.issuedAt),
                             estimatedWait: waitText, code: ticket.code,
                             instruction: "Scan this code at the door when your number is called")
    }

    // MARK: Screen

    private func restartIdleTimer() {
        loop.cancel(idleTimer)
        idleTimer = loop.schedule(after: config.idleTimeoutSeconds) { [unowned self] in
            self.idleTimer = nil
            guard !self.someonePresent else { return }
            // While a ticket prints, the result screen's own timer puts the screen to sleep.
            if case .printing = self.screen { return }
            self.showOrLog(.asleep)
        }
    }

    func show(_ next: Screen) throws {
        let day = businessDay
        let facts = ScreenFacts(storeName: config.storeName,
                                inside: try store.ledger(on: day).inside,
                                waiting: try store.waitingCount(on: day))
        let frame = try ScreenRenderer(geometry: geometry).render(next, facts: facts)
        if next == .asleep {
            try display.sleep()
        } else {
            try display.show(frame)
        }
        screen = next
        currentFrame = frame
    }

    private func showOrLog(_ next: Screen) {
        do {
            try show(next)
        } catch {
            logger.error("could not draw the \(next.name) screen", metadata: ["error": "\(error)"])
        }
    }

    private func report(_ outcome: String, issued: TicketNumber? = nil) {
        lastOutcome = outcome
        lastIssued = issued
    }
}
