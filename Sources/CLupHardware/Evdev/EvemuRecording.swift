import CLupCore
/// A device description and event recording in evemu's text format: `N:` name, `A:` axis
/// ranges (code, min, max, fuzz, flat, resolution; code in hex), `E: sec.usec TYPE CODE
/// VALUE` events (type and code in hex, value in decimal), `#` comments.
public struct EvemuRecording: Sendable {
    public private(set) var name = ""
    public private(set) var axes: [UInt16: AxisRange] = [:]
    public private(set) var events: [InputEvent] = []

    /// Why a line is not evemu.
    public struct ParseError: Error, Equatable, CodedErrorConvertible {
        public let line: Int
        public let message: String
        public var coded: CodedError { CodedError(.badRecording, "evemu line \(line): \(message)") }
    }

    /// Parses one or more evemu texts in order (a `.desc`, then an `.events`).
    public init(parsing texts: String...) throws(ParseError) {
        for text in texts { try read(text) }
    }

    /// Adds the lines of one more evemu text (an `.events` after its `.desc`).
    public mutating func read(_ text: String) throws(ParseError) {
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let tag = fields.first else { continue }
            let number = index + 1
            switch tag {
            case "N:":
                name = fields.dropFirst().joined(separator: " ")
            case "A:":
                guard fields.count >= 4, let code = UInt16(fields[1], radix: 16),
                      let minimum = Int32(fields[2]), let maximum = Int32(fields[3])
                else { throw ParseError(line: number, message: "expected A: CODE MIN MAX …") }
                axes[code] = AxisRange(minimum: minimum, maximum: maximum)
            case "E:":
                guard fields.count == 5, let time = Double(fields[1]), let type = UInt16(fields[2], radix: 16),
                      let code = UInt16(fields[3], radix: 16), let value = Int32(fields[4])
                else { throw ParseError(line: number, message: "expected E: SEC.USEC TYPE CODE VALUE") }
                events.append(InputEvent(time: time, type: type, code: code, value: value))
            case "I:", "P:", "B:", "L:", "S:":
                continue
            default:
                throw ParseError(line: number, message: "unknown line \"\(tag)\"")
            }
        }
    }
}
