import CLupCore
import CLupDrawing

/// The figures a screen shows besides its own text.
struct ScreenFacts {
    let storeName: String
    let inside: Int
    let capacity: Int
    let waiting: Int
    /// The wait a new ticket would have, in words ("about 12 min").
    let wait: String
}

/// Draws screens for a display of a given size.
struct ScreenRenderer {
    let geometry: ScreenGeometry

    static let brand = Color(red: 0.05, green: 0.36, blue: 0.55)
    static let warning = Color(red: 0.72, green: 0.11, blue: 0.11)
    static let muted = Color(red: 0.35, green: 0.35, blue: 0.35)

    /// A new frame showing `screen`.
    func render(_ screen: Screen, facts: ScreenFacts) throws -> Canvas {
        let canvas = try Canvas(width: Int(geometry.width), height: Int(geometry.height))
        let w = geometry.width, h = geometry.height
        let centre = w / 2
        let unit = min(w, h) / 20

        if screen == .asleep {
            canvas.fill(.black)
            return canvas
        }
        canvas.fillRect(x: 0, y: 0, width: w, height: h * 0.12, color: Self.brand)
        canvas.text(facts.storeName, x: centre, y: h * 0.075, size: unit * 1.3, bold: true,
                    color: .white, alignment: .center)

        switch screen {
        case .asleep:
            break
        case .welcome:
            canvas.text("Welcome", x: centre, y: h * 0.25, size: unit * 2.2, bold: true, alignment: .center)
            canvas.text("Touch the button to join the queue", x: centre, y: h * 0.32, size: unit * 0.9,
                        color: Self.muted, alignment: .center)
            drawButtons(of: screen, on: canvas, unit: unit)
            canvas.text("Inside now: \(facts.inside) of \(facts.capacity)", x: centre, y: h * 0.76, size: unit,
                        alignment: .center)
            canvas.text("Waiting: \(facts.waiting)", x: centre, y: h * 0.81, size: unit, alignment: .center)
            canvas.text("Estimated wait: \(facts.wait)", x: centre, y: h * 0.86, size: unit, alignment: .center)
        case .findingSlots:
            canvas.text("Looking for free times…", x: centre, y: h * 0.4, size: unit * 1.4, alignment: .center)
        case .choosingSlot:
            canvas.text("Choose a time today", x: centre, y: h * 0.19, size: unit * 1.4, bold: true, alignment: .center)
            drawButtons(of: screen, on: canvas, unit: unit)
        case let .bookingSlot(time):
            canvas.text("Booking your place at \(time)…", x: centre, y: h * 0.4, size: unit * 1.3, alignment: .center)
        case .noFreeSlots:
            canvas.text("No free times left today", x: centre, y: h * 0.35, size: unit * 1.4, bold: true, alignment: .center)
            canvas.text("You can take a ticket for now instead", x: centre, y: h * 0.45, size: unit * 1.1,
                        alignment: .center)
        case let .printing(number):
            canvas.text("Printing your ticket…", x: centre, y: h * 0.35, size: unit * 1.4, alignment: .center)
            canvas.text(number, x: centre, y: h * 0.55, size: unit * 4, bold: true, alignment: .center)
        case let .ticketReady(number, wait):
            canvas.text("Please take your ticket", x: centre, y: h * 0.3, size: unit * 1.4, bold: true,
                        alignment: .center)
            canvas.text(number, x: centre, y: h * 0.5, size: unit * 4, bold: true, alignment: .center)
            canvas.text(wait, x: centre, y: h * 0.6, size: unit * 1.1, alignment: .center)
            let booked = TicketNumber(number)?.lane == .booking
            canvas.text(booked ? "Scan it at the door at your time" : "Scan it at the door when your number is called", x: centre, y: h * 0.7,
                        size: unit * 0.8, color: Self.muted, alignment: .center)
        case .outOfOrder:
            canvas.text("Out of order", x: centre, y: h * 0.35, size: unit * 2, bold: true, color: Self.warning,
                        alignment: .center)
            canvas.text("Please ask a member of staff for a ticket", x: centre, y: h * 0.45, size: unit * 1.1,
                        alignment: .center)
        case let .printFailed(reason):
            canvas.text("Sorry, no ticket was printed", x: centre, y: h * 0.3, size: unit * 1.4, bold: true,
                        color: Self.warning, alignment: .center)
            canvas.text("Please ask a member of staff for help", x: centre, y: h * 0.4, size: unit * 1.1,
                        alignment: .center)
            canvas.text(reason, x: centre, y: h * 0.5, size: unit * 0.7, color: Self.muted, alignment: .center)
        }
        return canvas
    }

    private func drawButtons(of screen: Screen, on canvas: Canvas, unit: Double) {
        for button in geometry.buttons(on: screen) {
            canvas.fillRect(x: button.x, y: button.y, width: button.width, height: button.height,
                            color: button.action == .back ? Self.muted : Self.brand, radius: unit)
            canvas.text(button.label, x: button.x + button.width / 2, y: button.y + button.height * 0.62,
                        size: unit * (button.height > geometry.height * 0.12 ? 1.6 : 1.2), bold: true, color: .white,
                        alignment: .center)
        }
    }
}
