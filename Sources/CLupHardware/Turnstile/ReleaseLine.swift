import CLupCore
import Foundation

/// The turnstile's release output: pulsed active for a moment to unlock one passage.
public final class ReleaseLine {
    /// Where the pulse goes, as `hardware.turnstile_release` names it: a path is a value
    /// file (`/sys/class/gpio/gpio23/value` on kernels that still have the sysfs interface,
    /// or a relay board's driver file); anything else is a libgpiod line, `CHIP:LINE`.
    public enum Target: Sendable, Equatable, CustomStringConvertible {
        case gpio(GPIOLineSpec)
        case valueFile(String)

        public init?(parsing text: String) {
            if text.hasPrefix("/") {
                self = .valueFile(text)
            } else if let spec = GPIOLineSpec(parsing: text) {
                self = .gpio(spec)
            } else {
                return nil
            }
        }

        /// As `hardware.turnstile_release` writes it.
        public var configValue: String {
            switch self {
            case let .gpio(spec): spec.description
            case let .valueFile(path): path
            }
        }

        public var description: String {
            switch self {
            case let .gpio(spec): "GPIO \(spec)"
            case let .valueFile(path): path
            }
        }
    }

    /// Why the turnstile could not be released.
    public struct ReleaseError: Error, CodedErrorConvertible {
        public let coded: CodedError
    }

    public let target: Target
    /// The relay closes on a low output (most relay modules): active is driven low.
    public let activeLow: Bool
    let loop: DeviceRunLoop
    let pulse: Double
    private let output: GPIOOutput?
    /// How many passages were unlocked.
    public private(set) var releases = 0
    /// Why the output could not be driven the last time, if it could not.
    public private(set) var problem: String?
    /// The pulse whose end is awaited; an earlier pulse's timer leaves a later one alone.
    private var pulseNumber = 0

    public init(target: Target, activeLow: Bool = false, loop: DeviceRunLoop, pulse: Double = 0.2) {
        self.target = target
        self.activeLow = activeLow
        self.loop = loop
        self.pulse = pulse
        if case let .gpio(spec) = target { output = GPIOOutput(spec: spec, activeLow: activeLow) } else { output = nil }
    }

    /// Drives the output inactive, at start: a line left active by a crash mid-pulse would
    /// keep the turnstile unlocked, and a missing output shows before a customer needs it.
    public func prepare() {
        try? drive(false)
    }

    /// Drives the output active, and inactive again after `pulse` seconds (counted from the
    /// last of several pulses close together).
    public func fire() throws(ReleaseError) {
        do throws(GPIOError) {
            try drive(true)
        } catch {
            throw ReleaseError(coded: CodedError(.releaseOutputFailed, "cannot drive \(target): \(error)"))
        }
        releases += 1
        pulseNumber += 1
        let number = pulseNumber
        loop.after(pulse) { [weak self] in
            guard let self, self.pulseNumber == number else { return }
            // If this fails, the turnstile stays unlocked: it shows as a fault until the
            // output answers again (tried again at the next admission).
            try? self.drive(false)
        }
    }

    /// Records the outcome, so the turnstile's health tells a failing release output.
    private func drive(_ active: Bool) throws(GPIOError) {
        do throws(GPIOError) {
            switch target {
            case .gpio:
                try output?.set(active)
            case let .valueFile(path):
                let fd = open(path, O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else { throw GPIOError(description: String(cString: strerror(errno))) }
                defer { close(fd) }
                guard Glibc.write(fd, active != activeLow ? "1" : "0", 1) == 1 else {
                    throw GPIOError(description: String(cString: strerror(errno)))
                }
            }
            problem = nil
        } catch {
            problem = "cannot drive the release output \(target) \(active ? "active" : "inactive"): \(error)"
            throw error
        }
    }
}

extension ReleaseLine {
    /// A turnstile's health once its contacts are read: a fault while its release output fails.
    static func turnstileHealth(backend: String, detail: String, release: ReleaseLine?) -> DeviceHealth {
        if let problem = release?.problem {
            return DeviceHealth(role: "turnstile", backend: backend, state: .fault, detail: "\(detail); \(problem)")
        }
        return DeviceHealth(role: "turnstile", backend: backend, state: .ok, detail: detail)
    }

    /// What a turnstile without a configured release output answers.
    static let notConfigured = ReleaseError(coded: CodedError(.noReleaseOutput, "no release output configured for the turnstile"))
}
