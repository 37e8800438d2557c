import CLupCore
import CLupDrawing

/// The figures a screen shows besides its own text.
struct ScreenFacts {
    let storeName: String
    let inside: Int
    let capacity: Int
    let waiting: Int
    /// The numbers called now, the longest called first.
    var called: [String] = []
    /// The wait a new ticket would have.
    let wait: WaitEstimate
}

/// Draws screens for a display of a given size, in the customer's language, in normal or
/// large high-contrast text.
struct ScreenRenderer {
    let geometry: ScreenGeometry
    /// The colours and the text scale: `render` picks them.
    private var style = Style.normal

    init(geometry: ScreenGeometry) {
        self.geometry = geometry
    }

    /// The colours of a screen and how big its text is.
    struct Style {
        let background, text, muted, warning, header, headerText: Color
        let button, buttonText, unselected, unselectedText, back, backText: Color
        let scale: Double

        static let normal = Style(background: .white, text: .black, muted: ScreenRenderer.muted, warning: ScreenRenderer.warning,
                                  header: ScreenRenderer.brand, headerText: .white, button: ScreenRenderer.brand, buttonText: .white,
                                  unselected: ScreenRenderer.unselected, unselectedText: .black, back: ScreenRenderer.muted,
                                  backText: .white, scale: 1)
        /// White and yellow on black, a third bigger.
        static let large = Style(background: .black, text: .white, muted: Color(red: 0.85, green: 0.85, blue: 0.85),
                                 warning: Color(red: 1, green: 0.6, blue: 0.6), header: .black, headerText: .white,
                                 button: ScreenRenderer.board, buttonText: .black, unselected: Color(red: 0.2, green: 0.2, blue: 0.2),
                                 unselectedText: .white, back: .white, backText: .black, scale: 1.35)
    }

    static let brand = Color(red: 0.05, green: 0.36, blue: 0.55)
    static let warning = Color(red: 0.6, green: 0.08, blue: 0.08)
    static let muted = Color(red: 0.33, green: 0.33, blue: 0.33)
    static let unselected = Color(red: 0.88, green: 0.90, blue: 0.92)
    /// The called numbers on black.
    static let board = Color(red: 1.0, green: 0.84, blue: 0.2)

    /// A new frame showing `screen` in `language`, in large high-contrast text if `largeText`.
    func render(_ screen: Screen, facts: ScreenFacts, language: String = "en", largeText: Bool = false) throws -> Canvas {
        var styled = self
        styled.style = largeText ? .large : .normal
        return try styled.draw(screen, facts: facts, language: language)
    }

    private func draw(_ screen: Screen, facts: ScreenFacts, language: String) throws -> Canvas {
        let canvas = try Canvas(width: Int(geometry.width), height: Int(geometry.height))
        let w = geometry.width, h = geometry.height
        let unit = min(w, h) / 20
        let texts = TextCatalog.of(language)

        if screen == .asleep {
            canvas.fill(.black)
            if !facts.called.isEmpty { drawCallingBoard(facts, on: canvas, texts: texts) }
            return canvas
        }
        canvas.fill(style.background)
        canvas.fillRect(x: 0, y: 0, width: w, height: h * 0.12, color: style.header)
        line(facts.storeName, y: h * 0.075, size: unit * 1.3, bold: true, color: style.headerText, on: canvas)

        switch screen {
        case .asleep:
            break
        case .welcome:
            line(texts(.welcomeTitle), y: h * 0.295, size: unit * 2.0, bold: true, on: canvas)
            line(texts(.welcomeHint), y: h * 0.35, size: unit * 0.9, color: style.muted, wrap: false, on: canvas)
            line(texts(.welcomeInside, ["inside": "\(facts.inside)", "capacity": "\(facts.capacity)"]), y: h * 0.76, size: unit,
                 wrap: false, on: canvas)
            line(texts.plural(.welcomeWaiting, count: facts.waiting), y: h * 0.81, size: unit, wrap: false, on: canvas)
            line(texts(.welcomeWait, ["wait": texts.wait(facts.wait)]), y: h * 0.86, size: unit, wrap: false, on: canvas)
        case .findingSlots:
            line(texts(.slotsFinding), y: h * 0.4, size: unit * 1.4, on: canvas)
        case .choosingSlot:
            line(texts(.slotsChoose), y: h * 0.19, size: unit * 1.4, bold: true, wrap: false, on: canvas)
        case let .bookingSlot(time):
            line(texts(.slotsBooking, ["time": time]), y: h * 0.4, size: unit * 1.3, on: canvas)
        case .noFreeSlots:
            line(texts(.slotsNone), y: h * 0.35, size: unit * 1.4, bold: true, on: canvas)
            line(texts(.slotsNoneHint), y: h * 0.45, size: unit * 1.1, on: canvas)
        case let .printing(number):
            line(texts(.printingTitle), y: h * 0.35, size: unit * 1.4, on: canvas)
            line(number, y: h * 0.55, size: unit * 4, bold: true, on: canvas)
        case let .ticketReady(number, wait):
            line(texts(.readyTitle), y: h * 0.3, size: unit * 1.4, bold: true, on: canvas)
            line(number, y: h * 0.5, size: unit * 4, bold: true, on: canvas)
            line(wait, y: h * 0.6, size: unit * 1.1, on: canvas)
            let booked = TicketNumber(number)?.lane == .booking
            line(texts(booked ? .readyScanBooking : .readyScan), y: h * 0.7, size: unit * 0.8, color: style.muted, on: canvas)
        case .outOfOrder:
            line(texts(.outOfOrderTitle), y: h * 0.35, size: unit * 2, bold: true, color: style.warning, on: canvas)
            line(texts(.outOfOrderHint), y: h * 0.45, size: unit * 1.1, on: canvas)
        case let .printFailed(reason):
            line(texts(.printFailedTitle), y: h * 0.3, size: unit * 1.4, bold: true, color: style.warning, on: canvas)
            line(texts(.printFailedHint), y: h * 0.4, size: unit * 1.1, on: canvas)
            line(reason, y: h * 0.5, size: unit * 0.7, color: style.muted, on: canvas)
        }
        drawButtons(of: screen, on: canvas, unit: unit, language: language)
        return canvas
    }

