import Foundation

/// The payloads a store writes by the thousand each day (a turnstile's passages; a ticket
/// printed, called, admitted, gone) read with `JSONScanner`, exactly as `EventCoding` reads
/// them with `JSONDecoder`: the case's one key, its fields by label (unknown ones ignored,
/// optional ones absent or null), dates as seconds since 2001. Any other event, or anything
/// unusual in these, gives up, and `EventCoding` reads it with `JSONDecoder`.
enum CommonEventReader {
    typealias GaveUp = JSONScanner.GaveUp

    static func read(_ scanner: inout JSONScanner) throws(GaveUp) -> DomainEvent {
        var event: DomainEvent?
        try scanner.members { scanner, name throws(GaveUp) in
            guard event == nil, let shape = Shape(name) else { throw GaveUp() }
            event = try shape.event(try Fields(&scanner, reading: shape.fields))
        }
        guard let event else { throw GaveUp() }
        return event
    }

    /// The labels of the cases read here.
    struct Labels: OptionSet {
        let rawValue: Int
        static let number = Labels(rawValue: 1 << 0)  // "_0"
        static let at = Labels(rawValue: 1 << 1)
        static let businessDay = Labels(rawValue: 1 << 2)
        static let reason = Labels(rawValue: 1 << 3)
        static let steady = Labels(rawValue: 1 << 4)
        static let job = Labels(rawValue: 1 << 5)
        static let direction = Labels(rawValue: 1 << 6)
        static let door = Labels(rawValue: 1 << 7)
        static let ticket = Labels(rawValue: 1 << 8)

        init(rawValue: Int) { self.rawValue = rawValue }

        init?(key: String) {
            switch key {
            case "_0": self = .number
            case "at": self = .at
            case "businessDay": self = .businessDay
            case "reason": self = .reason
            case "steady": self = .steady
            case "job": self = .job
            case "direction": self = .direction
            case "door": self = .door
            case "ticket": self = .ticket
            default: return nil
            }
        }
    }

    /// What one case's object held; a required field missing gives up.
    struct Fields {
        var number: TicketNumber?
        var at: Date?
        var businessDay: BusinessDay?
        var reason: String?
        var steady: SteadyTime?
        var job: Int?
        var direction: PassageDirection?
        var door: String?
        var ticket: TicketNumber?

        init(_ scanner: inout JSONScanner, reading labels: Labels) throws(GaveUp) {
            var seen = Labels()
            var fields = Fields()
            try scanner.members { scanner, key throws(GaveUp) in
                guard let label = Labels(key: key), labels.contains(label) else {
                    _ = try scanner.skip()  // a label this case does not have: ignored, as JSONDecoder does
                    return
                }
                guard !seen.contains(label) else { throw GaveUp() }
                seen.insert(label)
                // The optional fields: absent or null is nil.
                if label == .steady || label == .ticket, try scanner.null() { return }
                switch label {
                case .number: fields.number = try Self.ticketNumber(&scanner)
                case .ticket: fields.ticket = try Self.ticketNumber(&scanner)
                case .at: fields.at = try Self.date(&scanner)
                case .businessDay: fields.businessDay = try Self.businessDay(&scanner)
                case .reason: fields.reason = try scanner.string()
                case .steady: fields.steady = try Self.steadyTime(&scanner)
                case .job: fields.job = try scanner.int()
                case .direction:
                    guard let direction = PassageDirection(rawValue: try scanner.string()) else { throw GaveUp() }
                    fields.direction = direction
                default: fields.door = try scanner.string()
                }
            }
            let optional: Labels = [.steady, .ticket]
            guard seen.union(optional).isSuperset(of: labels) else { throw GaveUp() }
            self = fields
        }

        private init() {}

        static func ticketNumber(_ scanner: inout JSONScanner) throws(GaveUp) -> TicketNumber {
            guard let number = TicketNumber(try scanner.string()) else { throw GaveUp() }
            return number
        }

