/// What a printed ticket says, already in the customer's language.
public struct TicketContent: Sendable, Equatable {
    public let storeName: String
    public let number: String
    public let laneLabel: String
    public let issuedAt: String
    public let estimatedWait: String
    public let code: String
    /// One short instruction per configured language.
    public let instructions: [String]

    public init(storeName: String, number: String, laneLabel: String, issuedAt: String,
                estimatedWait: String, code: String, instructions: [String]) {
        self.storeName = storeName
        self.number = number
        self.laneLabel = laneLabel
        self.issuedAt = issuedAt
        self.estimatedWait = estimatedWait
        self.code = code
        self.instructions = instructions
    }
}

/// The width of the roll in the ticket printer.
public enum PaperWidth: String, Codable, Sendable, CaseIterable {
    case mm80 = "80mm"
    case mm58 = "58mm"

    /// Width in PDF points (1/72 in).
    public var points: Double {
        switch self {
        case .mm80: 80 / 25.4 * 72
        case .mm58: 58 / 25.4 * 72
        }
    }
}
