import CLupCore
import Foundation
import GRDB

/// One row of the event log: a domain event numbered gaplessly per device.
public struct StoredEvent: Codable, Hashable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "event"

    public let deviceID: String
    public let seq: Int
    public let wallTime: Date
    public let type: String
    public let payload: String

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id", seq, wallTime = "wall_time", type, payload
    }

    /// The domain event this row holds.
    public func decoded() throws -> DomainEvent {
        try JSONDecoder().decode(DomainEvent.self, from: Data(payload.utf8))
    }
}

/// Appends domain events inside the caller's transaction, so a change and its event are
/// committed together or not at all. The events the hub has not acknowledged are the outbox.
enum EventLog {
    static func append(_ event: DomainEvent, deviceID: String, at wallTime: Date,
                       in db: Database) throws {
        let last = try Int.fetchOne(db, sql: "SELECT MAX(seq) FROM event WHERE device_id = ?",
                                    arguments: [deviceID]) ?? 0
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payload = String(decoding: try encoder.encode(event), as: UTF8.self)
        try StoredEvent(deviceID: deviceID, seq: last + 1, wallTime: wallTime,
                        type: event.type, payload: payload).insert(db)
    }
}
