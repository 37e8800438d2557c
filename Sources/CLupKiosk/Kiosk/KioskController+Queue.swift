import CLupCore
import Foundation

extension KioskController {
    /// Runs `command` on a copy of today's state, commits its events and the changed rows in
    /// one transaction, and only then adopts the new state. Then calls whoever the freed
    /// room allows and redraws.
    @discardableResult
    func perform(_ command: (inout DayState, Date) throws -> [DomainEvent]) throws -> [DomainEvent] {
        rollOverIfNeeded()
        let now = clock.now()
        var next = day
        let events = try command(&next, now)
        try store.commit(events, state: next, at: now)
        day = next
        if !events.isEmpty { settleQueue() }
        return events
    }

    /// Ends lapsed admissions and no-shows, calls tickets while there is room, then re-arms
    /// the expiry timer.
    func settleQueue() {
        rollOverIfNeeded()
        let now = clock.now()
        var next = day
        let events = next.expireWindows(at: now, policy: config.policy) + next.callWhileRoom(at: now, policy: config.policy)
        do {
            try store.commit(events, state: next, at: now)
            day = next
        } catch {
            logger.error("could not record calls or no-shows", metadata: ["error": "\(error)"])
        }
        for event in events {
            switch event {
            case let .ticketCalled(number, _, _, reason):
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
        guard let deadline = day.nextExpiry(policy: config.policy) else { return }
        expiryTimer = loop.schedule(after: max(0, deadline.timeIntervalSince(clock.now()))) { [unowned self] in
            self.expiryTimer = nil
            self.settleQueue()
        }
    }

    /// At the configured day start the queue and the counts begin anew.
    private func rollOverIfNeeded() {
        let today = businessDay
        guard today != day.businessDay else { return }
        do {
            day = try store.loadDay(today)
            logger.info("new business day", metadata: ["day": "\(today)"])
        } catch {
            logger.error("could not open the new business day", metadata: ["error": "\(error)"])
        }
    }

    /// How long a new ticket in `lane` would wait now.
    func estimatedWait(for lane: Lane) -> WaitEstimate {
        day.estimatedWait(for: lane, at: clock.now(), policy: config.policy, defaultMinutes: config.defaultWaitMinutes)
    }
}
