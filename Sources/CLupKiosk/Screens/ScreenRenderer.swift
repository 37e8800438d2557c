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
            if !facts.called.isEmpty || facts.waiting > 0 { drawCallingBoard(facts, on: canvas, texts: texts) }
            return canvas
        }
        canvas.fill(style.background)
        canvas.fillRect(x: 0, y: 0, width: w, height: h * 0.12, color: style.header)
        // The store's name keeps clear of the staff corner (top right), on two lines if it must.
        stack([Text(facts.storeName, size: unit * 1.3, bold: true, color: style.headerText)], in: 0...(h * 0.12), width: w * 0.62,
              on: canvas)
        if let corner = geometry.staffCorner(on: screen) {
            // A small ring marks it, for staff who know.
            canvas.fillRect(x: corner.x + corner.width * 0.42, y: corner.y + corner.height * 0.38, width: corner.width * 0.16,
                            height: corner.width * 0.16, color: style.headerText, radius: corner.width * 0.08)
            canvas.fillRect(x: corner.x + corner.width * 0.46, y: corner.y + corner.height * 0.38 + corner.width * 0.04,
                            width: corner.width * 0.08, height: corner.width * 0.08, color: style.header, radius: corner.width * 0.04)
        }
        // Between the header and the Repeat bar, less the screen's own buttons.
        let body = (h * 0.12)...(h * 0.895)

        switch screen {
        case .asleep:
            break
        case .welcome, .storeFull:
            let full = screen == .storeFull
            // Large text has room for the title alone here: the buttons and the voice say the rest.
            let title = Text(texts(full ? .fullTitle : .welcomeTitle), size: unit * (full ? 1.5 : 2.0), bold: true,
                             color: full ? style.warning : nil)
            stack(style.scale > 1 ? [title] : [title, Text(texts(full ? .fullHint : .welcomeHint), size: unit * 0.9, color: style.muted)],
                  in: (h * 0.225)...(h * 0.40), on: canvas)
            stack([Text(texts(.welcomeInside, ["inside": "\(facts.inside)", "capacity": "\(facts.capacity)"]), size: unit),
                   Text(texts.plural(.welcomeWaiting, count: facts.waiting), size: unit),
                   Text(texts(.welcomeWait, ["wait": texts.wait(facts.wait)]), size: unit)],
                  in: (h * (geometry.offersBookings ? 0.68 : 0.56))...(h * 0.895), on: canvas)
        case let .storeClosed(hours):
            stack([Text(texts(.closedTitle), size: unit * 1.6, bold: true, color: style.warning),
                   Text(texts(.closedHours, ["hours": hours]), size: unit * 1.1)], in: (h * 0.225)...(h * 0.895), on: canvas)
        case let .noTickets(paperOut):
            stack([Text(texts(paperOut ? .noPaperTitle : .printerDownTitle), size: unit * 1.6, bold: true, color: style.warning),
                   Text(texts(.outOfOrderHint), size: unit * 1.1)], in: (h * 0.225)...(h * 0.895), on: canvas)
        case let .pinPad(entry):
            // A refused PIN says so in place of the prompt. The PIN shows as dots, never its digits.
            let typed = entry.typingPin ? String(repeating: "● ", count: entry.pinDigits) : entry.staffNumber
            stack([entry.refused ? Text(texts(.staffWrong), size: unit, bold: true, color: style.warning)
                                 : Text(texts(entry.typingPin ? .staffPin : .staffNumber), size: unit * 1.1, bold: true),
                   Text(typed.isEmpty ? "–" : typed, size: unit * 1.4, bold: true)], in: (h * 0.12)...(h * 0.30), on: canvas)
        case .checkingPin:
            stack([Text(texts(.staffChecking), size: unit * 1.4)], in: body, on: canvas)
        case let .padLocked(until):
            stack([Text(texts(.staffLocked), size: unit * 1.4, bold: true, color: style.warning),
                   Text(texts(.staffLockedHint, ["time": until]), size: unit)], in: body, on: canvas)
        case .priorityReason:
            stack([Text(texts(.staffReason), size: unit * 1.1, bold: true)], in: (h * 0.12)...(h * 0.25), on: canvas)
        case let .speechSettings(speed, loudness):
            stack([Text(texts(.speechTitle), size: unit * 1.3, bold: true),
                   Text(texts(.speechSpeed, ["step": "\(speed + 1)", "steps": "\(ScreenFlow.speeds.count)"]), size: unit * 1.1)],
                  in: (h * 0.12)...(h * 0.30), on: canvas)
            stack([Text(texts(.speechLoudness, ["step": "\(loudness + 1)", "steps": "\(ScreenFlow.gains.count)"]), size: unit * 1.1)],
                  in: (h * 0.42)...(h * 0.56), on: canvas)
        case .stillThere:
            stack([Text(texts(.stillTitle), size: unit * 1.6, bold: true), Text(texts(.stillHint), size: unit * 1.1)],
                  in: (h * 0.12)...(h * 0.5), on: canvas)
        case .choosingLanguage:
            stack([Text(texts(.languageChoose), size: unit * 1.1, bold: true)], in: (h * 0.12)...(h * 0.20), on: canvas)
        case .findingSlots:
            stack([Text(texts(.slotsFinding), size: unit * 1.4)], in: body, on: canvas)
        case .choosingSlot:
            stack([Text(texts(.slotsChoose), size: unit * 1.1, bold: true)], in: (h * 0.12)...(h * 0.25), on: canvas)
        case let .bookingSlot(time):
            stack([Text(texts(.slotsBooking, ["time": time]), size: unit * 1.3)], in: body, on: canvas)
        case .noFreeSlots:
            stack([Text(texts(.slotsNone), size: unit * 1.4, bold: true), Text(texts(.slotsNoneHint), size: unit * 1.1)], in: body,
                  on: canvas)
        case let .printing(number):
            stack([Text(texts(.printingTitle), size: unit * 1.4), Text(number, size: unit * 4, bold: true)], in: body, on: canvas)
        case let .ticketReady(number, wait):
            let booked = TicketNumber(number)?.lane == .booking
            stack([Text(texts(.readyTitle), size: unit * 1.4, bold: true), Text(number, size: unit * 4, bold: true),
                   Text(wait, size: unit * 1.1), Text(texts(booked ? .readyScanBooking : .readyScan), size: unit * 0.8, color: style.muted)],
                  in: body, on: canvas)
        case .outOfOrder:
            stack([Text(texts(.outOfOrderTitle), size: unit * 2, bold: true, color: style.warning),
                   Text(texts(.outOfOrderHint), size: unit * 1.1)], in: body, on: canvas)
        case .backSoon:
            stack([Text(texts(.backSoonTitle), size: unit * 2, bold: true),
                   Text(texts(.backSoonHint), size: unit * 1.1),
                   Text(texts(.outOfOrderHint), size: unit * 1.1)], in: body, on: canvas)
        case let .printFailed(reason):
            stack([Text(texts(.printFailedTitle), size: unit * 1.4, bold: true, color: style.warning),
                   Text(texts(.printFailedHint), size: unit * 1.1), Text(reason, size: unit * 0.7, color: style.muted)],
                  in: body, on: canvas)
        }
        drawButtons(of: screen, on: canvas, unit: unit, language: language)
        return canvas
    }

    /// A text to lay out: its words, its size (before the style's scale), weight and colour.
    struct Text {
        let string: String
        let size: Double
        var bold = false
        var color: Color?

        init(_ string: String, size: Double, bold: Bool = false, color: Color? = nil) {
            self.string = string
            self.size = size
            self.bold = bold
            self.color = color
        }
    }

    /// Lays `texts` out one under another, each centred and broken between words into as
    /// many lines as it needs, the whole block centred in `zone`. A word too wide for a line
    /// by itself is drawn smaller, down to three quarters of its size and never under the
    /// smallest size; wider still, it is split with a hyphen. A block taller than its zone
    /// starts at its top and runs over what is below it: the gallery test catches that.
    private func stack(_ texts: [Text], in zone: ClosedRange<Double>, width: Double? = nil, on canvas: Canvas) {
        let limit = width ?? geometry.width * 0.92
        let laid = texts.map { text -> (Text, size: Double, least: Double, lines: [String]) in
            let floor = smallest(on: canvas, bold: text.bold)
            let size = max(text.size * style.scale, floor)
            let least = max(floor, size * Self.narrowest)
            return (text, size, least, canvas.lines(of: text.string, size: size, bold: text.bold, width: limit, least: least))
        }
        let gap = geometry.height * 0.012
        let total = laid.reduce(0) { $0 + Double($1.lines.count) * $1.size * 1.2 } + gap * Double(max(0, laid.count - 1))
        var top = max(zone.lowerBound, zone.lowerBound + (zone.upperBound - zone.lowerBound - total) / 2)
        for (text, size, least, lines) in laid {
            for line in lines {
                let fitted = canvas.fittedSize(of: line, size: size, least: least, bold: text.bold, width: limit)
                canvas.text(line, x: geometry.width / 2, y: top + size * 0.95, size: fitted, bold: text.bold,
                            color: text.color ?? style.text, alignment: .center)
                top += size * 1.2
            }
            top += gap
        }
    }

    /// How much smaller than its size a word too wide for its line may be drawn.
    static let narrowest = 0.75

    /// The calling board alone, for the second screen above the door.
    func renderCallingBoard(_ called: [String], language: String) throws -> Canvas {
        let canvas = try Canvas(width: Int(geometry.width), height: Int(geometry.height))
        canvas.fill(.black)
        let facts = ScreenFacts(storeName: "", inside: 0, capacity: 0, waiting: 0, called: called, wait: WaitEstimate(low: 0, high: 0))
        drawCallingBoard(facts, on: canvas, texts: TextCatalog.of(language))
        return canvas
    }

    /// The door's words to a person whose code it refused: what happened, big, and what to
    /// do, on the board above the door.
    func renderDoorWords(_ title: String, _ hint: String) throws -> Canvas {
        let canvas = try Canvas(width: Int(geometry.width), height: Int(geometry.height))
        canvas.fill(.black)
        let h = geometry.height, unit = min(geometry.width, h) / 20
        stack([Text(title, size: unit * 2, bold: true, color: Self.board)], in: (h * 0.15)...(h * 0.55), on: canvas)
        stack([Text(hint, size: unit * 1.2, color: .white)], in: (h * 0.55)...(h * 0.9), on: canvas)
        return canvas
    }

    /// Nobody at the totem (the attract screen): the numbers called, big, white on black, as
    /// many as the screen has room for, the longest called first; and how many wait, and how long.
    private func drawCallingBoard(_ facts: ScreenFacts, on canvas: Canvas, texts: TextCatalog) {
        let h = geometry.height, unit = min(geometry.width, h) / 20
        let figures = facts.waiting > 0
            ? [Text(texts.plural(.welcomeWaiting, count: facts.waiting), size: unit, color: .white),
               Text(texts(.welcomeWait, ["wait": texts.wait(facts.wait)]), size: unit, color: .white)] : []
        let bottom = figures.isEmpty ? h : h * 0.84
        if !figures.isEmpty { stack(figures, in: (h * 0.84)...h, on: canvas) }
        guard !facts.called.isEmpty else { return }
        stack([Text(texts(.boardCalling), size: unit * 1.6, bold: true, color: .white)], in: 0...(h * 0.2), on: canvas)
        let size = unit * 3.4 * style.scale
        let room = max(1, Int((bottom - h * 0.2 - h * 0.16) / (size * 1.2 + geometry.height * 0.012)))
        // On a wide screen two numbers share a line.
        let perLine = geometry.width > geometry.height * 1.2 ? 2 : 1
        let shown = Array(facts.called.prefix(min(4, room * perLine)))
        let lines = stride(from: 0, to: shown.count, by: perLine).map { shown[$0..<min($0 + perLine, shown.count)].joined(separator: "    ") }
        stack(lines.map { Text($0, size: unit * 3.4, bold: true, color: Self.board) }, in: (h * 0.2)...(bottom - h * 0.14), on: canvas)
        stack([Text(texts(.boardGo), size: unit * 1.2, color: .white)], in: (bottom - h * 0.14)...bottom, on: canvas)
    }

    /// The smallest font size text may have: in large text, the size whose capital H is
    /// `geometry.largeCapHeight`; else none.
    private func smallest(on canvas: Canvas, bold: Bool) -> Double {
        guard style.scale > 1 else { return 0 }
        return geometry.largeCapHeight / max(0.1, canvas.capHeight(size: 100, bold: bold) / 100)
    }

    private func drawButtons(of screen: Screen, on canvas: Canvas, unit: Double, language: String) {
        for button in geometry.buttons(on: screen, language: language, largeText: style.scale > 1) {
            let chosen: Bool
            if case let .language(code) = button.action { chosen = code == language } else { chosen = true }
            let (fill, ink) = button.action == .back || button.action == .cancel ? (style.back, style.backText)
                : chosen ? (style.button, style.buttonText) : (style.unselected, style.unselectedText)
            canvas.fillRect(x: button.x, y: button.y, width: button.width, height: button.height, color: fill, radius: unit * 0.6)
            let size = style.scale * unit * (button.height > geometry.height * 0.12 ? 1.6 : button.height > geometry.height * 0.08 ? 1.2 : 0.75)
            let floor = smallest(on: canvas, bold: true)
            let room = button.width * 0.9
            let centre = button.x + button.width / 2
            // One line, drawn smaller to fit, but not under the floor.
            let one = max(floor, min(size, size * room / max(1, canvas.textWidth(button.label, size: size, bold: true))))
            // Large text does not shrink under its floor: a label too wide for one line takes two.
            // (Normal text too, rather than shrink to much less than its size.)
            if floor > 0 ? canvas.textWidth(button.label, size: one, bold: true) > room : one < size * 0.8,
               let (first, second) = Self.halves(of: button.label) {
                let two = max(floor, min(size, button.height / 2.45))
                if max(canvas.textWidth(first, size: two, bold: true), canvas.textWidth(second, size: two, bold: true)) <= room {
                    let top = button.y + (button.height - two * 2.2) / 2
                    canvas.text(first, x: centre, y: top + two * 0.95, size: two, bold: true, color: ink, alignment: .center)
                    canvas.text(second, x: centre, y: top + two * 2.05, size: two, bold: true, color: ink, alignment: .center)
                    continue
                }
            }
            let fitted = min(one, one * room / max(1, canvas.textWidth(button.label, size: one, bold: true)))
            canvas.text(button.label, x: centre, y: button.y + button.height / 2 + fitted * 0.36, size: fitted, bold: true, color: ink,
                        alignment: .center)
        }
    }

    /// `label` cut at the space nearest its middle, if it has one.
    static func halves(of label: String) -> (String, String)? {
        let spaces = label.indices.filter { label[$0] == " " }
        let middle = label.count / 2
        guard let cut = spaces.min(by: { abs(label.distance(from: label.startIndex, to: $0) - middle)
            < abs(label.distance(from: label.startIndex, to: $1) - middle) }) else { return nil }
        return (String(label[..<cut]), String(label[label.index(after: cut)...]))
    }
}
