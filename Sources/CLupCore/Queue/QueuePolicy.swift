import Foundation

/// The store's rules for admitting people: capacity, the priority share, the aging bound
/// and the windows. Comes from configuration (later from the hub).
public struct QueuePolicy: Hashable, Codable, Sendable {
    /// The most people allowed inside, counting those called and on their way.
    public var capacity: Int
    /// The share of capacity kept for the priority lane (0...1).
    public var priorityShare: Double
    /// A regular ticket waiting longer than this goes before priority tickets.
    public var agingBound: TimeInterval
    /// How long a called ticket has to reach the door.
    public var presentationWindow: TimeInterval
    /// How long the turnstile stays released for an admitted ticket.
    public var passWindow: TimeInterval
    /// How long before its slot starts a booking is admitted.
    public var bookingEarly: TimeInterval
    /// How long after its slot starts a booking is still admitted.
    public var bookingLate: TimeInterval
    /// The length of a booking slot.
    public var slotLength: TimeInterval
    /// The share of capacity that bookings of one slot may take (0...1).
    public var bookingShare: Double
    /// In a store with several doors, the places this door may fill, granted by the hub
    /// (`CapacityEscrow`); nil where the totem is the store's only door.
    public var doorLimit: Int?
    /// Bookings made through the hub that have not come in yet, with their slots: a place
    /// is kept for each while its window is open. Nil where there is no hub.
    public var hubBookings: [TicketNumber: Date]?
    /// In a store with a hub, the places of each slot this totem may book itself (offline
    /// too): the hub keeps them out of what it books. Nil: all `bookingsPerSlot`.
    public var ownBookingsPerSlot: Int?

    public init(capacity: Int = 30, priorityShare: Double = 0.1, agingBound: TimeInterval = 30 * 60,
                presentationWindow: TimeInterval = 5 * 60, passWindow: TimeInterval = 20, bookingEarly: TimeInterval = 10 * 60,
                bookingLate: TimeInterval = 15 * 60, slotLength: TimeInterval = 30 * 60,
                bookingShare: Double = 0.3) {
        self.capacity = capacity
        self.priorityShare = priorityShare
        self.agingBound = agingBound
        self.presentationWindow = presentationWindow
        self.passWindow = passWindow
        self.bookingEarly = bookingEarly
        self.bookingLate = bookingLate
        self.slotLength = slotLength
        self.bookingShare = bookingShare
    }

    /// The most places this door may fill: the capacity, or the hub's grant to this door,
    /// counted against the door's own places (`DayState.heldHere`): below zero at a door
    /// more people left by than came in, and above capacity at the door they came in by.
    public var placesHere: Int {
        doorLimit ?? capacity
    }

    /// Places only a priority ticket may take: the priority share of the places this door
    /// may fill, rounded up.
    public var reservedForPriority: Int {
        max(0, min(placesHere, Int(saturating: (Double(placesHere) * priorityShare).rounded(.up))))
    }

    /// How many bookings of one slot this totem may issue itself.
    public var ownBookingLimit: Int {
        ownBookingsPerSlot ?? bookingsPerSlot
    }

    /// How many bookings one slot may hold.
    public var bookingsPerSlot: Int {
        Int(saturating: (Double(capacity) * bookingShare).rounded(.down))
    }
}
