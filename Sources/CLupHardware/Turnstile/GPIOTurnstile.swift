import CLupCore
import Foundation

/// A turnstile wired straight to GPIO lines: one contact per direction, each closing once
/// per passage, read through libgpiod with the kernel's edge timestamps and debounced by
/// `PulseDebouncer`; its release output is a `ReleaseLine`.
public final class GPIOTurnstile: Turnstile {
    public var onPassage: ((PassageDirection) -> Void)?
    let entryLine: GPIOInput
    let exitLine: GPIOInput
    let releaseLine: ReleaseLine?

    public init(entry: GPIOInput.Source, exit: GPIOInput.Source, release: ReleaseLine?, loop: DeviceRunLoop,
                debouncer: PulseDebouncer = PulseDebouncer(), retryInterval: Double = 0.5) {
        entryLine = GPIOInput(source: entry, loop: loop, retryInterval: retryInterval)
        exitLine = GPIOInput(source: exit, loop: loop, retryInterval: retryInterval)
        releaseLine = release
        for (line, direction) in [(entryLine, PassageDirection.entry), (exitLine, .exit)] {
            var pulses = debouncer
            line.onEdges = { [unowned self] edges in
                for edge in edges where pulses.edge(active: edge.active, at: edge.time) { onPassage?(direction) }
            }
            // A contact that went away mid-pulse must not complete a passage when it comes back.
            line.onLost = { pulses = debouncer }
        }
    }

    public var releases: Int { releaseLine?.releases ?? 0 }

    public var health: DeviceHealth {
        let missing = [("entry", entryLine), ("exit", exitLine)].filter { !$0.1.isOpen }
        guard missing.isEmpty else {
            return DeviceHealth(role: "turnstile", backend: "gpio", state: .missing,
                                detail: missing.map { "\($0.0) \($0.1.source): \($0.1.problem)" }.joined(separator: "; "))
        }
        return ReleaseLine.turnstileHealth(backend: "gpio", detail: "entry \(entryLine.source), exit \(exitLine.source), \(releases) releases",
                                           release: releaseLine)
    }

    public func start() {
        releaseLine?.prepare()
        entryLine.start()
        exitLine.start()
    }

    public func stop() {
        entryLine.stop()
        exitLine.stop()
    }

    public func release() throws {
        guard let releaseLine else { throw ReleaseLine.notConfigured }
        try releaseLine.fire()
    }
}
