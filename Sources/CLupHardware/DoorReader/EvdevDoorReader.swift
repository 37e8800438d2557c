import CLupCore

/// A keyboard-wedge QR scanner read from its evdev node (`/dev/clup/reader`), grabbed so
/// its "typing" reaches no console, decoded with the configured keymap.
public final class EvdevDoorReader: DoorReader {
    public var onRead: ((WedgeDecoder.Output) -> Void)?
    let device: EvdevDevice
    private var decoder: WedgeDecoder
    let loop: DeviceRunLoop
    /// Counts the batches of events read, so that a timer set after one knows whether more came.
    private var batches = 0

    public init(path: String, keymap: Keymap, loop: DeviceRunLoop, retryInterval: Double = 0.5) {
        device = EvdevDevice(path: path, loop: loop, retryInterval: retryInterval)
        decoder = WedgeDecoder(keymap: keymap)
        self.loop = loop
        device.onEvents = { [unowned self] events in self.handle(events) }
        // A scanner unplugged mid-code delivered nothing: forget the partial code quietly.
        device.onLost = { [unowned self] in self.decoder = WedgeDecoder(keymap: keymap) }
    }

    public var health: DeviceHealth {
        device.isOpen
            ? DeviceHealth(role: "door-reader", backend: "evdev", state: .ok, detail: "\(device.path), \(decoder.keymap.name) layout")
            : DeviceHealth(role: "door-reader", backend: "evdev", state: .missing, detail: "\(device.path): \(device.problem)")
    }

    public var isConnected: Bool { device.isOpen }

    public func start() { device.start() }
    public func stop() { device.stop() }

    private func handle(_ events: [InputEvent]) {
        for event in events {
            for output in decoder.feed(event) { onRead?(output) }
        }
        batches &+= 1
        guard decoder.isPartial, let last = events.last?.time else { return }
        // If the rest of the code never comes, say so once the scanner has been quiet too long:
        // unless more keys came meanwhile (the timer set after them judges), whatever clock
        // stamped them.
        let batch = batches
        loop.after(decoder.interKeyTimeout + 0.05) { [weak self] in
            guard let self, batches == batch else { return }
            for output in decoder.expire(at: last + decoder.interKeyTimeout + 0.05) { onRead?(output) }
        }
    }
}
