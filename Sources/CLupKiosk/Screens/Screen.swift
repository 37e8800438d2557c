/// What the customer sees. Each case is one screen of the kiosk.
enum Screen: Equatable {
    /// Panel dark; nobody around.
    case asleep
    /// "Get a ticket", with how many are inside and waiting.
    case welcome
    /// The ticket is recorded and on its way out of the printer.
    case printing(number: String)
    /// The printer finished: take your ticket.
    case ticketReady(number: String, wait: String)
    /// The printer failed; the customer is told what to do.
    case printFailed(reason: String)
    /// The touch panel is gone: nobody can use the totem until it is back.
    case outOfOrder

    /// Whether a ticket is on its way out of the printer.
    var isPrinting: Bool {
        if case .printing = self { true } else { false }
    }

    /// A short name for the shell and logs.
    var name: String {
        switch self {
        case .asleep: "asleep"
        case .welcome: "welcome"
        case .printing: "printing"
        case .ticketReady: "ticket-ready"
        case .printFailed: "print-failed"
        case .outOfOrder: "out-of-order"
        }
    }
}

/// A touchable area of a screen, in display pixels.
struct Button: Equatable {
    /// What pressing the button does.
    enum Action: String {
        case getTicket = "get-ticket"
    }

    let action: Action
    let label: String
    let x, y, width, height: Double

    func contains(x px: Double, y py: Double) -> Bool {
        px >= x && px < x + width && py >= y && py < y + height
    }
}

/// Where things sit on a screen of a given size, shared by drawing and hit-testing so
/// the two can never disagree.
struct ScreenGeometry {
    let width: Double
    let height: Double

    /// The buttons `screen` offers.
    func buttons(on screen: Screen) -> [Button] {
        switch screen {
        case .welcome:
            [Button(action: .getTicket, label: "Get a ticket",
                    x: width * 0.15, y: height * 0.42, width: width * 0.7, height: height * 0.16)]
        case .asleep, .printing, .ticketReady, .printFailed, .outOfOrder:
            []
        }
    }

    /// The button under pixel (`x`, `y`), if any.
    func button(on screen: Screen, atX x: Double, y: Double) -> Button? {
        buttons(on: screen).first { $0.contains(x: x, y: y) }
    }
}
