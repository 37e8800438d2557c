import Foundation

/// A GPIO output line driven through libgpiod: the turnstile's release coil or relay.
/// The line is requested on first use and kept; a failure is reported to the caller (the
/// door then tells the customer it could not open) and the next use asks again.
public final class GPIOOutput {
    public let spec: GPIOLineSpec
    let activeLow: Bool
    private var chipLine: GPIOChipLine?

    public init(spec: GPIOLineSpec, activeLow: Bool = false) {
        self.spec = spec
        self.activeLow = activeLow
    }

    /// Drives the line active (true) or inactive.
    public func set(_ active: Bool) throws(GPIOError) {
        let line: GPIOChipLine
        if let chipLine {
            line = chipLine
        } else {
            line = try GPIOChipLine(spec)
            try line.requestOutput(activeLow: activeLow)
            chipLine = line
        }
        guard line.set(active) else {
            chipLine = nil
            throw GPIOError(description: "cannot drive \(spec) (\(String(cString: strerror(errno))))")
        }
    }
}
