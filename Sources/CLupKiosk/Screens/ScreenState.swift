import CLupCore

/// What the customer's screen is and what it waits for: the flow's screen, where its
/// buttons sit, the inputs waiting their turn, the frames asked for, and what the "take
/// your ticket" screen says under each number on its way to the printer.
///
/// Only the kiosk changes it, on the loop.
struct ScreenState {
    /// The screen shown, and what it depends on (`Kiosk.handle` passes what happens to it).
    var flow: ScreenFlow
    /// Where things sit on the display.
    var geometry: ScreenGeometry
    /// Inputs that came while another was carried out, in order (nil: none is being carried out).
    private var queuedInputs: [(ScreenFlow.Input, Double?)]?
    /// Counts frames asked for; a frame finished after a newer one was asked for is dropped.
    private(set) var frameRequests = 0
    /// The frame count when the welcome screen's figures changed, until it is redrawn.
    var refreshAskedAt: Int?
    /// What each ticket on its way to the printer says under its number (the wait, or a
    /// booking's time).
    var readyLines: [TicketNumber: String] = [:]

    init(flow: ScreenFlow, geometry: ScreenGeometry) {
        self.flow = flow
        self.geometry = geometry
    }

    /// The buttons of the screen shown, as the customer's language and text size lay them out.
    var buttons: [Button] {
        geometry.buttons(on: flow.screen, language: flow.language, largeText: flow.largeText)
    }

    /// The button of the screen shown under the point (`x`, `y`), in fractions of the
    /// screen's width and height (as the touch panel reports it), if any.
    func button(atFractionX x: Double, y: Double) -> Button? {
        geometry.button(on: flow.screen, atX: x * geometry.width, y: y * geometry.height, language: flow.language,
                        largeText: flow.largeText)
    }

    /// Takes `input` in turn. True: nothing else is being carried out, so the caller carries
    /// it out now and then each `nextQueued()` until there is none. False: it waits in line.
    mutating func takeInTurn(_ input: ScreenFlow.Input, arrival: Double?) -> Bool {
        guard queuedInputs == nil else {
            queuedInputs?.append((input, arrival))
            return false
        }
        queuedInputs = []
        return true
    }

    /// The next input that waited, or nil: then the kiosk is free for the next one.
    mutating func nextQueued() -> (ScreenFlow.Input, Double?)? {
        guard let next = queuedInputs?.first else {
            queuedInputs = nil
            return nil
        }
        queuedInputs?.removeFirst()
        return next
    }

    /// Asks for a frame; the number it returns is the newest until the next call.
    mutating func askForFrame() -> Int {
        frameRequests += 1
        return frameRequests
    }
}
