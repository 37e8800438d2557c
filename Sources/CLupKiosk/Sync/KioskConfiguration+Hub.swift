import CLupCore
import Foundation

extension KioskConfiguration {
    /// This configuration with the hub's store settings in force: capacity, shares and this
    /// door's part of the capacity; and, where the hub sent them, the store's totem keys in
    /// place of the file's `[keys]` (a revoked totem's key is no longer among them).
    func applying(_ settings: StoreSettingsDocument) -> KioskConfiguration {
        var next = self
        next.queue = settings.applied(to: queue)
        if let hours = settings.hours {
            next.store.opensMinute = hours.opensMinute
            next.store.closesMinute = hours.closesMinute
        }
        if let totemKeys = settings.totemKeys {
            next.keys = [:]
            for (letter, key) in totemKeys {
                guard let character = letter.first, character != totem.letter, let raw = Data(base64Encoded: key) else { continue }
                next.keys[character] = raw
            }
        }
        return next
    }
}

extension StoreSettingsDocument {
    /// What the hub said of the store's other doors, for the door reader. A door that
    /// follows its line hears of the tickets called and used elsewhere with it (`DoorLine`),
    /// and its settings do not carry them: those of `current` are kept.
    func otherDoors(keeping current: OtherDoors) -> OtherDoors {
        OtherDoors(called: calledAtOtherDoors == nil ? current.called : calledElsewhere,
                   used: usedAtOtherDoors == nil ? current.used : usedElsewhere, cancelled: cancelledBookingNumbers)
    }
}
