import CLupConfig
import CLupCore

/// `[queue]`: the store's rules for admitting people, as `QueuePolicy` holds them.
extension QueuePolicy: ConfigTable {
    public static let table = "queue"
    public static let doc = "The queue: capacity, the shares kept for priority tickets and bookings, the windows."

    /// The defaults.
    public init() {
        self.init(capacity: 30)
    }

    public static let keys: [ConfigKey<QueuePolicy>] = [
        .integer("capacity", \.capacity, in: 1...100_000, doc: "most people inside, counting those called and on their way"),
        .fraction("priority_share", \.priorityShare, doc: "share of capacity kept for priority tickets (rounded up)"),
        .minutes("aging_bound_minutes", \.agingBound, doc: "a regular ticket waiting longer goes before priority tickets"),
        .minutes("presentation_window_minutes", \.presentationWindow, doc: "a called ticket not at the door by then is a no-show"),
        .minutes("booking_early_minutes", \.bookingEarly, doc: "a booking is admitted from this long before its slot starts…"),
        .minutes("booking_late_minutes", \.bookingLate, doc: "…until this long after"),
        .minutes("slot_minutes", \.slotLength, doc: "length of a booking slot"),
        .fraction("booking_share", \.bookingShare, doc: "share of capacity one slot's bookings may take"),
    ]

    public func validate(_ problem: (String, String) -> ConfigurationError) throws(ConfigurationError) {
        if priorityShare + bookingShare > 1 {
            throw problem("booking_share", "priority_share + booking_share is over 1: no place would be left for walk-ins")
        }
    }
}
