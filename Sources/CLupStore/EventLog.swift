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
        try EventCoding.event(from: payload)
    }
}

/// Appends domain events inside the caller's transaction, so a change and its event are
/// committed together or not at all. The events the hub has not acknowledged are the outbox.
enum EventLog {
    static func append(_ event: DomainEvent, deviceID: String, at wallTime: Date,
                       in db: Database) throws {
        let last = try Int.fetchOne(db, sql: "SELECT MAX(seq) FROM event WHERE device_id = ?",
                                    arguments: [deviceID]) ?? 0
        let payload = try EventCoding.payload(event)
        try StoredEvent(deviceID: deviceID, seq: last + 1, wallTime: wallTime,
                        type: event.type, payload: payload).insert(db)
    }
}

/// Reads the outbox for the sync with the hub, on a connection of its own: the file is in
/// WAL mode, so reading never waits on the kiosk's writes nor holds them up.
public final class OutboxReader: Sendable {
    let database: DatabaseQueue
    public let deviceID: String

    public init(path: String, deviceID: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        database = try DatabaseQueue(path: path, configuration: configuration)
        self.deviceID = deviceID
    }

    /// Up to `limit` events after `seq`, oldest first.
    public func events(after seq: Int, limit: Int) throws -> [StoredEvent] {
        try database.read { db in
            try StoredEvent.fetchAll(db, sql: "SELECT * FROM event WHERE device_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                                     arguments: [deviceID, seq, limit])
        }
    }

    /// The last seq recorded, 0 when none.
    public func lastSeq() throws -> Int {
        try database.read { db in
            try Int.fetchOne(db, sql: "SELECT MAX(seq) FROM event WHERE device_id = ?", arguments: [deviceID]) ?? 0
        }
    }

    /// The device ids of the events in the file at `path` (none if there is no file).
    public static func deviceIDs(inDatabaseAt path: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            guard try db.tableExists("event") else { return [] }
            return try String.fetchAll(db, sql: "SELECT DISTINCT device_id FROM event ORDER BY device_id")
        }
    }
}
