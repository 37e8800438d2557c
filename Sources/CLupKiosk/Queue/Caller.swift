import Logging
import CLupCore
import CLupDrawing
import CLupHardware
import Foundation

/// "Now calling": a ticket called is said aloud in its customer's language ("Number A 17,
/// please go to the door"), and again every `screen.call_repeat_seconds` until it reaches
/// the door or its window ends, so the customer never has to watch the totem; the calling
/// board above the door, where there is one, shows the numbers called.
final class Caller {
    /// What the caller reads of the configuration in force (a reload may change it).
    struct Settings {
        /// How often a call is said again, in seconds.
        var repeatSeconds: Double
        /// The store's first language: the board's, and a ticket's without one of its own.
        var language: String
    }

    private let desk: QueueDesk
    private let voice: Voice?
    private let board: Display?
    private let runtime: KioskRuntime
    private let settings: () -> Settings
    /// Tickets called now and when each was last said aloud (monotonic seconds).
    private var announced: [TicketNumber: Double] = [:]
    private var repeatTimer: EventLoop.TimerID?
    /// The numbers the calling board shows (nil: nothing drawn on it yet).
    private var boardShows: [String]?
    /// Ends the door's words to a person whose code was refused (`tellAtTheDoor`); the
    /// numbers wait until then.
    private var doorWordsTimer: EventLoop.TimerID?
    /// The words on the board meanwhile, and their language.
    private var doorWordsShown: (words: DoorWords, language: String)?
    /// How long the door's words stay on the board.
    static let doorWordsSeconds = 8.0

    init(desk: QueueDesk, voice: Voice?, board: Display?, runtime: KioskRuntime, settings: @escaping () -> Settings) {
        self.desk = desk
        self.voice = voice
        self.board = board
        self.runtime = runtime
        self.settings = settings
        // A board on a connector plugged back (or in another mode) is drawn again.
        board?.onHealthChange = { [unowned self] in boardNeedsDrawing() }
    }

    /// The board is back, or in another size: it is drawn again (the kiosk calls this when
    /// its look finds the board back; a DRM board's connector also tells).
    func boardNeedsDrawing() {
        guard let board, board.health.state != .missing else { return }
        _ = board.noticeSizeChange()
        boardShows = nil
        showOnTheBoard()
    }

    /// After every settling of the queue: says the tickets newly called, forgets those that
    /// are no longer called.
    func announceCalls() {
        for ticket in calledTickets where announced[ticket.number] == nil { announce(ticket) }
        forgetCallsEnded()
        armRepeat()
        showOnTheBoard()
    }

    /// This totem's tickets called now, the longest called first.
    var calledTickets: [Ticket] {
        desk.day.tickets.values.filter { $0.state == .called }
            .sorted { ($0.calledAt ?? $0.issuedAt, $0.number.description) < ($1.calledAt ?? $1.issuedAt, $1.number.description) }
    }

    /// The speaker was silenced (the customer in front left): a call it may have cut is said again.
    func repeatCallsCutShort() {
        let now = runtime.clock.monotonic()
        for (number, at) in announced where now - at < 10 {
            guard let ticket = desk.day.tickets[number], ticket.state == .called else { continue }
            announce(ticket)
        }
    }

    /// The language `ticket` is said and printed in: its customer's, if the totem speaks it.
    func language(of ticket: Ticket) -> String {
        ticket.language.flatMap { TextCatalog.all[$0] == nil ? nil : $0 } ?? settings().language
    }

