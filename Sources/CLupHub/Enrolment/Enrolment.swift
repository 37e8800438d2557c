import HTTPTypes
import CLupCore
import CLupProtocol
import Crypto
import Foundation
import PostgresNIO

/// One-time enrolment codes, and a totem joining its store with one.
///
/// A code is made by an administrator for one store, one letter and one door; it is stored
/// only as its SHA-256, expires, and is used once. Enrolling records the totem's device key
/// (which signs its requests from then on) and its ticket key (which the store's other doors
/// use to verify its tickets).
public struct Enrolment: Sendable {
    let database: HubDatabase
    /// The chain's repository, whose release key a totem is given with its enrolment.
    let releases: ReleaseRepository?

    public init(database: HubDatabase, releases: ReleaseRepository? = nil) {
        self.database = database
        self.releases = releases
    }

    /// Letters of a code: no 0/O, 1/I/L, so that it can be read aloud and typed.
    static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")

    /// A new code for `letter` at `door` of `store`, valid for `lifetime` seconds.
    public func makeCode(store: StoreID, letter: String, door: DoorName, lifetime: Double, now: Date = Date()) async throws -> String {
        guard letter.count == 1, let first = letter.first, first.isASCII, first.isUppercase else {
            throw HubError.badRequest("a totem's letter is one capital letter A-Z, not \"\(letter)\"")
        }
        guard first != TicketPayload.hubLetter else {
            throw HubError.badRequest("letter \(TicketPayload.hubLetter) numbers the bookings made through the hub: choose another")
        }
        guard (1...32).contains(door.rawValue.utf8.count) else { throw HubError.badRequest("a door's name has 1 to 32 bytes") }
        let groups = (0..<3).map { _ in String((0..<4).map { _ in Self.alphabet.randomElement()! }) }
        let code = groups.joined(separator: "-")
        let expires = now.addingTimeInterval(lifetime)
        try await database.transaction { connection in
            guard try await Self.storeExists(store, connection, database.logger) else {
                throw HubError(.notFound, .unknownStore, "no store \"\(store)\"")
            }
            try await connection.query("""
                INSERT INTO enrolment_code (code_hash, store_id, letter, door, expires_at)
                VALUES (\(Self.hash(code)), \(store), \(letter), \(door), \(expires))
                """, logger: database.logger)
        }
        return code
    }

    /// Enrols the totem asking with `request`: checks the code, records the totem, spends the code.
    public func enrol(_ request: EnrolmentRequest, now: Date = Date()) async throws -> EnrolmentReply {
        guard let deviceKey = Data(base64Encoded: request.deviceKey), deviceKey.count == 32,
              (try? Curve25519.Signing.PublicKey(rawRepresentation: deviceKey)) != nil,
              let ticketKey = Data(base64Encoded: request.ticketKey), ticketKey.count == 32,
              (try? Curve25519.Signing.PublicKey(rawRepresentation: ticketKey)) != nil
        else { throw HubError.badRequest("deviceKey and ticketKey must each be a base64 raw Ed25519 public key (32 bytes)") }
        guard deviceKey != ticketKey else { throw HubError.badRequest("the device key and the ticket key must be different keys") }
        guard request.softwareVersion.utf8.count <= 64, request.code.utf8.count <= 64 else {
            throw HubError.badRequest("code and softwareVersion have at most 64 bytes")
        }
        let code = request.code.uppercased()
        let logger = database.logger
        return try await database.transaction { connection in
            let found = try await connection.rows("""
                SELECT store_id, letter, door, expires_at, used_at FROM enrolment_code
                WHERE code_hash = \(Self.hash(code)) FOR UPDATE
                """, as: (StoreID, String, String, Date, Date?).self, logger)
            guard let (store, letter, door, expires, used) = found.first else {
                throw HubError(.forbidden, .enrolmentCodeUnknown, "no such enrolment code")
            }
            if let used { throw HubError(.forbidden, .enrolmentCodeUsed, "the code was used on \(used)") }
            guard expires > now else { throw HubError(.forbidden, .enrolmentCodeExpired, "the code expired on \(expires)") }
            let locked = try await StoreTransaction.locking(store, connection, logger)
            let suffix = HubWire.hex((0..<4).map { _ in UInt8.random(in: 0...255) })
            let deviceID = "store-\(store)-totem-\(letter)-\(suffix)"
            let holders = try await connection.all("""
                SELECT device_id FROM totem WHERE store_id = \(store) AND letter = \(letter) AND revoked_at IS NULL
                """, as: String.self, logger)
            if let holder = holders.first {
                throw HubError(.conflict, .letterTaken, "totem \(letter) of store \(store) is \(holder); revoke it first")
            }
            do {
                try await connection.query("""
                    INSERT INTO totem (device_id, store_id, letter, door, device_key, ticket_key, software_version)
                    VALUES (\(deviceID), \(store), \(letter), \(door), \(deviceKey), \(ticketKey), \(request.softwareVersion))
                    """, logger: logger)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                // Another totem took the letter at the same moment.
                throw HubError(.conflict, .letterTaken, "totem \(letter) of store \(store) was enrolled a moment ago")
            }
            try await connection.query("INSERT INTO device_cursor (store_id, device_id) VALUES (\(store), \(deviceID))", logger: logger)
            try await connection.query("""
                UPDATE enrolment_code SET used_at = \(now), used_by = \(deviceID) WHERE code_hash = \(Self.hash(code))
                """, logger: logger)
            // The store's other totems learn its ticket key; the doors share the capacity anew.
            try await DoorShares.replan(locked, bump: .configuration)
            var reply = EnrolmentReply(deviceID: deviceID, storeID: store.rawValue, letter: letter, door: door)
            if let key = releases?.publicKey() {
                reply.releaseKey = key.base64EncodedString()
                reply.repositoryPath = ReleaseRepository.urlPath
            }
            return reply
        }
    }

