import CGPIOD
import Foundation

/// Why a GPIO line could not be had or driven, in the words a technician needs.
public struct GPIOError: Error, CustomStringConvertible {
    public let description: String
}

/// One line of a GPIO chip, requested from the kernel through libgpiod's 1.x API (Debian
/// 12's; libgpiod 2 replaced it) over the character device (not the old sysfs interface). Closing it gives the line back.
final class GPIOChipLine {
    let spec: GPIOLineSpec
    private let chip: OpaquePointer
    let line: OpaquePointer

    /// The name the kernel shows as the line's user (`gpioinfo`).
    static let consumer = "clupd"

    /// Opens the chip and finds the line; the caller then requests it as input or output.
    init(_ spec: GPIOLineSpec) throws(GPIOError) {
        self.spec = spec
        guard let chip = gpiod_chip_open_lookup(spec.chip) else {
            throw GPIOError(description: "no GPIO chip \"\(spec.chip)\" (\(String(cString: strerror(errno))))")
        }
        let found: OpaquePointer?
        switch spec.line {
        case let .offset(offset):
            found = offset < gpiod_chip_num_lines(chip) ? gpiod_chip_get_line(chip, offset) : nil
        case let .name(name):
            found = gpiod_chip_find_line(chip, name)
        }
        guard let found else {
            gpiod_chip_close(chip)
            throw GPIOError(description: "chip \"\(spec.chip)\" has no line \(spec.line)")
        }
        self.chip = chip
        line = found
    }

    /// Asks for the line's edges, each queued by the kernel with its own timestamp;
    /// returns the descriptor they are read from.
    func requestEdges(activeLow: Bool) throws(GPIOError) -> Int32 {
        let flags = activeLow ? Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) : 0
        guard gpiod_line_request_both_edges_events_flags(line, Self.consumer, flags) == 0 else {
            throw GPIOError(description: "line \(spec) refused (\(String(cString: strerror(errno)))); is another program using it?")
        }
        return gpiod_line_event_get_fd(line)
    }

    /// Asks for the line as an output, driven low (inactive) to begin with.
    func requestOutput(activeLow: Bool) throws(GPIOError) {
        let flags = activeLow ? Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) : 0
        guard gpiod_line_request_output_flags(line, Self.consumer, flags, 0) == 0 else {
            throw GPIOError(description: "line \(spec) refused as output (\(String(cString: strerror(errno))))")
        }
    }

    /// The line's level now, active (true) or not; nil when the kernel would not say.
    func value() -> Bool? {
        let value = gpiod_line_get_value(line)
        return value < 0 ? nil : value == 1
    }

    func set(_ active: Bool) -> Bool {
        gpiod_line_set_value(line, active ? 1 : 0) == 0
    }

    deinit {
        gpiod_line_release(line)
        gpiod_chip_close(chip)
    }
}

extension GPIOLineSpec.Line: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .offset(offset): "\(offset)"
        case let .name(name): "\"\(name)\""
        }
    }
}
