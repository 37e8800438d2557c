import Foundation

/// `clupctl tickets`: today's tickets.
public struct TicketsReport: Codable, Sendable {
    public let businessDay: String
    public let tickets: [TicketLine]

    public init(businessDay: String, tickets: [TicketLine]) {
        self.businessDay = businessDay
        self.tickets = tickets
    }
}

/// One ticket as the shell shows it.
public struct TicketLine: Codable, Sendable {
    public let number: String
    public let lane: String
    public let state: String
    public let issuedAt: Date
    public let code: String

    public init(number: String, lane: String, state: String, issuedAt: Date, code: String) {
        self.number = number
        self.lane = lane
        self.state = state
        self.issuedAt = issuedAt
        self.code = code
    }
}

/// `clupctl queue`: who waits, who is called, and what the rule would do next.
public struct QueueReport: Codable, Sendable {
    public let businessDay: String
    public let capacity: Int
    public let inside: Int
    /// Called or admitted tickets whose holders are not inside yet.
    public let promised: Int
    /// Places kept free for priority tickets right now.
    public let priorityReserve: Int
    public let waiting: [QueueLine]
    public let called: [QueueLine]
    /// The ticket the rule would call next if room allows, and why.
    public let nextCall: String?
    public let estimatedWait: String

    public init(businessDay: String, capacity: Int, inside: Int, promised: Int, priorityReserve: Int, waiting: [QueueLine], called: [QueueLine], nextCall: String?, estimatedWait: String) {
        self.businessDay = businessDay
        self.capacity = capacity
        self.inside = inside
        self.promised = promised
        self.priorityReserve = priorityReserve
        self.waiting = waiting
        self.called = called
        self.nextCall = nextCall
        self.estimatedWait = estimatedWait
    }
}

/// One ticket in the queue report.
public struct QueueLine: Codable, Sendable {
    public let number: String
    public let lane: String
    public let state: String
    public let issuedAt: Date
    public let calledAt: Date?
    /// When a called ticket becomes a no-show.
    public let deadline: Date?
    public let reason: String?

    public init(number: String, lane: String, state: String, issuedAt: Date, calledAt: Date?, deadline: Date?, reason: String?) {
        self.number = number
        self.lane = lane
        self.state = state
        self.issuedAt = issuedAt
        self.calledAt = calledAt
        self.deadline = deadline
        self.reason = reason
    }
}

/// `clupctl call-next`: the ticket called and why.
public struct CallReply: Codable, Sendable {
    public let number: String
    public let reason: String

    public init(number: String, reason: String) {
        self.number = number
        self.reason = reason
    }
}