    /// Revokes a totem: it is refused from then on, its letter is free again, the store's
    /// other totems no longer admit its tickets, and the places it held go to the other doors.
    public func revoke(deviceID: DeviceID, now: Date = Date()) async throws {
        try await database.transaction { connection in
            // The store's row first (`StoreTransaction`), then the totem's.
            var locked: [StoreTransaction] = []
            for store in try await connection.all("SELECT store_id FROM totem WHERE device_id = \(deviceID)", as: StoreID.self,
                                                  database.logger) {
                if let store = try await StoreTransaction.lock(store, connection, database.logger) { locked.append(store) }
            }
            let revoked = try await connection.all("""
                UPDATE totem SET revoked_at = \(now) WHERE device_id = \(deviceID) AND revoked_at IS NULL RETURNING device_id
                """, as: String.self, database.logger)
            guard !revoked.isEmpty else { throw HubError(.notFound, .unknownDevice, "no enrolled totem \(deviceID) (or revoked already)") }
            // Its ticket key is withdrawn from the store's other totems, and its places released.
            for store in locked { try await DoorShares.replan(store, bump: .configuration) }
        }
    }

    /// Hands a door over from a totem taken away to the one that replaced it, in one step:
    /// the old one is revoked (its places, which waited for it, go to the doors again) and
    /// the change is audited, a refusal too. Both are enrolled at the same store and door,
    /// the new one unrevoked, the old one silent for `SilentHolder.silentAfter` (a totem
    /// still heard is not one taken away: `force` says it is anyway). Anything the old one
    /// still holds offline is lost to the escrow's bound, as with `revoke`.
    public func replace(_ old: DeviceID, with new: DeviceID, force: Bool = false, by actor: AuditActor, now: Date = Date()) async throws {
        let logger = database.logger
        let action = "totem replaced"
        // Its store, to lock first and to file a refusal under.
        let store = try? await database.transaction { connection in
            try await connection.all("SELECT store_id FROM totem WHERE device_id = \(old)", as: StoreID.self, logger).first
        }
        do {
            guard old != new else { throw HubError.badRequest("a totem cannot replace itself (\(old))") }
            guard let store else { throw HubError(.notFound, .unknownDevice, "no enrolled totem \(old)") }
            try await database.transaction { connection in
                // The store's row first (`StoreTransaction`), then the totems', locked while checked.
                let locked = try await StoreTransaction.locking(store, connection, logger)
                let rows = try await connection.rows("""
                    SELECT device_id, store_id, door, revoked_at IS NOT NULL, coalesce(last_contact, enrolled_at)
                    FROM totem WHERE device_id IN (\(old), \(new)) ORDER BY device_id FOR NO KEY UPDATE
                    """, as: (DeviceID, StoreID, String, Bool, Date).self, logger)
                guard let taken = rows.first(where: { $0.0 == old }), taken.1 == store else {
                    throw HubError(.notFound, .unknownDevice, "no enrolled totem \(old)")
                }
                guard let replacing = rows.first(where: { $0.0 == new }) else {
                    throw HubError(.notFound, .unknownDevice, "no enrolled totem \(new)")
                }
                guard taken.1 == replacing.1, taken.2 == replacing.2 else {
                    throw HubError.badRequest("\(old) is at store \(taken.1) door \(taken.2), \(new) at store \(replacing.1) door \(replacing.2): "
                        + "a totem replaces one at its own door (revoke the other with clup-hub revoke)")
                }
                guard !taken.3 else { throw HubError(.conflict, .revokedDevice, "\(old) is revoked already: its places are free") }
                guard !replacing.3 else { throw HubError(.conflict, .revokedDevice, "\(new) is revoked: enrol the new totem first") }
                let heard = now.timeIntervalSince(taken.4)
                guard force || heard > SilentHolder.silentAfter else {
                    throw HubError(.conflict, .badHubRequest, "\(old) was heard \(Int(max(0, heard))) s ago: a totem taken away is switched off "
                        + "(--force if it is and its last batch was just now; check the order: OLD first, then NEW)")
                }
                try await connection.query("UPDATE totem SET revoked_at = \(now) WHERE device_id = \(old)", logger: logger)
                try await DoorShares.replan(locked, bump: .configuration)
                try await Audit.record(by: actor, store: store, action: action, before: "\(old) at door \(taken.2)",
                                       after: "\(new) at door \(taken.2), \(old) revoked", connection, logger)
            }
        } catch let refusal as HubError {
            await Audit.refused(by: actor, store: store, action: action, error: refusal, database: database)
            throw refusal
        }
    }

    static func hash(_ code: String) -> Data { Data(SHA256.hash(data: Data(code.utf8))) }

    static func storeExists(_ store: StoreID, _ connection: PostgresConnection, _ logger: Logger) async throws -> Bool {
        try await !connection.all("SELECT 1 FROM store WHERE store_id = \(store)", as: Int.self, logger).isEmpty
    }
}
