/// What a printed ticket says, already in the customer's language.
public struct TicketContent: Sendable, Equatable {
    public let storeName: String
    public let number: String
    public let laneLabel: String
    public let issuedAt: String
    public let estimatedWait: String
    public let code: String
    public let instruction: String

    public init(storeName: String, number: String, laneLabel: String, issuedAt: String,
                estimatedWait: String, code: String, instruction: String) {
        self.storeName = storeName
        self.number = number
        self.laneLabel = laneLabel
        self.issuedAt = issuedAt
        self.estimatedWait = estimatedWait
        self.code = code
        self.instruction = instruction
    }
}

/// The width of the roll in the ticket printer.
public enum PaperWidth: String, Sendable, CaseIterable {
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
