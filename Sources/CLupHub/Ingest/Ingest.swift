import CLupCore
import CLupProtocol
import Foundation
import PostgresNIO

/// Applies a totem's batch of events: each stored once by `(device_id, seq)` with the
/// projections it changes, in one transaction; answers how far the device's log is held
/// without a gap.
public struct Ingest: Sendable {
    let database: HubDatabase

    public init(database: HubDatabase) {
        self.database = database
    }

    /// Days an event may be from the hub's today and still be stored, when the chain keeps
    /// `keptDays` days of events (`Retention`): a totem offline for more than a year (or
    /// longer than the chain keeps events), or one whose clock says 2099, gets its events
    /// dead-lettered. A day is accepted one day less than it is kept, so that no event
    /// arrives for a day whose partition is being retired.
    static func acceptedDays(keeping keptDays: Int) -> ClosedRange<Double> {
        -Double(min(400, max(1, keptDays - 1)))...2.0
    }

    /// What the hub makes of one uploaded event before storing it.
    enum Checked {
        case apply(DomainEvent, day: String)
        case deadLetter(reason: String)
    }

    static func check(_ event: UploadedEvent, now: Date, keptDays: Int = Retention.standardEventDays) -> Checked {
        guard event.payload.utf8.count <= HubWire.maximumPayloadBytes else {
            return .deadLetter(reason: "payload of \(event.payload.utf8.count) bytes; at most \(HubWire.maximumPayloadBytes)")
        }
        // Years 1970 to 5138: a totem's clock may be wrong, but not by millennia.
        guard (0..<1e11).contains(event.wallTime) else {
            return .deadLetter(reason: "wall time \(event.wallTime) is not a time the hub can store")
        }
        let decoded: DomainEvent
        do {
            decoded = try EventCoding.event(from: event.payload)
        } catch {
            return .deadLetter(reason: "not an event this hub knows: \(String(describing: error).prefix(300))")
        }
        guard decoded.type == event.type else {
            return .deadLetter(reason: "type \"\(event.type.prefix(64))\" but the payload is a \(decoded.type)")
        }
        let day = decoded.businessDay.date
        guard let number = CivilDay.number(day) else {
            return .deadLetter(reason: "business day \"\(day.prefix(32))\" is not a date")
        }
        let offset = Double(number) - (now.timeIntervalSince1970 / 86_400).rounded(.down)  // whole days from the hub's today (UTC)
        guard acceptedDays(keeping: keptDays).contains(offset) else {
            return .deadLetter(reason: "business day \(day) is outside the days the hub accepts (\(Int(offset)) days from today)")
        }
        if case let .occupancyCorrected(_, _, delta, _, _, _) = decoded, abs(delta) > 100_000 {
            return .deadLetter(reason: "a correction of \(delta) people")
        }
        return .apply(decoded, day: day)
    }

    /// The other totems enrolled at `device`'s door, unrevoked, not heard for
    /// `SilentHolder.silentAfter`, that hold places (or were granted some): nil when none.
    func silentHolders(at device: AuthenticatedDevice, now: Date) async throws -> [SilentHolder]? {
        let rows = try await database.transaction { [logger = database.logger] connection in
            try await connection.rows("""
                SELECT t.device_id, greatest(coalesce(g.issued_limit, 0), coalesce(g.outstanding_max, 0), coalesce(g.held, 0))::int8,
                       coalesce(extract(epoch FROM t.last_contact)::float8, 0)
                FROM totem t LEFT JOIN door_grant g ON g.device_id = t.device_id
                WHERE t.store_id = \(device.storeID) AND t.door = \(device.door.rawValue) AND t.device_id <> \(device.deviceID)
                    AND t.revoked_at IS NULL
                    AND coalesce(t.last_contact, t.enrolled_at) < \(now.addingTimeInterval(-SilentHolder.silentAfter))
                    AND greatest(coalesce(g.issued_limit, 0), coalesce(g.outstanding_max, 0), coalesce(g.held, 0)) > 0
                ORDER BY t.device_id LIMIT \(SilentHolder.most)
                """, as: (String, Int64, Double).self, logger)
        }
        return rows.isEmpty ? nil : rows.map { SilentHolder(device: $0.0, places: Int(clamping: $0.1), lastContact: $0.2) }
    }

