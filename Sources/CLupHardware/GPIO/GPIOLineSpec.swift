/// Names one GPIO line as the configuration writes it: `CHIP:LINE`, where CHIP is what
/// libgpiod's lookup takes (`gpiochip0`, `/dev/gpiochip0`, a chip label such as
/// `pinctrl-bcm2711`, or a number) and LINE is an offset (`17`) or a line name from the
/// device tree (`PIR_SENSE`).
public struct GPIOLineSpec: Sendable, Equatable, CustomStringConvertible {
    public enum Line: Sendable, Equatable {
        case offset(UInt32)
        case name(String)
    }

    public let chip: String
    public let line: Line

    public init(chip: String, line: Line) {
        self.chip = chip
        self.line = line
    }

    /// Parses `CHIP:LINE`; nil when either half is missing.
    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        let chip = String(text[..<colon]), line = String(text[text.index(after: colon)...])
        guard !chip.isEmpty, !line.isEmpty, !line.contains(where: \.isWhitespace) else { return nil }
        self.chip = chip
        self.line = UInt32(line).map(Line.offset) ?? .name(line)
    }

    public var description: String {
        switch line {
        case let .offset(offset): "\(chip):\(offset)"
        case let .name(name): "\(chip):\(name)"
        }
    }
}
