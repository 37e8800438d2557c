import CLupCore

/// A door reader driven by `clupctl sim scan CODE`: it types the code as a keyboard-wedge
/// scanner would, through the same decoder as the real one.
public final class SimulatedDoorReader: DoorReader {
    public var onRead: ((WedgeDecoder.Output) -> Void)?
    private var decoder: WedgeDecoder
    private var time = 0.0

    public init(keymap: Keymap) {
        decoder = WedgeDecoder(keymap: keymap)
    }

    public var health: DeviceHealth {
        DeviceHealth(role: "door-reader", backend: "simulated", state: .ok, detail: "\(decoder.keymap.name) layout")
    }

    /// What the reader reads when it scans `code`: its characters as key presses, then
    /// Enter, through the wedge decoder. A character the layout cannot type reaches the
    /// decoder as a key without a character, as it would.
    public func scan(_ code: String) -> [WedgeDecoder.Output] {
        let events = decoder.keymap.scannerEvents(typing: code, startingAt: time, untypeable: 0x2FF) ?? []
        time = (events.last?.time ?? time) + 1
        return events.flatMap { decoder.feed($0) }
    }
}
