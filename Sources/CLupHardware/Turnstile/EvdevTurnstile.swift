import CLupCore
import Foundation

/// A turnstile whose passage contacts reach us as evdev keys (a USB I/O board that shows up
/// as a keyboard: one key per direction, or GPIO lines bound to keys by the kernel's
/// `gpio-keys` driver), debounced; its release output is a `ReleaseLine`.
public final class EvdevTurnstile: Turnstile {
    public var onPassage: ((PassageDirection) -> Void)?
    let device: EvdevDevice
    let releaseLine: ReleaseLine?
    private var entry: PulseDebouncer
    private var exit: PulseDebouncer

    public init(path: String, entryKey: UInt16, exitKey: UInt16, release: ReleaseLine?, loop: DeviceRunLoop,
                debouncer: PulseDebouncer = PulseDebouncer(), retryInterval: Double = 0.5) {
        device = EvdevDevice(path: path, loop: loop, retryInterval: retryInterval)
        releaseLine = release
        entry = debouncer
        exit = debouncer
        device.onEvents = { [unowned self] events in
            for event in events where event.type == EventCode.key && event.value != 2 {
                if event.code == entryKey, entry.edge(active: event.value == 1, at: event.time) { onPassage?(.entry) }
                if event.code == exitKey, exit.edge(active: event.value == 1, at: event.time) { onPassage?(.exit) }
            }
        }
    }

    public var releases: Int { releaseLine?.releases ?? 0 }

    public var health: DeviceHealth {
        device.isOpen
            ? ReleaseLine.turnstileHealth(backend: "evdev", detail: "\(device.path), \(releases) releases", release: releaseLine)
            : DeviceHealth(role: "turnstile", backend: "evdev", state: .missing, detail: "\(device.path): \(device.problem)")
    }

    public func start() {
        releaseLine?.prepare()
        device.start()
    }
    public func stop() { device.stop() }

    public func release() throws {
        guard let releaseLine else { throw ReleaseLine.notConfigured }
        try releaseLine.fire()
    }
}
