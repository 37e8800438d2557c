import CLupCore
import CLupProtocol
import CLupStore
import Foundation
import Logging

/// The day's queue, door and occupancy ledger, kept in the store.
///
/// A command runs on a copy of the day, which is then settled on the copy (no-shows ended,
/// tickets called while there is room); the command's events, the settling's and the rows
/// they touch are committed in one transaction (an fsync of the WAL), and only then does the
/// copy become the day, so nothing is acted on before it is committed. Commits run here, on
/// the loop, inside the command that causes them: the order of the event log is the order
/// of the commands, and the loop waits one fsync per command, calls included. Then the
/// desk's observers are told what the settling did.
final class QueueDesk {
    /// A command worked out on a copy of the day, not committed yet.
    struct Pending {
        let events: [DomainEvent]
        let next: DayState
        let at: Moment
    }

    /// The rules and the calendar in force (a reload may change them).
    struct Rules {
        var policy: QueuePolicy
        var dayStartMinute: Int
        var timeZone: TimeZone
        var ticketValidity: TimeInterval
    }

    let store: TotemStore
    private let loop: EventLoop
    private let clock: any Clock
    private let logger: Logger
    var rules: Rules {
        didSet {
            settle()
            // The day may start at another time, or in another time zone, now.
            if dayTimer != nil { watchTheDay() }
        }
    }
    /// Today's tickets, ledgers and exit history, as committed.
    private(set) var day: DayState
    /// Stored rows or events that could not be read (the day was rebuilt from the log).
    private(set) var dataProblems: [String] = []
    /// Why nothing can be recorded (the disk is full), from the write that was refused to
    /// the next that is not; the customer is told at each refusal, this tells the
    /// technician (`clupctl status`, systemd's status line, the metrics, the hub).
    private(set) var storageProblem: String?
    /// Called when `storageProblem` comes or goes.
    var onStorageProblem: (() -> Void)?
    /// Given the events of each commit, after it.
    var onRecorded: (([DomainEvent]) -> Void)?
    /// Who is told of each commit and each settling (`QueueDeskObserver`), held weakly.
    private var observers: [WeakObserver] = []
    private var expiryTimer: EventLoop.TimerID?
    /// Starts the next business day (`watchTheDay`).
    private var dayTimer: EventLoop.TimerID?
    /// What the desk reads of the hub (how far it holds the log, its clock); nil: nothing
    /// is known, and nothing is trimmed.
    var hub: (any HubPosition)?
    /// The business day the audit trail was last trimmed on (`trimAuditTrail`).
    private var trailTrimmedOn: BusinessDay?

    /// The audit trail a totem keeps: 90 days, and a bound of this many entries. Once a day
    /// the entries the hub holds are trimmed to `auditTrailKeptShare` of the bound, so the
    /// warning at 80 % (`AuditTrailFill`) means more is piling up than a day's trim takes
    /// away, or the hub is not taking it, and nothing it does not hold is ever deleted.
    static let auditTrailDays = 90.0
    static let auditTrailEntries = 50_000
    static let auditTrailKeptShare = 0.75
    /// The bound of the trail in force (`auditTrailEntries`; a test sets a small one).
    var auditTrailBound = QueueDesk.auditTrailEntries
    /// The audit entries kept now: counted at start and after each trim, added to as kept.
    private(set) var auditEntries = 0
    /// Whether the trail's warning was logged (again once it was below the share).
    private var warnedOfTheTrail = false

    /// How full the audit trail is, for the status, the metrics and the hub.
    var auditTrailFill: AuditTrailFill { AuditTrailFill(entries: auditEntries, bound: auditTrailBound) }

    /// Opens today (committing it as opened if it was not), after the last day the store keeps.
    init(store: TotemStore, rules: Rules, loop: EventLoop, clock: any Clock, logger: Logger) throws {
        self.store = store
        self.rules = rules
        self.loop = loop
        self.clock = clock
        self.logger = logger
        day = DayState(businessDay: BusinessDay("0000-00-00"))
        day = try openDay(businessDay, after: nil)
        countTheAuditTrail()
    }

    /// The business day the clock is in.
    var businessDay: BusinessDay {
        BusinessDay(containing: clock.now(), startMinute: rules.dayStartMinute, timeZone: rules.timeZone)
    }

    /// Works `command` out on a copy of the day, without committing it.
    func prepare(_ command: (inout DayState, Moment) throws -> [DomainEvent]) throws -> Pending {
        rollOverIfNeeded()
        let now = clock.moment().with(hubOffset: hub?.measuredClockOffset)
        var next = day
        let events = try command(&next, now)
        return Pending(events: events, next: next, at: now)
    }

