/// Where a ticket is in its life.
///
/// `printing` → `waiting` → `called` → `admitted` (scanned at the door, turnstile released)
/// → `entered` (the turnstile reported the passage). A called ticket that does not reach the
/// door in time becomes `noShow`; a ticket the printer could not print is `printFailed`.
/// A booking skips the queue: `waiting` until its window, then `admitted` at the door.
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
    /// Called, but did not reach the door within the presentation window.
    case noShow = "no-show"
    /// The printer failed; the customer was told and holds nothing.
    case printFailed = "print-failed"

    /// Whether the ticket holds one of the store's places without being inside yet.
    public var holdsAPlace: Bool { self == .called || self == .admitted }
}
