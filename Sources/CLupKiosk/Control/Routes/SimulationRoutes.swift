import CLupCore
import CLupHardware
import CLupProtocol
import Foundation

/// The simulated devices, driven as a customer would; a real device refuses them.
extension Daemon {
    func routeSimulation(_ router: ControlRouter) {
        router.on(Control.SimApproach.self) { [unowned self] _, _ in try simPresence(true) }
        router.on(Control.SimLeave.self) { [unowned self] _, _ in try simPresence(false) }
        router.on(Control.SimTap.self) { [unowned self] command, _ in
            guard let touchscreen = devices.simulatedTouchscreen else { throw realDevice("touchscreen") }
            return try kioskReply(kiosk.receive(.touch(try touchscreen.tap(x: command.x, y: command.y))))
        }
        router.on(Control.SimPress.self) { [unowned self] command, _ in try simTouch(command.name, milliseconds: 80) }
        router.on(Control.SimHold.self) { [unowned self] command, _ in
            guard (0...60_000).contains(command.milliseconds) else {
                throw CodedError(.requestNotUnderstood, "a touch is held 0 to 60000 ms, not \(command.milliseconds)")
            }
            return try simTouch(command.name, milliseconds: command.milliseconds)
        }
        router.on(Control.SimHeadset.self) { [unowned self] command, _ in
            guard let jack = devices.simulatedHeadset else { throw realDevice("headphone jack") }
            guard jack.set(plugged: command.plugged) else {
                return try kioskReply(KioskOutcome("nothing changed: \(command.plugged ? "a headset is" : "no headset is") in the jack already"))
            }
            return try kioskReply(kiosk.receive(.headset(command.plugged)))
        }
        router.on(Control.SimPass.self) { [unowned self] command, _ in
            guard devices.simulatedTurnstile != nil else { throw realDevice("turnstile") }
            return try kioskReply(kiosk.receive(.passage(command.direction)))
        }
        router.on(Control.SimScan.self) { [unowned self] command, _ in
            guard let reader = devices.simulatedReader else { throw realDevice("door reader") }
            let outcomes = reader.scan(command.code).map { kiosk.receive(.read($0)) }
            return try kioskReply(outcomes.last ?? KioskOutcome("the reader read nothing"))
        }
    }

    private func simPresence(_ present: Bool) throws -> SimulationReply {
        guard let presence = devices.simulatedPresence else { throw realDevice("presence sensor") }
        guard presence.set(present: present) else {
            return try kioskReply(KioskOutcome("nothing changed: \(present ? "someone is" : "nobody is") there already"))
        }
        return try kioskReply(kiosk.receive(.presence(present)))
    }

    /// A simulated touch held `milliseconds` in the middle of the button (or staff corner) named `name`.
    private func simTouch(_ name: String, milliseconds: Int) throws -> SimulationReply {
        guard let touchscreen = devices.simulatedTouchscreen else { throw realDevice("touchscreen") }
        let screen = kiosk.screens.flow.screen
        let buttons = kiosk.screens.buttons
            + (kiosk.screens.geometry.staffCorner(on: screen).map { [$0] } ?? [])
        guard let button = buttons.first(where: { $0.action.name == name }) else {
            throw CodedError(.noSuchButton, "the \(screen.name) screen has no button \"\(TypedText.inMessage(name))\" "
                + "(it has: \(buttons.map(\.action.name).joined(separator: ", ")))")
        }
        let gesture = try touchscreen.touch(x: Int(button.x + button.width / 2), y: Int(button.y + button.height / 2),
                                            milliseconds: milliseconds)
        return try kioskReply(kiosk.receive(.touch(gesture)))
    }

    /// What a simulated device's event did, or why it was refused.
    private func kioskReply(_ outcome: KioskOutcome) throws -> SimulationReply {
        try outcome.reply(screen: kiosk.screens.flow.screen.name)
    }
}