    /// Nobody at the totem: the numbers called, big, white on black, for the people waiting.
    private func drawCallingBoard(_ facts: ScreenFacts, on canvas: Canvas, texts: TextCatalog) {
        let h = geometry.height, unit = min(geometry.width, h) / 20
        line(texts(.boardCalling), y: h * 0.12, size: unit * 1.6, bold: true, color: .white, on: canvas)
        for (index, number) in facts.called.prefix(4).enumerated() {
            line(number, y: h * (0.30 + 0.15 * Double(index)), size: unit * 3.4, bold: true, color: Self.board, on: canvas)
        }
        line(texts(.boardGo), y: h * 0.90, size: unit * 1.2, color: .white, on: canvas)
    }

    /// Draws `text` centred, in lines no wider than the screen less its margins, broken
    /// between words; a word wider than a line is drawn smaller. Returns the last baseline.
    @discardableResult
    private func line(_ text: String, y: Double, size: Double, bold: Bool = false, color: Color? = nil, wrap: Bool = true,
                      on canvas: Canvas) -> Double {
        let limit = geometry.width * 0.92
        let size = size * style.scale
        let color = color ?? style.text
        var lines: [String] = []
        for word in text.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
            // Where the next line has no room (`wrap` false), one line, drawn smaller if need be.
            if let last = lines.last, !wrap || canvas.textWidth(last + " " + word, size: size, bold: bold) <= limit {
                lines[lines.count - 1] = last + " " + word
            } else {
                lines.append(word)
            }
        }
        var baseline = y
        for (index, text) in lines.enumerated() {
            let fitted = min(size, size * limit / max(1, canvas.textWidth(text, size: size, bold: bold)))
            baseline = y + Double(index) * size * 1.2
            canvas.text(text, x: geometry.width / 2, y: baseline, size: fitted, bold: bold, color: color, alignment: .center)
        }
        return baseline
    }

    private func drawButtons(of screen: Screen, on canvas: Canvas, unit: Double, language: String) {
        for button in geometry.buttons(on: screen, language: language, largeText: style.scale > 1) {
            let chosen: Bool
            if case let .language(code) = button.action { chosen = code == language } else { chosen = true }
            let (fill, ink) = button.action == .back ? (style.back, style.backText)
                : chosen ? (style.button, style.buttonText) : (style.unselected, style.unselectedText)
            canvas.fillRect(x: button.x, y: button.y, width: button.width, height: button.height, color: fill, radius: unit * 0.6)
            let size = style.scale * unit * (button.height > geometry.height * 0.12 ? 1.6 : button.height > geometry.height * 0.08 ? 1.2 : 0.75)
            // A label wider than its button is drawn smaller, to fit with a margin.
            let fitted = min(size, size * button.width * 0.9 / max(1, canvas.textWidth(button.label, size: size, bold: true)))
            canvas.text(button.label, x: button.x + button.width / 2, y: button.y + button.height * 0.62,
                        size: fitted, bold: true, color: ink, alignment: .center)
        }
    }
}