    /// The numbers called, on the second screen above the door when there is one: drawn
    /// again when they change, dark when none is called.
    private func showOnTheBoard() {
        guard let board, doorWordsTimer == nil else { return }
        let called = calledTickets.map(\.number.description)
        guard called != boardShows else { return }
        boardShows = called
        guard !called.isEmpty else {
            do { try board.sleep() } catch { runtime.logger.error("could not darken the calling board", metadata: ["error": "\(error)"]) }
            return
        }
        let renderer = ScreenRenderer(geometry: ScreenGeometry(width: Double(board.width), height: Double(board.height)))
        let language = settings().language
        runtime.loop.draw({ DrawnFrame(canvas: Result { try renderer.renderCallingBoard(called, language: language) }) }) {
            [unowned self] frame in
            // Only the newest list is shown.
            guard called == boardShows else { return }
            do {
                try board.show(try frame.canvas.get())
            } catch {
                runtime.logger.error("could not draw the calling board", metadata: ["error": "\(error)"])
            }
        }
    }

    /// What the calling board shows now, as PNG, drawn again (for `clupctl screenshot
    /// --door-screen`): the numbers called, the door's words while they are up, else black.
    func boardScreenshot() throws -> [UInt8] {
        guard let board else {
            throw CodedError(.displayFailed, "this totem has no calling board (hardware.calling_display)")
        }
        let renderer = ScreenRenderer(geometry: ScreenGeometry(width: Double(board.width), height: Double(board.height)))
        if let words = doorWordsShown {
            let texts = TextCatalog.of(words.language)
            return try renderer.renderDoorWords(texts(words.words.title), texts(words.words.hint)).pngData()
        }
        guard let called = boardShows, !called.isEmpty else {
            let black = try Canvas(width: board.width, height: board.height)
            black.fill(.black)
            return try black.pngData()
        }
        return try renderer.renderCallingBoard(called, language: settings().language).pngData()
    }

    /// Tells the person at the door, on the board above it, why their code did not open it,
    /// in `language`, for `doorWordsSeconds`; the numbers called come back after.
    func tellAtTheDoor(_ words: DoorWords, language: String) {
        guard let board else { return }
        let texts = TextCatalog.of(language)
        let (title, hint) = (texts(words.title), texts(words.hint))
        runtime.loop.cancel(doorWordsTimer)
        doorWordsShown = (words, language)
        doorWordsTimer = runtime.loop.schedule(after: Self.doorWordsSeconds) { [unowned self] in
            doorWordsTimer = nil
            doorWordsShown = nil
            boardShows = nil
            showOnTheBoard()
        }
        let renderer = ScreenRenderer(geometry: ScreenGeometry(width: Double(board.width), height: Double(board.height)))
        runtime.loop.draw({ DrawnFrame(canvas: Result { try renderer.renderDoorWords(title, hint) }) }) { [unowned self] frame in
            guard doorWordsTimer != nil else { return }
            do {
                try board.show(try frame.canvas.get())
            } catch {
                runtime.logger.error("could not draw the door's words", metadata: ["error": "\(error)"])
            }
        }
        runtime.logger.info("told at the door", metadata: ["words": "\(words)", "language": "\(texts.language)"])
    }

    /// Says `ticket`'s call and notes when.
    private func announce(_ ticket: Ticket) {
        announced[ticket.number] = runtime.clock.monotonic()
        let texts = TextCatalog.of(language(of: ticket))
        voice?.say(texts(.spokenCall, ["number": texts.spokenNumber(ticket.number.description)]), language: texts.language)
        runtime.logger.info("ticket called aloud", metadata: ["number": "\(ticket.number)", "language": "\(texts.language)"])
    }

    /// Tickets no longer called (admitted, lapsed) are no longer said.
    private func forgetCallsEnded() {
        announced = announced.filter { number, _ in desk.day.tickets[number]?.state == .called }
    }

    private func armRepeat() {
        guard repeatTimer == nil, !announced.isEmpty else { return }
        let every = settings().repeatSeconds
        repeatTimer = runtime.loop.schedule(after: every) { [unowned self] in
            repeatTimer = nil
            let now = runtime.clock.monotonic()
            for ticket in calledTickets {
                guard let at = announced[ticket.number], now - at >= every - 0.5 else { continue }
                announce(ticket)
            }
            forgetCallsEnded()
            armRepeat()
        }
    }
}
