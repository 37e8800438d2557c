/// Where a ticket is in its life.
///
/// `printing` → `waiting` → `called` → `admitted` (scanned at the door, turnstile released)
/// → `entered` (the turnstile reported the passage). A called ticket that does not reach the
/// door in time becomes `noShow` (or is skipped by a technician, who frees its place at
/// once); a ticket the printer could not print is `printFailed`. A technician may void a
/// ticket waiting, called or failed by the printer: it is `voided`, and its code no longer
/// opens the door. A booking skips the queue: `waiting` until its window, then `admitted`
/// at the door.
public enum TicketState: String, Codable, Sendable, CaseIterable {
    /// Recorded and sent to the printer; not yet in the queue.
    case printing
    /// Printed and waiting to be called.
    case waiting
    /// Called to the door; holds a place until it arrives or the window ends.
    case called
    /// Scanned at the door; the turnstile is released for it.
    case admitted
    /// Its holder passed the turnstile.
    case entered
    /// Called, but did not reach the door within the presentation window (or a technician
    /// skipped it before the window ended).
    case noShow = "no-show"
    /// The printer failed; the customer was told and holds nothing.
    case printFailed = "print-failed"
    /// Voided by staff (with a reason kept in the event log): out of the queue, holding
    /// nothing, refused at the door.
    case voided

    /// Whether the ticket holds one of the store's places without being inside yet.
    public var holdsAPlace: Bool { self == .called || self == .admitted }

    /// Whether its holder went in (admitted at a door, or through the turnstile): nothing a
    /// door says later, nor another door says at all, takes that back.
    public var wentIn: Bool { self == .admitted || self == .entered }

    /// Where several doors' events meet (the hub, which hears them in any order): the states
    /// a ticket may be in for `event` to change it; nil: any. A no-show or a skip ends only a
    /// ticket still called (an admission at another door may have arrived first); a void
    /// never undoes an admission. The totem, which hears its own events in order, refuses
    /// what these rules would leave alone before it records anything (`DayState.skip`, `void`).
    public static func changeable(by event: DomainEvent) -> [TicketState]? {
        switch event {
        case .ticketNoShow, .ticketSkipped: [.called]
        case .ticketVoided: allCases.filter { !$0.wentIn }
        default: nil
        }
    }
}