    /// Stores `batch` from `device`; returns the highest seq held without a gap.
    public func apply(_ batch: EventBatch, from device: AuthenticatedDevice, now: Date = Date()) async throws -> BatchReply {
        guard batch.events.count <= HubWire.maximumBatchEvents else {
            throw HubError.badRequest("\(batch.events.count) events in one batch; at most \(HubWire.maximumBatchEvents)")
        }
        guard batch.events.allSatisfy({ $0.seq >= 1 }) else { throw HubError.badRequest("an event's seq starts at 1") }
        guard Set(batch.events.map(\.seq)).count == batch.events.count else {
            throw HubError.badRequest("a seq appears twice in the batch")
        }
        if let problem = batch.door?.problem { throw HubError.badRequest("door report: \(problem)") }
        let events = batch.events.sorted { $0.seq < $1.seq }
        let keptDays = database.keptEventDays
        let checked = events.map { Self.check($0, now: now, keptDays: keptDays) }
        var days: Set<String> = []
        for case let .apply(_, day) in checked { days.insert(day) }
        try await database.ensurePartitions(for: days)
        let logger = database.logger
        let started = ContinuousClock.now
        do {
            let stored: (BatchReply, Int)
            do {
                stored = try await storeBatch(events, checked, batch, from: device, now: now, oneByOne: false, logger)
            } catch let error as HubError where error.coded.code == ErrorCode.hubDatabaseError.rawValue {
                // PostgreSQL refused a statement of the batch, which rolled back: again, one
                // event at a time, so that only what it refuses becomes a dead letter.
                stored = try await storeBatch(events, checked, batch, from: device, now: now, oneByOne: true, logger)
            }
            var (reply, received) = stored
            HubMetrics.batchStored(events: received, deadLettered: reply.deadLettered, duration: ContinuousClock.now - started,
                                    from: device)
            await BatchSteps(database: database).run(after: batch, from: device, fresh: received > 0, now: now)
            // Not the batch's business: a hub that cannot say it still took the batch.
            reply.silentHolders = try? await silentHolders(at: device, now: now)
            return reply
        } catch {
            HubMetrics.batchFailed()
            throw error
        }
    }

