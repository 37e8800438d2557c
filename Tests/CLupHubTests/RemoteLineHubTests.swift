import HTTPTypes
@testable import CLupHub
import CLupCore
import CLupProtocol
import Crypto
import Foundation
import QueueSimulation
import XCTest

/// Places in a store's line taken from a phone, at the hub: numbered for a door heard
/// lately, signed with the store's key, handed to that door's totem, called by it, and
/// bounded against abuse.
final class RemoteLineHubTests: XCTestCase {
    /// A door the hub heard from just now (an empty batch, as the totem's heartbeat).
    func heard(_ totem: TestTotem, _ hub: HubFixture, now: Date = Date()) async throws {
        _ = try await Ingest(database: hub.database).apply(totem.batch([]), from: totem.device, now: now)
    }

    func settings(_ hub: HubFixture, _ totem: TestTotem) async throws -> StoreSettingsDocument {
        let found = try await hub.database.transaction { connection in
            try await StoreSettingsReader.current(store: HubFixture.store, device: totem.device.deviceID, connection, HubFixture.logger)
        }
        return try XCTUnwrap(found)
    }

    func refusal(_ body: () async throws -> some Any) async -> HubError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error as? HubError
        }
    }

    /// The door's line as its long poll answers it (at once: `wait` 0); asking marks the
    /// door as one that follows its line apart.
    func line(_ hub: HubFixture, _ totem: TestTotem, after: Int64 = 0) async throws -> DoorLine {
        try await RemoteLine.nextLine(store: HubFixture.store, device: totem.device.deviceID, after: after, takesDoorLimit: true, wait: 0,
                                      database: hub.database, signals: SettingsSignals())
    }

    func storeVersion(_ hub: HubFixture) throws -> Int64 {
        try XCTUnwrap(Int64(try hub.sql("SELECT settings_version FROM store WHERE store_id = '7'")))
    }

    /// Doors that follow their line apart: a join or a leave makes a version of the line of
    /// the door that takes the place, and none of the store's settings (no door is woken
    /// for it but that one); their settings carry no places from phones.
    func test_aJoinAndALeaveChangeOnlyTheLineOfTheDoorThatTakesThePlace() async throws {
        try await withHub { hub in
            let remote = RemoteLine(database: hub.database)
            let a = try await hub.enrol("A", door: "north"), b = try await hub.enrol("B", door: "south")
            try await heard(a, hub)
            _ = try await line(hub, a)
            _ = try await line(hub, b)
            // The store's first place makes its booking key, which the doors must know: that
            // is a new settings version.
            let first = try storeVersion(hub)
            _ = try await remote.join(store: "7", .init(customerRef: "customer-0000", door: "A"))
            XCTAssertEqual(try storeVersion(hub), first + 1, "the store's booking key is news for the settings")
            let (atA, atB) = (try await line(hub, a), try await line(hub, b))
            XCTAssertEqual(atA.remoteTickets.count, 1)
            let before = try storeVersion(hub)
            let place = try await remote.join(store: "7", .init(customerRef: "customer-0001", door: "A"))
            XCTAssertEqual(try storeVersion(hub), before, "no new settings version for a join")
            let joined = try await line(hub, a, after: atA.version)
            XCTAssertEqual(joined.version, atA.version + 1)
            XCTAssertEqual(joined.remoteTickets.map(\.number.description), ["AR-001", place.number])
            XCTAssertEqual(joined.remoteTickets.last?.code, place.code)
            XCTAssertNil(joined.problem)
            let atBNow = try await line(hub, b, after: atB.version)
            XCTAssertEqual(atBNow, atB, "B's line is as it was")
            let forA = try await settings(hub, a)
            XCTAssertNil(forA.remoteTickets, "A follows its line apart")
            _ = try await remote.leave(store: "7", number: place.number, reference: "customer-0001")
            XCTAssertEqual(try storeVersion(hub), before, "no new settings version for a leave")
            let left = try await line(hub, a, after: joined.version)
            XCTAssertEqual(left.version, joined.version + 1)
            XCTAssertEqual(left.remoteTickets.map(\.number.description), ["AR-001"])
            XCTAssertEqual(left.leftRemote, [place.number])
        }
    }

    /// A door that never asked for its line (a totem from before the line's own feed) hears
    /// of a join at its store as before: a new settings version, its places in its settings.
    func test_aStoreWithADoorThatDoesNotFollowItsLineStillGetsASettingsVersionPerJoin() async throws {
        try await withHub { hub in
            let remote = RemoteLine(database: hub.database)
            let a = try await hub.enrol("A", door: "north"), b = try await hub.enrol("B", door: "south")
            try await heard(a, hub)
            try await heard(b, hub)
            _ = try await line(hub, b)  // B follows its line; A does not
            _ = try await remote.join(store: "7", .init(customerRef: "customer-0000", door: "A"))  // the booking key made
            let before = try storeVersion(hub)
            let place = try await remote.join(store: "7", .init(customerRef: "customer-0001", door: "A"))
            XCTAssertEqual(try storeVersion(hub), before + 1)
            let (forA, forB) = (try await settings(hub, a), try await settings(hub, b))
            XCTAssertEqual(forA.remoteTickets?.map(\.number.description), ["AR-001", place.number])
            XCTAssertNil(forB.remoteTickets)
        }
    }

    func test_aPlaceIsTakenAtADoorHeardLatelySignedByTheHubAndHandedToThatDoorOnly() async throws {
        try await withHub { hub in
            let line = RemoteLine(database: hub.database)
            let a = try await hub.enrol("A", door: "north"), b = try await hub.enrol("B", door: "south")
            try await heard(a, hub)
            // B never reached the hub: the hub chooses A, and refuses B when asked for it, saying why.
            let place = try await line.join(store: "7", .init(customerRef: "customer-0001"))
            XCTAssertEqual(place.number, "AR-001")
            XCTAssertEqual(place.door, "A")
            XCTAssertEqual(place.doorName, "north")
            XCTAssertEqual(place.state, "waiting")
            XCTAssertFalse(place.atTheDoor)
            XCTAssertEqual(place.ahead, 0)
            let silent = await refusal { try await line.join(store: "7", .init(customerRef: "customer-0002", door: "B")) }
            XCTAssertEqual(silent?.coded.code, ErrorCode.doorNotHeard.rawValue)
            XCTAssertEqual(silent?.status, .conflict)
            XCTAssertTrue(silent?.coded.message.contains("door B's totem has never reached the hub") == true, "\(String(describing: silent))")
            XCTAssertTrue(silent?.coded.message.contains("book a slot") == true)
            // A heard long ago is as silent.
            try await heard(b, hub, now: Date().addingTimeInterval(-RemoteLine.heardWithin - 30))
            let stale = await refusal { try await line.join(store: "7", .init(customerRef: "customer-0002", door: "B")) }
            XCTAssertTrue(stale?.coded.message.contains("door B's totem was last heard 1") == true, "\(String(describing: stale))")
            // A's settings carry the place and the hub's key; B's do not carry it.
            let forA = try await settings(hub, a)
            XCTAssertEqual(forA.remoteTickets?.map(\.number.description), ["AR-001"])
            XCTAssertNil(forA.problem)
            let key = try Curve25519.Signing.PublicKey(rawRepresentation: XCTUnwrap(Data(base64Encoded: XCTUnwrap(forA.totemKeys?["Z"]))))
            let keyring = TicketKeyring(store: 7, keys: [TicketPayload.hubLetter: key], ownTotem: "A")
            let payload = try keyring.verify(place.code, at: Date())
            XCTAssertEqual(payload.number.description, "AR-001")
            XCTAssertEqual(payload.issuedAt.timeIntervalSince1970, place.joinedAt.timeIntervalSince1970.rounded(.down),
                           "the code keeps whole seconds; the place keeps the millisecond")
            let forB = try await settings(hub, b)
            XCTAssertEqual(forB.remoteTickets ?? [], [])
            // A door with no totem heard at all: every door's silence is the reason.
            try hub.sql("UPDATE totem SET last_contact = NULL")
            let none = await refusal { try await line.join(store: "7", .init(customerRef: "customer-0003")) }
            XCTAssertEqual(none?.coded.code, ErrorCode.doorNotHeard.rawValue)
            XCTAssertTrue(none?.coded.message.contains("door A's totem has never reached the hub; door B's") == true)
        }
    }

    func test_theDoorsCallBecomesACalledNoticeAndThePlaceFollowsTheDoorsEvents() async throws {
        try await withHub { hub in
            let line = RemoteLine(database: hub.database)
            let a = try await hub.enrol("A", door: "north")
            try await heard(a, hub)
            let day = BusinessDay.today
            // Two printed tickets wait before it, and a priority ticket goes first anyway.
            let printed = [(1, Lane.regular), (2, .regular), (1, .priority)].map { sequence, lane in
                Ticket(number: TicketNumber(totem: "A", lane: lane, sequence: sequence), businessDay: day,
                       issuedAt: Date().addingTimeInterval(-60), state: .waiting, code: "CODE-A-\(lane)-\(sequence)")
            }
            _ = try await Ingest(database: hub.database).apply(a.batch(a.upload(printed.map { .ticketIssued($0) })), from: a.device)
            let place = try await line.join(store: "7", .init(customerRef: "customer-0001"))
            XCTAssertEqual(place.ahead, 3)
            XCTAssertEqual(place.estimatedWaitMinutes, 12, "4 × the 3 minutes assumed of a door that called nobody lately")
            // The totem takes it in, then calls it.
            let settings = try await settings(hub, a)
            let join = try XCTUnwrap(settings.remoteTickets?.first)
            let taken = Ticket(number: join.number, businessDay: day, issuedAt: join.joined, state: .waiting, code: join.code)
            _ = try await Ingest(database: hub.database).apply(a.batch(a.upload([.ticketIssued(taken)])), from: a.device)
            let atTheDoor = try await line.place(store: "7", number: "AR-001", reference: "customer-0001")
            XCTAssertTrue(atTheDoor.atTheDoor)
            XCTAssertEqual(atTheDoor.ahead, 3)
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM notice"), "0")
            _ = try await Ingest(database: hub.database).apply(a.batch(a.upload([
                .ticketCalled(join.number, businessDay: day, at: Date(), reason: "arrival order", steady: nil),
            ])), from: a.device)
            XCTAssertEqual(try hub.sql("SELECT kind || ' ' || booking_number || ' ' || customer_ref FROM notice"), "called AR-001 customer-0001")
            let called = try await line.place(store: "7", number: "AR-001", reference: "customer-0001")
            XCTAssertEqual(called.state, "called")
            XCTAssertNil(called.ahead)
            // The same call uploaded again (a lost answer) queues no second notice.
            _ = try await Ingest(database: hub.database).apply(a.batch(a.upload([
                .ticketCalled(join.number, businessDay: day, at: Date(), reason: "arrival order", steady: nil),
            ])), from: a.device)
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM notice"), "1")
            _ = try await Ingest(database: hub.database).apply(a.batch(a.upload([
                .ticketAdmitted(join.number, businessDay: day, at: Date(), steady: nil),
            ])), from: a.device)
            let over = await refusal { try await line.leave(store: "7", number: "AR-001", reference: "customer-0001") }
            XCTAssertEqual(over?.coded.code, ErrorCode.placeOver.rawValue)
        }
    }

    func test_leavingVoidsThePlaceAtTheDoorAndOnlyItsHolderMayLeaveIt() async throws {
        try await withHub { hub in
            let line = RemoteLine(database: hub.database)
            let a = try await hub.enrol("A", door: "north")
            try await heard(a, hub)
            let place = try await line.join(store: "7", .init(customerRef: "customer-0001"))
            let other = await refusal { try await line.leave(store: "7", number: place.number, reference: "customer-0002") }
            XCTAssertEqual(other?.coded.code, ErrorCode.unknownPlace.rawValue)
            XCTAssertEqual(other?.status, .notFound)
            let peek = await refusal { try await line.place(store: "7", number: place.number, reference: "customer-0002") }
            XCTAssertEqual(peek?.coded.code, ErrorCode.unknownPlace.rawValue)
            let version = try await settings(hub, a).version
            let left = try await line.leave(store: "7", number: place.number, reference: "customer-0001")
            let again = try await line.leave(store: "7", number: place.number, reference: "customer-0001")
            XCTAssertEqual(again, left, "leaving twice answers as the first time")
            let after = try await settings(hub, a)
            XCTAssertGreaterThan(after.version, version)
            XCTAssertEqual(after.remoteTickets ?? [], [])
            XCTAssertEqual(after.leftRemote, ["AR-001"])
            let state = try await line.place(store: "7", number: "AR-001", reference: "customer-0001").state
            XCTAssertEqual(state, "left")
            for bad in ["A-001", "ZR-001", "AR-0", "AR-001\n", String(repeating: "9", count: 40)] {
                let refused = await refusal { try await line.leave(store: "7", number: bad, reference: "customer-0001") }
                XCTAssertEqual(refused?.status, .badRequest, bad)
            }
        }
    }

    func test_oneReferenceHoldsOnePlaceAndTheLimitsHoldUnderParallelJoins() async throws {
        try await withHub { hub in
            let line = RemoteLine(database: hub.database)
            let a = try await hub.enrol("A", door: "north")
            try await heard(a, hub)
            // The same reference twenty times at once: one place.
            let same = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 { group.addTask { (try? await line.join(store: "7", .init(customerRef: "customer-0001"))) != nil } }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            XCTAssertEqual(same, 1)
            let twice = await refusal { try await line.join(store: "7", .init(customerRef: "customer-0001")) }
            XCTAssertEqual(twice?.coded.code, ErrorCode.alreadyInLine.rawValue)
            XCTAssertTrue(twice?.coded.message.contains("AR-001") == true)
            // Leaving and joining again, up to the day's limit for a reference.
            var number = "AR-001"
            for _ in 1..<RemoteLine.joinsPerReference {
                _ = try await line.leave(store: "7", number: number, reference: "customer-0001")
                number = try await line.join(store: "7", .init(customerRef: "customer-0001")).number
            }
            _ = try await line.leave(store: "7", number: number, reference: "customer-0001")
            let limit = await refusal { try await line.join(store: "7", .init(customerRef: "customer-0001")) }
            XCTAssertEqual(limit?.coded.code, ErrorCode.joinLimit.rawValue)
            XCTAssertEqual(limit?.status, .tooManyRequests)
            // A flood of references at once: the store's limit (20 for a capacity of 5) holds, numbers never repeat.
            try hub.sql("UPDATE store SET capacity = 5")
            let numbers = await withTaskGroup(of: String?.self) { group in
                for index in 0..<40 {
                    group.addTask { try? await line.join(store: "7", .init(customerRef: String(format: "flood-%04d", index))).number }
                }
                return await group.reduce(into: [String]()) { if let number = $1 { $0.append(number) } }
            }
            XCTAssertEqual(numbers.count, RemoteLine.minimumRemoteWaiting)
            XCTAssertEqual(Set(numbers).count, numbers.count)
            let full = await refusal { try await line.join(store: "7", .init(customerRef: "flood-0099")) }
            XCTAssertTrue(full?.coded.message.contains("at most 20") == true, "\(String(describing: full))")
        }
    }

    func test_aClosedStoreTakesNoPlaces() async throws {
        try await withHub { hub in
            let line = RemoteLine(database: hub.database)
            let a = try await hub.enrol("A", door: "north")
            try await heard(a, hub)
            try await HubAdmin(database: hub.database).setHours(id: "7", opens: "08:00", closes: "20:00", timeZone: "UTC", by: .test)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let night = calendar.date(bySettingHour: 22, minute: 0, second: 0, of: Date())!
            try await heard(a, hub, now: night)
            let closed = await refusal { try await line.join(store: "7", .init(customerRef: "customer-0001"), now: night) }
            XCTAssertEqual(closed?.coded.code, ErrorCode.storeClosed.rawValue)
            XCTAssertTrue(closed?.coded.message.contains("08:00–20:00") == true)
        }
    }

    /// 20 random lines of a door: tickets printed (regular and priority) by a totem whose
    /// clock is up to 2 s off the hub's, and places taken from phones, crowded into three
    /// seconds so that many share a second and some a millisecond. Once the door has taken the
    /// places in, what the app is told is ahead of each is what the door's own line says
    /// (issue 40: a ticket printed in the second after a join came first at the door and
    /// after it in the app).
    func test_thePlacesAheadThePhoneIsToldAreTheDoorsOwnInEveryRandomLine() async throws {
        try await withHub { hub in
            let line = RemoteLine(database: hub.database)
            let admin = HubAdmin(database: hub.database)
            var generator = SeededGenerator(seed: 40)
            let base = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 120).rounded(.down))
            for round in 0..<20 {
                let store = StoreID(String(100 + round))
                try await admin.createStore(id: store, name: "Store \(store)", capacity: 30)
                try await admin.setHours(id: store, opens: "00:00", closes: "24:00", timeZone: "UTC", by: .test)
                let totem = try await hub.enrol("A", door: "main", store: store)
                try await heard(totem, hub)
                let issuer = TicketIssuer(store: UInt32(store.rawValue)!, totem: "A", validMinutes: 240, key: Curve25519.Signing.PrivateKey())
                let policy = QueuePolicy(capacity: 30, priorityShare: 0, agingBound: 3 * 3600, presentationWindow: 300, bookingShare: 0)
                var state = DayState(businessDay: .today)
                var events = state.open(after: nil, at: Moment(wall: base), ticketValidity: 4 * 3600)
                let offset = Double(Int.random(in: -2000...2000, using: &generator)) / 1000
                var references: [String: String] = [:]
                for step in 0..<Int.random(in: 3...10, using: &generator) {
                    let millisecond = [0, 0, 1, 500, 999, Int.random(in: 0...999, using: &generator)].randomElement(using: &generator)!
                    let hubTime = base.addingTimeInterval(Double(Int.random(in: 0...2, using: &generator)) + Double(millisecond) / 1000)
                    if Int.random(in: 0..<10, using: &generator) < 4 {
                        let reference = "round-\(round)-step-\(step)"
                        let place = try await line.join(store: store, .init(customerRef: reference), now: hubTime)
                        references[place.number] = reference
                    } else {
                        let request: TicketRequest = Int.random(in: 0..<4, using: &generator) == 0 ? .priority(.elderly) : .regular
                        let issued = try state.issue(request, issuer: issuer, at: Moment(wall: hubTime.addingTimeInterval(offset), hubOffset: offset),
                                                     policy: policy)
                        guard case let .ticketIssued(ticket)? = issued.first else { return XCTFail("no ticket") }
                        events += issued + state.recordPrinted(ticket.number, job: 1)
                    }
                }
                // The door takes in the places with its settings, and uploads its log.
                let settings = try await hub.database.transaction { connection in
                    try await StoreSettingsReader.current(store: store, device: totem.device.deviceID, connection, HubFixture.logger)
                }
                events += state.takeRemote(settings?.remoteTickets ?? [], left: [], totem: "A", validity: 3600, at: Moment(wall: Date()))
                _ = try await Ingest(database: hub.database).apply(totem.batch(totem.upload(events)), from: totem.device)
                XCTAssertEqual(Set(state.line.filter { $0.lane == .remote }.map(\.number.description)), Set(references.keys), "round \(round)")
                for (number, reference) in references {
                    let place = try await line.place(store: store, number: number, reference: reference)
                    XCTAssertTrue(place.atTheDoor, "round \(round): \(number)")
                    XCTAssertEqual(place.ahead, state.placesAhead(of: TicketNumber(number)!),
                                   "round \(round): \(number) in the door's line \(state.line.map(\.number.description))")
                }
            }
        }
    }
}
