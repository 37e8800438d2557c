/// A ticket's number as printed and called: totem letter, lane suffix, sequence (`A-017`).
///
/// Numbers restart each business day and are counted per lane. The totem's letter keeps
/// two totems of one store from ever printing the same number, even offline.
public struct TicketNumber: Hashable, Codable, Sendable, CustomStringConvertible {
    public let totem: Character
    public let lane: Lane
    public let sequence: Int
    /// The highest sequence a lane reaches in a day: the ticket's code carries 16 bits.
    public static let maximumSequence = Int(UInt16.max)

    public init(totem: Character, lane: Lane, sequence: Int) {
        self.totem = totem
        self.lane = lane
        self.sequence = sequence
    }

    public var description: String {
        let digits = String(sequence)
        let padded = String(repeating: "0", count: max(0, 3 - digits.count)) + digits
        return "\(totem)\(lane.numberSuffix)-\(padded)"
    }

    /// Parses `A-017`, `AP-004`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let head = parts[0].first, head.isLetter, head.isUppercase,
              let sequence = Int(parts[1]), (1...Self.maximumSequence).contains(sequence), parts[1].allSatisfy(\.isASCII)
        else { return nil }
        let suffix = String(parts[0].dropFirst())
        guard let lane = Lane.allCases.first(where: { $0.numberSuffix == suffix }) else { return nil }
        self.init(totem: head, lane: lane, sequence: sequence)
    }

    enum CodingKeys: CodingKey { case text }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let number = TicketNumber(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "not a ticket number: \(text)"))
        }
        self = number
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
