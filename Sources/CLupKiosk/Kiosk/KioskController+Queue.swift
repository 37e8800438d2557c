import CLupCore
import Foundation

extension KioskController {
    /// Runs `command` on a copy of today's state, commits its events and the changed rows in
    /// one transaction, and only then adopts the new state. Then calls whoever the freed
    /// room allows and redraws.
    @discardableResult
    func perform(_ command: (inout DayState, Moment) throws -> [DomainEvent]) throws -> [DomainEvent] {
        rollOverIfNeeded()
        let now = clock.moment()
        var next = day
        let events = try command(&next, now)
        try store.commit(events, state: next, at: now.wall)
        day = next
        if !events.isEmpty { settleQueue() }
        return events
    }

    /// Ends lapsed admissions and no-shows, calls tickets while there is room, then re-arms
    /// the expiry timer.
    func settleQueue() {
        rollOverIfNeeded()
        let now = clock.moment()
        var next = day
        let events = next.expireWindows(at: now, policy: config.policy) + next.callWhileRoom(at: now, policy: config.policy)
        do {
            try store.commit(events, state: next, at: now.wall)
            day = next
        } catch {
            logger.error("could not record calls or no-shows", metadata: ["error": "\(error)"])
        }
        for event in events {
            switch event {
            case let .ticketCalled(number, _, _, reason, _):
                logger.info("ticket called", metadata: ["number": "\(number)", "reason": "\(reason)"])
            case let .ticketNoShow(number, _, _):
                logger.info("ticket did not come to the door in time", metadata: ["number": "\(number)"])
            case let .admissionLapsed(number, _, _):
                logger.info("nobody passed the released turnstile; the ticket is called again",
                            metadata: ["number": "\(number)"])
            default:
                break
            }
        }
        armExpiryTimer()
        refreshScreen()
    }

    private func armExpiryTimer() {
        loop.cancel(expiryTimer)
        expiryTimer = nil
        // The loop's timers run on the monotonic clock, as the windows do.
        guard let seconds = day.secondsToNextExpiry(at: clock.moment(), policy: config.policy) else { return }
        expiryTimer = loop.schedule(after: seconds) { [unowned self] in
            self.expiryTimer = nil
            self.settleQueue()
        }
    }

    /// At the configured day start a new business day begins: numbers start again, and
    /// people inside and tickets still in play carry over (`DayState.open`).
    func rollOverIfNeeded() {
        let today = businessDay
        guard today != day.businessDay else { return }
        do {
            day = try openDay(today, after: day)
            logger.info("new business day", metadata: ["day": "\(today)", "carried tickets": "\(day.tickets.count)",
                                                       "inside": "\(day.inside)"])
        } catch {
            logger.error("could not open the new business day", metadata: ["error": "\(error)"])
        }
    }

    /// `today` as kept, opened (and committed as opened) if it was not yet, after
    /// `previous` or else the last day the store holds.
    func openDay(_ today: BusinessDay, after previous: DayState?) throws -> DayState {
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
        let events = opened.open(after: before, at: now, ticketValidity: Double(config.ticketValidMinutes) * 60)
        try store.commit(events, state: opened, at: now.wall)
        return opened
    }

    /// How long a new ticket in `lane` would wait now.
    func estimatedWait(for lane: Lane) -> WaitEstimate {
        day.estimatedWait(for: lane, at: clock.moment(), policy: config.policy, defaultMinutes: config.defaultWaitMinutes)
    }
}
