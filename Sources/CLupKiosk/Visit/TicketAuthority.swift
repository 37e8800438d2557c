import CLupCore
import Crypto

/// How this totem signs its tickets and judges the codes read at its door: its issuer, the
/// store's totems' public keys, and what the hub last said of the other doors.
struct TicketAuthority {
    /// Signs and numbers this totem's tickets.
    private(set) var issuer: TicketIssuer
    /// This totem's public key and those of the store's other totems, to check codes at the door.
    private(set) var keyring: TicketKeyring
    /// What the hub last said of the store's other doors: tickets they called (admitted here
    /// too) and this totem's tickets they admitted (used).
    var otherDoors = OtherDoors()

    init(_ config: KioskConfiguration, key: Curve25519.Signing.PrivateKey) {
        issuer = TicketIssuer(store: UInt32(config.store.id), totem: config.totem.letter,
                              validMinutes: UInt16(config.tickets.validMinutes), key: key)
        keyring = Self.keyring(config, key: key)
    }

    /// Puts a reloaded configuration in force: ticket validity, the other totems' keys. The
    /// signing key stays (only a restart changes it); what the other doors did stays too.
    mutating func adopt(_ config: KioskConfiguration) {
        let otherDoors = otherDoors
        self = TicketAuthority(config, key: issuer.key)
        self.otherDoors = otherDoors
    }

    static func keyring(_ config: KioskConfiguration, key: Curve25519.Signing.PrivateKey) -> TicketKeyring {
        var keys = config.keys.compactMapValues { try? Curve25519.Signing.PublicKey(rawRepresentation: $0) }
        keys[config.totem.letter] = key.publicKey
        return TicketKeyring(store: UInt32(config.store.id), keys: keys, ownTotem: config.totem.letter)
    }
}
