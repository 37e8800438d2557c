import ArgumentParser
import CLupCore
import CLupProtocol

/// `clupctl sim …`: drives the simulated devices of `clupd --simulate`.
struct Sim: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Drive the simulated devices (clupd --simulate).",
        subcommands: [Approach.self, Leave.self, Tap.self, Press.self, Pass.self, Scan.self, Headset.self])

    struct Approach: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A person steps up to the totem.")
        @OptionGroup var connection: Connection
        func run() throws { try simulate(Control.SimApproach(), connection) }
    }

    struct Leave: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The person walks away.")
        @OptionGroup var connection: Connection
        func run() throws { try simulate(Control.SimLeave(), connection) }
    }

    struct Tap: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A touch at screen pixel (X, Y).")
        @OptionGroup var connection: Connection
        @Argument(help: "Pixels from the left edge.") var x: Int
        @Argument(help: "Pixels from the top edge.") var y: Int
        func run() throws { try simulate(Control.SimTap(x: x, y: y), connection) }
    }

    struct Press: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A tap in the middle of a button of the screen shown, by name (`clupctl screen`).")
        @OptionGroup var connection: Connection
        @Argument(help: "The button's name: get-ticket, book-later, slot-1, back, language-it, digit-4, ok, staff-corner, …",
                  completion: .custom { _, _, _ in Completions.buttons() })
        var name: String
        @Option(help: "Hold the touch this many seconds (a long press: 3 in the staff-corner opens the PIN pad).")
        var hold: Double?
        func run() throws {
            guard let hold else { return try simulate(Control.SimPress(name: name), connection) }
            guard (0...60).contains(hold) else { throw ValidationError("--hold is 0 to 60 seconds") }
            try simulate(Control.SimHold(name: name, milliseconds: Int(hold * 1000)), connection)
        }
    }

    struct Headset: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A personal headset goes into the jack (speech to it, explore by touch on) or comes out.")
        @OptionGroup var connection: Connection
        @Argument(help: "in or out.") var state: JackState
        func run() throws { try simulate(Control.SimHeadset(plugged: state == .in), connection) }

        enum JackState: String, ExpressibleByArgument { case `in`, out }
    }

    struct Pass: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Someone passes the turnstile: in or out.")
        @OptionGroup var connection: Connection
        @Argument(help: "in or out.") var direction: PassageDirection
        func run() throws { try simulate(Control.SimPass(direction), connection) }
    }

    struct Scan: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A ticket's code read by the door reader.")
        @OptionGroup var connection: Connection
        @Argument(help: "The code, as printed in the ticket's QR code.") var code: String
        func run() throws { try simulate(Control.SimScan(code: code), connection) }
    }
}

extension PassageDirection: ExpressibleByArgument {}

/// Sends a simulated device event and prints what it did.
private func simulate<Command: ControlCommand>(_ command: Command, _ connection: Connection) throws where Command.Reply == SimulationReply {
    let reply = try connection.client.send(command)
    print("\(shown(reply.outcome)) [screen: \(shown(reply.screen))]" + (reply.ticket.map { " [ticket: \(shown($0))]" } ?? ""))
}
