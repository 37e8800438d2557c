/// The store's settings as the hub keeps them, versioned: the hub's word on capacity and
/// shares for every totem of the store, applied at the totem as an event and kept in force
/// offline until a newer version arrives.
public struct StoreSettingsDocument: Codable, Hashable, Sendable {
    /// Grows by one with every change at the hub.
    public var version: Int64
    public var capacity: Int
    public var priorityShare: Double
    public var bookingShare: Double

    public init(version: Int64, capacity: Int, priorityShare: Double, bookingShare: Double) {
        self.version = version
        self.capacity = capacity
        self.priorityShare = priorityShare
        self.bookingShare = bookingShare
    }

    /// Why the settings cannot be used, or nil: the same bounds the local file has.
    public var problem: String? {
        if !(1...100_000).contains(capacity) { return "capacity \(capacity) is out of range 1...100000" }
        if !(0...1).contains(priorityShare) || !(0...1).contains(bookingShare) { return "a share is outside 0...1" }
        if priorityShare + bookingShare > 1 { return "priority and booking shares together are over 1" }
        if version < 1 { return "version \(version)" }
        return nil
    }

    /// `policy` with these settings in force.
    public func applied(to policy: QueuePolicy) -> QueuePolicy {
        var policy = policy
        policy.capacity = capacity
        policy.priorityShare = priorityShare
        policy.bookingShare = bookingShare
        return policy
    }
}