    /// Commits what `prepare` worked out with the queue settled on it, in one transaction,
    /// and adopts it; returns the command's events.
    @discardableResult
    func commit(_ pending: Pending, changing employees: StaffChange? = nil) throws -> [DomainEvent] {
        guard !pending.events.isEmpty else {
            day = pending.next
            return []
        }
        var next = pending.next
        let now = clock.moment()
        let settled = Self.settling(&next, at: now, policy: rules.policy)
        try keep(pending.events + settled, state: next, at: pending.at.wall, employees: employees)
        day = next
        KioskMetrics.recorded(pending.events + settled)
        tellCommitted()
        afterSettling(settled)
        return pending.events
    }

    /// Commits `events` with `state` in one transaction, and keeps whether the disk was full:
    /// from a write refused for want of space until the next one that is not.
    private func keep(_ events: [DomainEvent], state: DayState, at wall: Date, employees: StaffChange? = nil) throws {
        do {
            try store.commit(events, state: state, at: wall, employees: employees)
        } catch let error as StoreError {
            if case .storageFull = error, storageProblem == nil {
                storageProblem = "NOT RECORDING: \(error.coded.description); tickets and entries are refused until it is freed"
                onStorageProblem?()
            }
            throw error
        }
        if storageProblem != nil, !events.isEmpty {
            storageProblem = nil
            onStorageProblem?()
        }
        if !events.isEmpty { onRecorded?(events) }
    }

    /// The disk has room again, by the daemon's look at it: the problem goes until a write
    /// says otherwise.
    func storageMayBeBack() {
        guard storageProblem != nil else { return }
        storageProblem = nil
        onStorageProblem?()
    }

    /// Keeps what a member of staff did in the event log, with the change to the employees
    /// it describes, in one transaction.
    func audit(_ entries: [AuditEntry], changing employees: StaffChange? = nil) throws {
        let pending = try prepare { day, now in entries.flatMap { day.audit($0, at: now) } }
        try keep(pending.events, state: pending.next, at: pending.at.wall, employees: employees)
        day = pending.next
        KioskMetrics.recorded(pending.events)
        auditEntries += pending.events.count
        warnIfTheTrailIsNearlyFull()
        if !pending.events.isEmpty { tellCommitted() }
    }

    /// Counts the audit entries kept (at start, and after a trim).
    private func countTheAuditTrail() {
        do {
            auditEntries = try store.auditTrailCount()
        } catch {
            logger.error("the audit trail could not be counted", metadata: ["error": "\(error)"])
        }
        warnIfTheTrailIsNearlyFull()
    }

    /// Logs once, as the trail passes its warning share, what `AuditTrailFill.warning` says;
    /// the status, the metrics and the hub show it for as long as it holds.
    private func warnIfTheTrailIsNearlyFull() {
        let fill = auditTrailFill
        guard let warning = fill.warning else {
            warnedOfTheTrail = false
            return
        }
        guard !warnedOfTheTrail else { return }
        warnedOfTheTrail = true
        logger.warning("\(warning)", metadata: ["entries": "\(fill.entries)", "bound": "\(fill.bound)"])
    }

    /// Runs `command`, commits it and settles the queue.
    @discardableResult
    func perform(changing employees: StaffChange? = nil, _ command: (inout DayState, Moment) throws -> [DomainEvent]) throws
        -> [DomainEvent] {
        try commit(try prepare(command), changing: employees)
    }

    /// Ends lapsed admissions and no-shows, calls tickets while there is room, then re-arms
    /// the expiry timer.
    func settle() {
        rollOverIfNeeded()
        let now = clock.moment()
        var next = day
        let events = Self.settling(&next, at: now, policy: rules.policy)
        do {
            try keep(events, state: next, at: now.wall)
            day = next
            KioskMetrics.recorded(events)
            if !events.isEmpty { tellCommitted() }
        } catch {
            logger.error("could not record calls or no-shows", metadata: ["error": "\(error)"])
        }
        afterSettling(events)
    }

    /// What settling `day` at `now` does: admissions lapsed and no-shows ended, then tickets
    /// called while there is room.
    private static func settling(_ day: inout DayState, at now: Moment, policy: QueuePolicy) -> [DomainEvent] {
        day.expireWindows(at: now, policy: policy) + day.callWhileRoom(at: now, policy: policy)
    }

    /// Once a settling's `events` are committed: the trail trimmed (once a day), the calls
    /// logged, the next expiry armed, and the observers told.
    private func afterSettling(_ events: [DomainEvent]) {
        trimAuditTrail()
        log(events)
        armExpiryTimer()
        for observer in observers.compactMap(\.value) { observer.desk(self, settled: events) }
    }

    /// From now on, tells `observer` of each commit and each settling (until it is gone).
    func add(_ observer: any QueueDeskObserver) {
        observers.removeAll { $0.value == nil || $0.value === observer }
        observers.append(WeakObserver(value: observer))
    }

    private func tellCommitted() {
        for observer in observers.compactMap(\.value) { observer.desk(self, committed: day) }
    }

