/// Where a ticket is in its life.
public enum TicketState: String, Codable, Sendable, CaseIterable {
    /// Recorded and sent to the printer; not yet in the queue.
    case printing
    /// Printed and waiting to be called.
    case waiting
    /// The printer failed; the customer was told and holds nothing.
    case printFailed = "print-failed"
}
