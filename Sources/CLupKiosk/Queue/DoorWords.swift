import CLupCore

/// What the door's screen says to the person whose code it just refused: what happened, in
/// a sentence and a hint, in their language (`Caller.tellAtTheDoor`). A place given up from
/// the phone is not "voided by staff" (issue 40): its holder is told they left the line.
enum DoorWords: Equatable {
    case leftTheLine, voided, notYet, used, passed, notValid

    init(_ refusal: Refusal) {
        switch refusal {
        case .leftTheLine: self = .leftTheLine
        case .voided, .bookingCancelled: self = .voided
        case .notCalledYet, .outsideBookingWindow, .storeFull: self = .notYet
        case .alreadyUsed: self = .used
        case .noShow: self = .passed
        default: self = .notValid
        }
    }

    var title: TextKey {
        switch self {
        case .leftTheLine: .doorLeftTitle
        case .voided: .doorVoidedTitle
        case .notYet: .doorNotYetTitle
        case .used: .doorUsedTitle
        case .passed: .doorPassedTitle
        case .notValid: .doorInvalidTitle
        }
    }

    var hint: TextKey {
        switch self {
        case .leftTheLine: .doorLeftHint
        case .voided: .doorVoidedHint
        case .notYet: .doorNotYetHint
        case .used: .doorUsedHint
        case .passed: .doorPassedHint
        case .notValid: .doorInvalidHint
        }
    }

    /// The ticket a refusal names (its text starts with the number), if it names one.
    static func number(in refusal: Refusal) -> TicketNumber? {
        let named: String? = switch refusal {
        case let .leftTheLine(number), let .voided(number), let .bookingCancelled(number), let .notCalledYet(number),
             let .outsideBookingWindow(number), let .alreadyUsed(number), let .noShow(number), let .expired(number),
             let .unknownTicket(number), let .notPrinted(number): number
        default: nil
        }
        return named.flatMap { TicketNumber(String($0.prefix { $0 != " " })) }
    }
}
