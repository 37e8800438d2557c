import CLupCore
import CLupDrawing
import Foundation

/// "Now calling": a ticket called is said aloud in its customer's language ("Number A 17,
/// please go to the door"), and again every `screen.call_repeat_seconds` until it reaches
/// the door or its window ends, so the customer never has to watch the totem. The screen,
/// when nobody stands at it, shows the numbers called.
extension Kiosk {
    /// After every settling of the queue: says the tickets newly called, forgets those that
    /// are no longer called.
    func announceCalls() {
        for ticket in calledTickets where announced[ticket.number] == nil { announce(ticket) }
        forgetCallsEnded()
        armCallRepeat()
        showOnTheBoard()
    }

    /// The numbers called, on the second screen above the door when there is one: drawn
    /// again when they change, dark when none is called.
    func showOnTheBoard() {
        guard let board = devices.callingBoard else { return }
        let called = calledTickets.map(\.number.description)
        guard called != boardShows else { return }
        boardShows = called
        guard !called.isEmpty else {
            do { try board.sleep() } catch { logger.error("could not darken the calling board", metadata: ["error": "\(error)"]) }
            return
        }
        let renderer = ScreenRenderer(geometry: ScreenGeometry(width: Double(board.width), height: Double(board.height)))
        let language = config.tickets.languages.first ?? "en"
        loop.background({ DrawnFrame(canvas: Result { try renderer.renderCallingBoard(called, language: language) }) }) {
            [unowned self] frame in
            // Only the newest list is shown.
            guard called == boardShows else { return }
            do {
                try board.show(try frame.canvas.get())
            } catch {
                logger.error("could not draw the calling board", metadata: ["error": "\(error)"])
            }
        }
    }

    /// This totem's tickets called now, the longest called first.
    var calledTickets: [Ticket] {
        desk.day.tickets.values.filter { $0.state == .called }
            .sorted { ($0.calledAt ?? $0.issuedAt, $0.number.description) < ($1.calledAt ?? $1.issuedAt, $1.number.description) }
    }

    /// The speaker was silenced (the customer in front left): a call it may have cut is said again.
    func repeatCallsCutShort() {
        let now = clock.monotonic()
        for (number, at) in announced where now - at < 10 {
            guard let ticket = desk.day.tickets[number], ticket.state == .called else { continue }
            announce(ticket)
        }
    }

    /// Says `ticket`'s call and notes when.
    private func announce(_ ticket: Ticket) {
        announced[ticket.number] = clock.monotonic()
        let texts = TextCatalog.of(ticketLanguage(ticket))
        devices.voice?.say(texts(.spokenCall, ["number": texts.spokenNumber(ticket.number.description)]), language: texts.language)
        logger.info("ticket called aloud", metadata: ["number": "\(ticket.number)", "language": "\(texts.language)"])
    }

    /// Tickets no longer called (admitted, lapsed) are no longer said.
    private func forgetCallsEnded() {
        announced = announced.filter { number, _ in desk.day.tickets[number]?.state == .called }
    }

    private func armCallRepeat() {
        guard callRepeatTimer == nil, !announced.isEmpty else { return }
        let every = config.screen.callRepeatSeconds
        callRepeatTimer = loop.schedule(after: every) { [unowned self] in
            callRepeatTimer = nil
            let now = clock.monotonic()
            for ticket in calledTickets {
                guard let at = announced[ticket.number], now - at >= every - 0.5 else { continue }
                announce(ticket)
            }
            forgetCallsEnded()
            armCallRepeat()
        }
    }
}