    /// Starts the new business day when it begins: a timer on the wall clock, so a clock set
    /// meanwhile (by NTP, by hand) moves it too.
    func watchTheDay() {
        loop.cancel(dayTimer)
        dayTimer = nil
        guard let start = ClockFace(timeZone: rules.timeZone).next(minuteOfDay: rules.dayStartMinute, after: clock.now()) else { return }
        dayTimer = loop.schedule(at: start) { [unowned self] in
            settle()   // rolls the day over
            watchTheDay()
        }
    }

    private func log(_ events: [DomainEvent]) {
        for event in events {
            switch event {
            case let .ticketCalled(number, _, _, reason, _):
                logger.info("ticket called", metadata: ["number": "\(number)", "reason": "\(reason)"])
            case let .ticketNoShow(number, _, _):
                logger.info("ticket did not come to the door in time", metadata: ["number": "\(number)"])
            case let .admissionLapsed(number, _, _):
                logger.info("nobody passed the released turnstile; the ticket is called again", metadata: ["number": "\(number)"])
            default:
                break
            }
        }
    }

    private func armExpiryTimer() {
        loop.cancel(expiryTimer)
        expiryTimer = nil
        // The loop's timers run on the monotonic clock, as the windows do.
        guard let seconds = day.secondsToNextExpiry(at: clock.moment(), policy: rules.policy) else { return }
        expiryTimer = loop.schedule(after: seconds) { [unowned self] in
            expiryTimer = nil
            settle()
        }
    }

    /// Once a business day, as soon as the hub's position is known, deletes the audit entries
    /// past the totem's keeping that the hub holds (it keeps the trail for good).
    private func trimAuditTrail() {
        guard trailTrimmedOn != day.businessDay, let held = hub?.acknowledgedSeq else { return }
        trailTrimmedOn = day.businessDay
        do {
            let gone = try store.pruneAuditTrail(keptBefore: clock.now().addingTimeInterval(-Self.auditTrailDays * 86_400),
                                                 keeping: Int(Double(auditTrailBound) * Self.auditTrailKeptShare), held: held)
            if gone > 0 { logger.info("old audit entries the hub holds deleted", metadata: ["entries": "\(gone)"]) }
            countTheAuditTrail()
        } catch {
            logger.error("the audit trail could not be trimmed", metadata: ["error": "\(error)"])
        }
    }

    /// At the configured day start a new business day begins: numbers start again, and
    /// people inside and tickets still in play carry over (`DayState.open`).
    private func rollOverIfNeeded() {
        let today = businessDay
        guard today != day.businessDay else { return }
        do {
            day = try openDay(today, after: day)
            tellCommitted()
            logger.info("new business day", metadata: ["day": "\(today)", "carried tickets": "\(day.tickets.count)",
                                                       "inside": "\(day.inside)"])
        } catch {
            logger.error("could not open the new business day", metadata: ["error": "\(error)"])
        }
    }

    /// `today` as kept, opened (and committed as opened) if it was not yet, after
    /// `previous` or else the last day the store holds.
    private func openDay(_ today: BusinessDay, after previous: DayState?) throws -> DayState {
        let (stored, problems) = try store.openDay(today)
        for problem in problems {
            logger.error("stored data could not be read", metadata: ["problem": "\(problem)"])
        }
        dataProblems += problems
        guard !stored.isOpen else { return stored }
        var before = previous
        if before == nil, let last = try store.dayBefore(today) {
            before = try store.openDay(last).state
        }
        let now = clock.moment()
        var opened = stored
        let events = opened.open(after: before, at: now, ticketValidity: rules.ticketValidity)
        try keep(events, state: opened, at: now.wall)
        KioskMetrics.recorded(events)
        return opened
    }

    /// How long a new ticket in `lane` would wait now.
    func estimatedWait(for lane: Lane, defaultMinutes: Int) -> WaitEstimate {
        day.estimatedWait(for: lane, at: clock.moment(), policy: rules.policy, defaultMinutes: defaultMinutes)
    }
}

/// What a `QueueDesk` tells those who follow it: the kiosk (calls to announce, the screen to
/// redraw), the hub's link (the door's figures). Both have a default that does nothing.
protocol QueueDeskObserver: AnyObject {
    /// The day, after a commit that recorded something.
    func desk(_ desk: QueueDesk, committed day: DayState)
    /// What a settling did (calls, no-shows, lapsed admissions; maybe nothing), after it.
    func desk(_ desk: QueueDesk, settled events: [DomainEvent])
}

extension QueueDeskObserver {
    func desk(_ desk: QueueDesk, committed day: DayState) {}
    func desk(_ desk: QueueDesk, settled events: [DomainEvent]) {}
}

/// What the desk reads of the hub: how far it holds the event log (the audit trail is
/// trimmed of that alone), and the totem's clock minus the hub's as last measured (a
/// ticket's place in the line is taken on the hub's clock, `LineOrder`). Nil: not known.
protocol HubPosition: AnyObject, Sendable {
    var acknowledgedSeq: Int64? { get }
    var measuredClockOffset: Double? { get }
}

private struct WeakObserver {
    weak var value: (any QueueDeskObserver)?
}
