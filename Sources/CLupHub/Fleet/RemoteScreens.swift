import CLupCore
import CLupProtocol
import Foundation
import Logging
import PostgresNIO

/// A totem's screen seen from the panel: someone allowed (a chain administrator, or the
/// manager of the totem's store) asks; the hub puts the request on the totem's line, which
/// it follows already (`DoorLine.screenWanted`); the totem sends one frame of its screen
/// (`ScreenFrame`, the PNG `clupctl screenshot` saves) and keeps who asked in its own
/// audit trail; the panel shows it with its time. Each look is audited here too. A frame
/// is kept `kept` seconds at most: the screens hold nobody's data, and a frame stays a
/// picture of a moment.
public struct RemoteScreens: Sendable {
    let database: HubDatabase

    public init(database: HubDatabase) {
        self.database = database
    }

    /// How long a request and its frame are kept.
    public static let kept = 600.0
    /// How long a request waits for the totem: after that it is not on the line any more.
    public static let answerWithin = 60.0
    /// How far a frame's time may be from the hub's clock.
    public static let clockTolerance = 300.0

    /// A look as the panel shows it.
    public struct Look: Sendable, Equatable {
        public let id: String
        public let device: DeviceID
        public let store: StoreID
        public let askedBy: String
        public let askedAt: Date
        /// The frame and when the totem took it; nil until it comes.
        public let frame: Data?
        public let takenAt: Date?
    }

    /// Asks `device` for a frame of its screen on behalf of `manager`; returns the request's id.
    public func ask(_ device: DeviceID, for manager: PanelAccounts.Manager, by actor: AuditActor, now: Date = Date()) async throws -> String {
        let logger = database.logger
        let id = UUID().uuidString.lowercased()
        let action = "totem screen asked"
        let store = try await database.transaction { connection in
            try await connection.all("SELECT store_id FROM totem WHERE device_id = \(device) AND revoked_at IS NULL",
                                     as: StoreID.self, logger).first
        }
        do {
            // A store's manager hears the same of a totem that is not theirs as of one that
            // does not exist: the panel tells nobody which ids the chain has.
            guard let store, manager.mayManage(store) else {
                if manager.role == .chainAdmin { throw HubError(.notFound, .unknownDevice, "no enrolled totem \(device)") }
                throw HubError(.forbidden, .panelForbidden, "\(manager.name) manages store \(manager.store?.rawValue ?? "-") only")
            }
            try await database.transaction { connection in
                // The store's row first, as every transaction that touches a store takes it
                // (`StoreTransaction`): it writes the totem's row below.
                _ = try await StoreTransaction.locking(store, connection, logger)
                try await Self.purge(now: now, connection, logger)
                try await connection.query("""
                    INSERT INTO screen_request (id, store_id, device_id, asked_by, asked_at)
                    VALUES (\(id), \(store), \(device), \(manager.name), \(now))
                    """, logger: logger)
                // On its line: a new version, its long poll woken when this commits.
                try await connection.query("UPDATE totem SET line_version = line_version + 1 WHERE device_id = \(device)", logger: logger)
                try await SettingsSignals.notify(store: store, connection, logger)
                try await Audit.record(by: actor, store: store, action: action, before: nil, after: "\(device)", connection, logger)
            }
            return id
        } catch let refusal as HubError {
            await Audit.refused(by: actor, store: store, action: action, error: refusal, database: database, about: "\(device)")
            throw refusal
        }
    }

    /// What `device`'s line carries: the latest request not answered yet, asked lately, and
    /// everyone waiting for a frame of it (one frame answers them all).
    static func wanted(by device: DeviceID, now: Date = Date(), _ connection: PostgresConnection, _ logger: Logger) async throws -> ScreenWanted? {
        try await connection.rows("""
            SELECT (array_agg(id ORDER BY asked_at DESC))[1], string_agg(DISTINCT asked_by, ', ') FROM screen_request
            WHERE device_id = \(device) AND frame IS NULL AND asked_at > \(now.addingTimeInterval(-answerWithin))
            HAVING count(*) > 0
            """, as: (String, String).self, logger).first.map { ScreenWanted(id: $0.0, by: TypedText.prefix($0.1, 64)) }
    }

