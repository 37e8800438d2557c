import Crypto
import Foundation

/// A ticket's QR text: Base45 of the 15-byte payload followed by the issuing totem's
/// Ed25519 signature of it (64 bytes), 119 characters in all: QR version 5 at level M.
public enum TicketCode {
    public static let signatureCount = 64
    public static let byteCount = TicketPayload.encodedCount + signatureCount
    /// Longer input is refused before decoding; a real code has 119 characters.
    public static let maximumLength = 256

    /// The code of `payload`, signed with `key`.
    public static func make(_ payload: TicketPayload, signedWith key: Curve25519.Signing.PrivateKey) -> String {
        let bytes = payload.encoded()
        // Ed25519 signing of a byte string with a valid key does not fail; if it ever did, a
        // ticket without a valid signature must not be printed.
        guard let signature = try? key.signature(for: bytes), signature.count == signatureCount else {
            preconditionFailure("Ed25519 signing failed")
        }
        return Base45.encode(bytes + Array(signature))
    }
}

/// The public keys of a store's totems, to verify tickets offline at the door.
public struct TicketKeyring {
    public let store: UInt32
    public let keys: [Character: Curve25519.Signing.PublicKey]
    /// The letter of the totem at this door, whose own tickets it admits.
    public let ownTotem: Character?

    public init(store: UInt32, keys: [Character: Curve25519.Signing.PublicKey], ownTotem: Character? = nil) {
        self.store = store
        self.keys = keys
        self.ownTotem = ownTotem
    }

    /// The payload of `code` if it is a genuine, unexpired ticket of this store.
    ///
    /// Any text at all may come from the reader: every way it can be wrong is a refusal
    /// with its reason, never a crash.
    public func verify(_ code: String, at now: Date) throws(Refusal) -> TicketPayload {
        guard !code.isEmpty else { throw .unreadable("an empty code") }
        guard code.utf8.count <= TicketCode.maximumLength else { throw .unreadable("\(code.utf8.count) characters, too long for a ticket") }
        let bytes: [UInt8]
        do {
            bytes = try Base45.decode(code)
        } catch {
            throw .unreadable("not a CLup ticket code")
        }
        guard bytes.count == TicketCode.byteCount else { throw .unreadable("not a CLup ticket code (\(bytes.count) bytes)") }
        let signed = Array(bytes[0..<TicketPayload.encodedCount])
        let payload: TicketPayload
        do {
            payload = try TicketPayload(decoding: signed)
        } catch {
            throw .forged
        }
        guard payload.store == store else { throw .otherStore(payload.store) }
        guard let key = keys[payload.signer] else { throw .unknownTotem(payload.signer) }
        guard key.isValidSignature(Array(bytes[TicketPayload.encodedCount...]), for: signed) else { throw .forged }
        // A booking's window around its slot is the store's to set: the door checks it.
        let expiry = payload.issuedAt.addingTimeInterval(Double(payload.validMinutes) * 60)
        guard payload.slotStart != nil || now <= expiry else { throw .expired(payload.number.description) }
        return payload
    }
}
