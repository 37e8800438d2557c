/// The queue a ticket waits in.
public enum Lane: String, Codable, Sendable, CaseIterable {
    /// A walk-in customer who took a ticket at the totem.
    case regular
    /// A ticket issued by an employee for a pregnant, disabled or elderly customer.
    case priority
    /// A slot booked in the app or at the totem.
    case booking
    /// A place in the line taken from a phone (the app or the website): numbered by the hub
    /// for one door (`AR-004` at totem A's door), in line with the door's regular tickets by
    /// the time each was taken.
    case remote

    /// The letter after the totem's letter in a ticket number: `A-017`, `AP-004`, `AB-002`, `AR-003`.
    public var numberSuffix: String {
        switch self {
        case .regular: ""
        case .priority: "P"
        case .booking: "B"
        case .remote: "R"
        }
    }

    /// The lane's code in the compact ticket payload.
    public var wireCode: UInt8 {
        switch self {
        case .regular: 0
        case .priority: 1
        case .booking: 2
        case .remote: 3
        }
    }

    public init?(wireCode: UInt8) {
        guard let lane = Lane.allCases.first(where: { $0.wireCode == wireCode }) else { return nil }
        self = lane
    }
}