    /// A frame from `device`: kept if it answers a request of that totem not answered yet,
    /// asked lately.
    public func take(_ frame: ScreenFrame, from device: DeviceID, now: Date = Date()) async throws {
        if let problem = frame.problem { throw HubError.badRequest(problem) }
        // Its time is shown as the frame's: a totem whose clock is that far off sends none.
        guard abs(frame.takenAt - now.timeIntervalSince1970) <= Self.clockTolerance else {
            throw HubError.badRequest("the frame's time is \(Int(frame.takenAt - now.timeIntervalSince1970)) s off the hub's clock; at most \(Int(Self.clockTolerance))")
        }
        let logger = database.logger
        let kept = try await database.transaction { connection in
            // Every ask of this totem still waiting, the one named among them: one frame answers all.
            try await connection.all("""
                UPDATE screen_request SET frame = \(frame.png), frame_taken_at = \(Date(timeIntervalSince1970: frame.takenAt)),
                    frame_came_at = \(now)
                WHERE device_id = \(device) AND frame IS NULL AND asked_at > \(now.addingTimeInterval(-Self.answerWithin))
                    AND EXISTS (SELECT 1 FROM screen_request n WHERE n.id = \(frame.request) AND n.device_id = \(device)
                                AND n.frame IS NULL)
                RETURNING id
                """, as: String.self, logger)
        }
        guard !kept.isEmpty else {
            throw HubError(.notFound, .badHubRequest, "no request for a frame of \(device)'s screen waits under that id")
        }
    }

    /// `manager` saw the frame of look `id` (the page fetched its picture): audited.
    public func seen(_ look: Look, by actor: AuditActor) async {
        do {
            try await database.transaction { [logger = database.logger] connection in
                try await Audit.record(by: actor, store: look.store, action: "totem screen seen", before: nil,
                                       after: "\(look.device), look \(look.id)", connection, logger)
            }
        } catch {
            database.logger.error("a look at a totem's screen could not be audited", metadata: ["error": "\(error)"])
        }
    }

    /// The look `id`, for `manager`: nil if there is none (or no longer), refused if it is
    /// of a totem of another store.
    public func look(_ id: String, for manager: PanelAccounts.Manager, now: Date = Date()) async throws -> Look? {
        let logger = database.logger
        guard let row = try await database.transaction({ connection in
            try await Self.purge(now: now, connection, logger)
            return try await connection.rows("""
                SELECT id, device_id, store_id, asked_by, asked_at, frame, frame_taken_at FROM screen_request WHERE id = \(id)
                """, as: (String, DeviceID, StoreID, String, Date, Data?, Date?).self, logger).first
        }) else { return nil }
        guard manager.mayManage(row.2) else {
            throw HubError(.forbidden, .panelForbidden, "\(manager.name) manages store \(manager.store?.rawValue ?? "-") only")
        }
        return Look(id: row.0, device: row.1, store: row.2, askedBy: row.3, askedAt: row.4, frame: row.5, takenAt: row.6)
    }

    /// Forgets the requests and frames older than `kept` (deleted rows: PostgreSQL's WAL,
    /// its replicas' and the database's backups still hold them for their own time).
    static func purge(now: Date, _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("DELETE FROM screen_request WHERE asked_at < \(now.addingTimeInterval(-kept))", logger: logger)
    }

    /// The hub's round that forgets old frames, whether anyone looks again or not.
    static func round(_ database: HubDatabase, every interval: Duration = .seconds(10), logger: Logger) -> Round {
        Round(name: "forgetting old frames of totems' screens", interval: interval, database: database, logger: logger) {
            try await database.transaction { connection in try await purge(now: Date(), connection, logger) }
        }
    }
}
