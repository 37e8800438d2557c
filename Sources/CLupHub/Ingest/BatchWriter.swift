import CLupCore
import CLupProtocol
import Foundation
import PostgresNIO

/// The writes of one totem's batch, inside its transaction, under its store's lock: the
/// transaction and the device it writes for are its own, so no function passes them along.
/// `Ingest` decides what is applied and what is a dead letter; this stores it.
struct BatchWriter {
    let locked: StoreTransaction
    let device: DeviceID

    var connection: PostgresConnection { locked.connection }
    var logger: Logger { locked.logger }
    var store: StoreID { locked.store }

    /// The content hashes the hub holds for each of `seqs`, as an event or as dead letters.
    func copies(of seqs: [Int64]) async throws -> [Int64: Set<String>] {
        guard !seqs.isEmpty else { return [:] }
        let rows = try await connection.rows("""
            SELECT seq, content_hash FROM event WHERE store_id = \(store) AND device_id = \(device) AND seq = ANY(\(seqs)::int8[])
            UNION ALL
            SELECT seq, content_hash FROM dead_letter WHERE store_id = \(store) AND device_id = \(device) AND seq = ANY(\(seqs)::int8[])
            """, as: (Int64, String).self, logger)
        return rows.reduce(into: [:]) { $0[$1.0, default: []].insert($1.1) }
    }

    /// Stores a batch's new events at once: one insert for all, the projections in seq
    /// order, the occupancy counts added up per door, day and quarter of an hour (the seqs
    /// are new: `copies` sorted out those held before). Returns the dead letters kept.
    /// Throws what PostgreSQL refused (the caller goes again one event at a time).
    func storeAll(_ fresh: [(UploadedEvent, Ingest.Checked)]) async throws -> Int {
        var deadLettered = 0
        var applying: [(event: UploadedEvent, domain: DomainEvent, day: String)] = []
        for (event, verdict) in fresh {
            switch verdict {
            case let .apply(domain, day): applying.append((event, domain, day))
            case let .deadLetter(reason): deadLettered += try await deadLetter(event, reason: reason)
            }
        }
        guard !applying.isEmpty else { return deadLettered }
        let inserted = try await insert(applying.map { ($0.event, $0.day) })
        var tally = Projections.OccupancyTally()
        for (event, domain, day) in applying where inserted.contains(event.seq) {
            tally.count(domain, day: day, wallTime: event.wallTime)
            try await Projections.apply(domain, seq: event.seq, day: day, wallTime: event.wallTime, counting: false, self)
        }
        try await tally.add(self)
        return deadLettered
    }

    /// Inserts one event and applies it to the projections, under a savepoint; returns why
    /// it could not be applied (then nothing of it stays), or nil.
    func store(_ event: UploadedEvent, _ domain: DomainEvent, day: String) async throws -> String? {
        try await connection.query("SAVEPOINT event_apply", logger: logger)
        do {
            if try await !insert([(event, day)]).isEmpty {
                try await Projections.apply(domain, seq: event.seq, day: day, wallTime: event.wallTime, self)
            }
            try await connection.query("RELEASE SAVEPOINT event_apply", logger: logger)
            return nil
        } catch let error as PSQLError where error.code == .server {
            try await connection.query("ROLLBACK TO SAVEPOINT event_apply", logger: logger)
            return "PostgreSQL refused it: \(error.serverInfo?[.sqlState] ?? "?") \(error.serverInfo?[.message] ?? "")"
        }
    }

    /// Keeps an event the hub will not apply, with why; returns 1, or 0 if it was kept before.
    func deadLetter(_ event: UploadedEvent, reason: String) async throws -> Int {
        let rows = try await connection.all("""
            INSERT INTO dead_letter (store_id, device_id, seq, type, payload, content_hash, reason)
            VALUES (\(store), \(device), \(event.seq), \(String(event.type.prefix(64))),
                    \(String(event.payload.prefix(HubWire.maximumPayloadBytes))), \(event.contentHash), \(reason))
            ON CONFLICT DO NOTHING RETURNING seq
            """, as: Int64.self, logger)
        return rows.count
    }

    /// The one insert of events, for a batch or a single one; returns the seqs that were new.
    private func insert(_ rows: [(event: UploadedEvent, day: String)]) async throws -> Set<Int64> {
        Set(try await connection.rows(BatchStatements.InsertEvents(
            store: store, device: device, days: rows.map(\.day), seqs: rows.map(\.event.seq), walls: rows.map(\.event.wallTime),
            types: rows.map(\.event.type), payloads: rows.map(\.event.payload), hashes: rows.map(\.event.contentHash)), logger))
    }
}
