import CLupCore
import Foundation

/// A PIR motion sensor on a GPIO line, read through libgpiod and debounced on the kernel's
/// edge timestamps (`PIRDebouncer`).
public final class GPIOPresenceSensor: PresenceSensor {
    public var onChange: ((Bool) -> Void)?
    let line: GPIOInput
    let loop: DeviceRunLoop
    let now: () -> Double
    private var debouncer: PIRDebouncer
    private var scheduled: Double?

    /// `now` reads the clock the kernel stamps edges with (CLOCK_MONOTONIC).
    public init(source: GPIOInput.Source, loop: DeviceRunLoop, debouncer: PIRDebouncer = PIRDebouncer(),
                retryInterval: Double = 0.5, now: @escaping () -> Double = { SystemClock().monotonic() }) {
        line = GPIOInput(source: source, loop: loop, retryInterval: retryInterval)
        self.loop = loop
        self.now = now
        self.debouncer = debouncer
        line.onOpen = { [unowned self] level in
            // Someone already in front when clupd starts counts from now.
            if let level { report(self.debouncer.edges([GPIOEdge(active: level, time: self.now())], now: self.now())) }
        }
        line.onEdges = { [unowned self] edges in report(self.debouncer.edges(edges, now: self.now())) }
        // A sensor that went away tells nothing more: nobody is taken to be there.
        line.onLost = { [unowned self] in
            let wasPresent = self.debouncer.present
            self.debouncer = debouncer   // as it was given: nobody, nothing pending
            if wasPresent { onChange?(false) }
        }
    }

    /// Passes on the changes, and looks again when the debouncer has one pending.
    private func report(_ changes: [Bool]) {
        for present in changes { onChange?(present) }
        guard let deadline = debouncer.deadline, deadline != scheduled else { return }
        scheduled = deadline
        loop.after(max(0, deadline - now()) + 0.001) { [weak self] in
            guard let self, self.scheduled == deadline else { return }
            self.scheduled = nil
            self.report(self.debouncer.edges([], now: self.now()))
        }
    }

    public var health: DeviceHealth {
        line.isOpen
            ? DeviceHealth(role: "presence", backend: "gpio", state: .ok,
                           detail: "PIR \(line.source), \(debouncer.present ? "someone present" : "nobody")")
            : DeviceHealth(role: "presence", backend: "gpio", state: .missing, detail: "PIR \(line.source): \(line.problem)")
    }

    public func start() { line.start() }
    public func stop() { line.stop() }
}
