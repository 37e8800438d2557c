/// A door reader driven by `clupctl sim scan CODE`: it types the code as a keyboard-wedge
/// scanner would, through the same decoder as the real one.
public final class SimulatedDoorReader: DoorReader {
    public var onRead: ((WedgeDecoder.Output) -> Void)?
    private var decoder: WedgeDecoder
    private var time = 0.0

    public init(keymap: Keymap = .us) {
        decoder = WedgeDecoder(keymap: keymap)
    }

    public var health: DeviceHealth {
        DeviceHealth(role: "door-reader", backend: "simulated", state: .ok, detail: "\(decoder.keymap.name) layout")
    }

    /// The reader scans `code`: its characters as key presses, then Enter.
    public func simulateScan(_ code: String) {
        var events: [InputEvent] = []
        func press(_ key: UInt16, _ value: Int32) {
            events.append(InputEvent(time: time, type: EventCode.key, code: key, value: value))
            time += 0.002
        }
        for character in code {
            // A character the layout cannot type reaches the decoder as an unknown key.
            let (key, shift) = decoder.keymap.keystroke(for: character) ?? (0x2FF, false)
            if shift { press(WedgeDecoder.leftShift, 1) }
            press(key, 1)
            press(key, 0)
            if shift { press(WedgeDecoder.leftShift, 0) }
        }
        press(WedgeDecoder.enter, 1)
        press(WedgeDecoder.enter, 0)
        for event in events {
            for output in decoder.feed(event) { onRead?(output) }
        }
    }
}