        /// A date as `EventCoding` writes it; an ISO 8601 string is left to `JSONDecoder`.
        static func date(_ scanner: inout JSONScanner) throws(GaveUp) -> Date {
            let seconds = try scanner.double()
            guard abs(seconds) < EventCoding.maximumSeconds else { throw GaveUp() }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }

        static func businessDay(_ scanner: inout JSONScanner) throws(GaveUp) -> BusinessDay {
            var date: String?
            try scanner.members { scanner, key throws(GaveUp) in
                guard key == "date" else { _ = try scanner.skip(); return }
                guard date == nil else { throw GaveUp() }
                date = try scanner.string()
            }
            guard let date else { throw GaveUp() }
            return BusinessDay(date)
        }

        static func steadyTime(_ scanner: inout JSONScanner) throws(GaveUp) -> SteadyTime {
            var boot: String?
            var seconds: Double?
            try scanner.members { scanner, key throws(GaveUp) in
                switch key {
                case "boot":
                    guard boot == nil else { throw GaveUp() }
                    boot = try scanner.string()
                case "seconds":
                    guard seconds == nil else { throw GaveUp() }
                    seconds = try scanner.double()
                default: _ = try scanner.skip()
                }
            }
            guard let boot, let seconds else { throw GaveUp() }
            return SteadyTime(boot: boot, seconds: seconds)
        }
    }

    /// The cases read here, by their key in the payload.
    enum Shape {
        case passage, ticketCalled, ticketAdmitted, ticketNoShow, admissionLapsed, ticketLeft, ticketPrinted, ticketSubmitted

        init?(_ key: String) {
            switch key {
            case "passage": self = .passage
            case "ticketCalled": self = .ticketCalled
            case "ticketAdmitted": self = .ticketAdmitted
            case "ticketNoShow": self = .ticketNoShow
            case "admissionLapsed": self = .admissionLapsed
            case "ticketLeft": self = .ticketLeft
            case "ticketPrinted": self = .ticketPrinted
            case "ticketSubmitted": self = .ticketSubmitted
            default: return nil
            }
        }

        var fields: Labels {
            switch self {
            case .passage: [.at, .businessDay, .direction, .door, .steady, .ticket]
            case .ticketCalled: [.number, .at, .businessDay, .reason, .steady]
            case .ticketAdmitted: [.number, .at, .businessDay, .steady]
            case .ticketNoShow, .admissionLapsed, .ticketLeft: [.number, .at, .businessDay]
            case .ticketPrinted, .ticketSubmitted: [.number, .businessDay, .job]
            }
        }

        /// The event of `fields`, which hold every required field of this case.
        func event(_ fields: Fields) throws(GaveUp) -> DomainEvent {
            switch self {
            case .passage:
                guard let direction = fields.direction, let door = fields.door, let day = fields.businessDay, let at = fields.at
                else { throw GaveUp() }
                return .passage(direction: direction, door: door, businessDay: day, at: at, ticket: fields.ticket, steady: fields.steady)
            case .ticketPrinted, .ticketSubmitted:
                guard let number = fields.number, let day = fields.businessDay, let job = fields.job else { throw GaveUp() }
                return self == .ticketPrinted ? .ticketPrinted(number, businessDay: day, job: job)
                    : .ticketSubmitted(number, businessDay: day, job: job)
            default:
                guard let number = fields.number, let day = fields.businessDay, let at = fields.at else { throw GaveUp() }
                switch self {
                case .ticketCalled:
                    guard let reason = fields.reason else { throw GaveUp() }
                    return .ticketCalled(number, businessDay: day, at: at, reason: reason, steady: fields.steady)
                case .ticketAdmitted: return .ticketAdmitted(number, businessDay: day, at: at, steady: fields.steady)
                case .ticketNoShow: return .ticketNoShow(number, businessDay: day, at: at)
                case .admissionLapsed: return .admissionLapsed(number, businessDay: day, at: at)
                default: return .ticketLeft(number, businessDay: day, at: at)
                }
            }
        }
    }
}
