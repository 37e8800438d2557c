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
    public struct ReleaseError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    public let target: Target
    let loop: DeviceRunLoop
    let pulse: Double
    private let output: GPIOOutput?
    /// How many passages were unlocked.
    public private(set) var releases = 0

    public init(target: Target, loop: DeviceRunLoop, pulse: Double = 0.2) {
        self.target = target
        self.loop = loop
        self.pulse = pulse
        if case let .gpio(spec) = target { output = GPIOOutput(spec: spec) } else { output = nil }
    }

    /// Drives the output active, and inactive again after `pulse` seconds.
    public func fire() throws(ReleaseError) {
        do throws(GPIOError) {
            try drive(true)
        } catch {
            throw ReleaseError(message: "E-HW-021 cannot drive \(target): \(error)")
        }
        releases += 1
        loop.after(pulse) { [weak self] in try? self?.drive(false) }
    }

    private func drive(_ active: Bool) throws(GPIOError) {
        switch target {
        case .gpio:
            try output?.set(active)
        case let .valueFile(path):
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw GPIOError(description: String(cString: strerror(errno))) }
            defer { close(fd) }
            guard Glibc.write(fd, active ? "1" : "0", 1) == 1 else {
                throw GPIOError(description: String(cString: strerror(errno)))
            }
        }
    }
}

extension ReleaseLine {
    /// What a turnstile without a configured release output answers.
    static let notConfigured = ReleaseError(message: "E-HW-020 no release output configured for the turnstile")
}
