import CLupCore
import Foundation

/// A turnstile whose passage contacts reach us as evdev keys (a USB I/O board that shows up
/// as a keyboard: one key per direction), debounced; its release output is a GPIO line's
/// value file (`/sys/class/gpio/gpioN/value`) pulsed high.
public final class EvdevTurnstile: Turnstile {
    public var onPassage: ((PassageDirection) -> Void)?
    let device: EvdevDevice
    let entryKey: UInt16
    let exitKey: UInt16
    let releasePath: String?
    let releasePulse: Double
    let loop: DeviceRunLoop
    private var entry: PulseDebouncer
    private var exit: PulseDebouncer
    public private(set) var releases = 0

    public init(path: String, entryKey: UInt16, exitKey: UInt16, releasePath: String?, loop: DeviceRunLoop,
                debouncer: PulseDebouncer = PulseDebouncer(), releasePulse: Double = 0.2, retryInterval: Double = 0.5) {
        device = EvdevDevice(path: path, loop: loop, retryInterval: retryInterval)
        self.entryKey = entryKey
        self.exitKey = exitKey
        self.releasePath = releasePath
        self.releasePulse = releasePulse
        self.loop = loop
        entry = debouncer
        exit = debouncer
        device.onEvents = { [unowned self] events in
            for event in events where event.type == EventCode.key && event.value != 2 {
                if event.code == entryKey, entry.edge(active: event.value == 1, at: event.time) { onPassage?(.entry) }
                if event.code == exitKey, exit.edge(active: event.value == 1, at: event.time) { onPassage?(.exit) }
            }
        }
    }

    public var health: DeviceHealth {
        device.isOpen
            ? DeviceHealth(role: "turnstile", backend: "evdev", state: .ok, detail: "\(device.path), \(releases) releases")
            : DeviceHealth(role: "turnstile", backend: "evdev", state: .missing, detail: "\(device.path): \(device.problem)")
    }

    public func start() { device.start() }
    public func stop() { device.stop() }

    /// Why the turnstile could not be released.
    public struct ReleaseError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// Pulses the release line: high, then low after `releasePulse` seconds.
    public func release() throws {
        guard let releasePath else {
            throw ReleaseError(message: "E-HW-020 no release output configured for the turnstile")
        }
        guard write("1", to: releasePath) else {
            throw ReleaseError(message: "E-HW-021 cannot drive \(releasePath): \(String(cString: strerror(errno)))")
        }
        releases += 1
        loop.after(releasePulse) { [weak self] in _ = self?.write("0", to: releasePath) }
    }

    private func write(_ value: String, to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return Glibc.write(fd, value, value.utf8.count) == value.utf8.count
    }
}