    /// The batch's transaction; returns the reply and how many of its events were new to the
    /// hub. A ticket called or used here is told to the store's other doors in it: on their
    /// lines, and with a settings version where a door does not follow its line. So when the
    /// hub says it holds an admission, the issuing door's line already lists the ticket as
    /// used, and no later step can fail to tell it. What the batch sets going besides
    /// (health, door shares, notice rules) follows its commit (`BatchSteps`).
    ///
    /// With `oneByOne`, each event is stored under a savepoint of its own, and what PostgreSQL
    /// refuses becomes a dead letter; else the batch's events are stored in a few statements.
    private func storeBatch(_ events: [UploadedEvent], _ checked: [Checked], _ batch: EventBatch, from device: AuthenticatedDevice,
                            now: Date, oneByOne: Bool, _ logger: Logger) async throws -> (BatchReply, Int) {
        let (store, deviceID) = (device.storeID, device.deviceID)
        return try await database.transaction { connection in
            // The store's row before anything else, as every transaction that touches a store
            // takes it: one order of locks, so two doors' batches wait for each other, never deadlock.
            let writer = BatchWriter(locked: try await StoreTransaction.locking(store, connection, logger), device: deviceID)
            // One batch of a device at a time, whichever hub process holds it.
            guard var (acknowledged, highest) = try await connection.rows(BatchStatements.LockCursor(store: store, device: deviceID), logger)
                .first
            else { throw HubError.unauthorized(.unknownDevice, "no totem \(deviceID) is enrolled") }
            // A seq the hub may hold already (at most `highest`): the same content again (an
            // answer that was lost) is nothing new; other content, on whatever day, is a dead
            // letter. A (device, seq) is stored once.
            let copies = try await writer.copies(of: events.map(\.seq).filter { $0 <= highest })
            var fresh: [(UploadedEvent, Checked)] = []
            for (event, verdict) in zip(events, checked) {
                guard let copy = copies[event.seq] else { fresh.append((event, verdict)); continue }
                if copy.contains(event.contentHash) { continue }
                fresh.append((event, .deadLetter(reason: "seq \(event.seq) was received before with different content")))
            }
            // What the device may change: its own door, its own tickets, as `EventAuthority` says.
            let applying = fresh.compactMap { if case let .apply(domain, day) = $0.1 { (domain, day) } else { nil } }
            var authority = EventAuthority(device: device, held: try await EventAuthority.load(
                EventAuthority.ticketsToLoad(in: applying, of: device), store: store, device: deviceID, connection, logger))
            fresh = fresh.map { event, verdict in
                guard case let .apply(domain, day) = verdict else { return (event, verdict) }
                switch authority.verdict(on: domain, day: day) {
                case let .apply(allowed): return (event, .apply(allowed, day: day))
                case let .refuse(reason): return (event, .deadLetter(reason: reason))
                }
            }
            let highestBefore = highest
            highest = max(highest, events.last?.seq ?? 0)
            var deadLettered = 0
            if oneByOne {
                for (event, verdict) in fresh {
                    switch verdict {
                    case let .apply(domain, day):
                        if let reason = try await writer.store(event, domain, day: day) {
                            deadLettered += try await writer.deadLetter(event, reason: reason)
                        }
                    case let .deadLetter(reason):
                        deadLettered += try await writer.deadLetter(event, reason: reason)
                    }
                }
            } else {
                deadLettered = try await writer.storeAll(fresh)
            }
            // A ticket called or used here, new to the hub, is news for the store's other doors:
            // on their lines, and in a settings version where a door does not follow its line.
            // (An event PostgreSQL refuses on the one-by-one retry may count: a door woken for
            // nothing at worst.)
            let news = fresh.contains { event, verdict in
                if case .apply = verdict { DoorShares.changesOtherDoors(event.type) } else { false }
            }
            if news, try await !RemoteLine.otherDoorsHear(from: deviceID, writer.locked) {
                try await DoorShares.replan(writer.locked, bump: .ifSeveralDoors)
            }
            // Every seq of the batch is held now (stored before, stored now, or a dead letter).
            // With nothing held past the acknowledged seq before, the batch alone says how far
            // the log is held without a gap; else the held seqs past it are read.
            let sent = events.map(\.seq)
            if acknowledged == highestBefore {
                for seq in sent where seq == acknowledged + 1 { acknowledged = seq }
            } else {
                let held = try await connection.all("""
                    SELECT seq FROM event WHERE store_id = \(store) AND device_id = \(deviceID)
                        AND seq > \(acknowledged) AND seq <= \(acknowledged + 100_000)
                    UNION SELECT seq FROM dead_letter WHERE store_id = \(store) AND device_id = \(deviceID)
                        AND seq > \(acknowledged) AND seq <= \(acknowledged + 100_000)
                    ORDER BY seq
                    """, as: Int64.self, logger)
                for seq in held where seq == acknowledged + 1 {
                    acknowledged = seq
                }
            }
            // The device's cursor and its last contact, in one statement.
            _ = try await connection.execute(BatchStatements.MoveCursor(
                acknowledged: acknowledged, highest: highest, store: store, device: deviceID, now: now,
                outboxDepth: batch.outboxDepth, clockOffset: batch.clockOffset), logger: logger)
            return (BatchReply(acknowledged: acknowledged, deadLettered: deadLettered, hubTime: now.timeIntervalSince1970), fresh.count)
        }
    }
}
