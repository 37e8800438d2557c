@testable import CLupHub
import CLupCore
import CLupProtocol
import Crypto
import Foundation
import Logging
import PostgresNIO
import XCTest

/// One test's hub, in process: a database of its own (a copy of a template the migrations
/// were applied to once) on the private PostgreSQL, its connection pool running, and store
/// 7 open round the clock with capacity 30.
final class HubFixture: Sendable {
    let database: HubDatabase
    let name: String
    let postgres: PrivatePostgres
    private let pool: Task<Void, Never>

    static let store: StoreID = "7"

    private init(database: HubDatabase, name: String, postgres: PrivatePostgres, pool: Task<Void, Never>) {
        self.database = database
        self.name = name
        self.postgres = postgres
        self.pool = pool
    }

    /// A fresh hub database with store 7.
    static func start() async throws -> HubFixture {
        let postgres = try PrivatePostgres.shared.get()
        try await Template.shared.ensure(postgres)
        let name = "hub_\(UInt64.random(in: 0...UInt64.max))"
        try postgres.psql("CREATE DATABASE \(name) TEMPLATE hub_template")
        // A short deadline: the tests that hold PostgreSQL up see the 503 soon.
        let database = try HubDatabase(settings: settings(postgres, name), logger: logger, deadline: .seconds(3))
        let pool = Task { await database.run() }
        let fixture = HubFixture(database: database, name: name, postgres: postgres, pool: pool)
        try await HubAdmin(database: database).createStore(id: store, name: "CLup Market", capacity: 30)
        try await HubAdmin(database: database).setHours(id: store, opens: "00:00", closes: "24:00", timeZone: "UTC", by: .test)
        return fixture
    }

    /// Stops the pool and drops the database.
    func stop() async {
        pool.cancel()
        _ = await pool.value
        _ = try? postgres.psql("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// psql on this test's database.
    @discardableResult
    func sql(_ text: String) throws -> String { try postgres.psql(text, database: name) }

    /// Enrols a totem of `store` (7 unless said) as `letter` at `door`, as `clupd enrol` would.
    func enrol(_ letter: String, door: DoorName, store: StoreID = HubFixture.store) async throws -> TestTotem {
        let enrolment = Enrolment(database: database)
        let code = try await enrolment.makeCode(store: store, letter: letter, door: door, lifetime: 3600)
        let deviceKey = Curve25519.Signing.PrivateKey(), ticketKey = Curve25519.Signing.PrivateKey()
        let reply = try await enrolment.enrol(EnrolmentRequest(
            code: code, deviceKey: deviceKey.publicKey.rawRepresentation.base64EncodedString(),
            ticketKey: ticketKey.publicKey.rawRepresentation.base64EncodedString(), softwareVersion: "test"))
        return TestTotem(device: AuthenticatedDevice(deviceID: DeviceID(reply.deviceID), storeID: StoreID(reply.storeID), letter: reply.letter,
                                                     door: DoorName(reply.door)))
    }

    static let logger: Logger = {
        var logger = Logger(label: "clup-hub-tests")
        logger.logLevel = .critical
        return logger
    }()

    static func settings(_ postgres: PrivatePostgres, _ name: String) -> DatabaseSettings {
        var settings = DatabaseSettings()
        settings.socketDirectory = postgres.socketDirectory
        settings.port = 5432
        settings.user = "clup"
        settings.name = name
        settings.connections = 8
        return settings
    }

    /// The migrated template, made once per test process.
    actor Template {
        static let shared = Template()
        private var made = false

        func ensure(_ postgres: PrivatePostgres) async throws {
            guard !made else { return }
            try postgres.psql("DROP DATABASE IF EXISTS hub_template")
            try postgres.psql("CREATE DATABASE hub_template")
            let database = try HubDatabase(settings: HubFixture.settings(postgres, "hub_template"), logger: HubFixture.logger)
            let pool = Task { await database.run() }
            _ = try await database.migrate()
            pool.cancel()
            _ = await pool.value
            made = true
        }
    }
}

/// Runs `body` with a fresh hub, stopped afterwards whatever happens.
func withHub(_ body: (HubFixture) async throws -> Void) async throws {
    let hub = try await HubFixture.start()
    do {
        try await body(hub)
    } catch {
        await hub.stop()
        throw error
    }
    await hub.stop()
}

/// An enrolled totem as the hub knows it, with the log it uploads: each event gets the next seq.
final class TestTotem: @unchecked Sendable {
    let device: AuthenticatedDevice
    private(set) var lastSeq: Int64 = 0

    init(device: AuthenticatedDevice) {
        self.device = device
    }

    var letter: Character { Character(device.letter) }
    var door: String { device.door.rawValue }

    /// The events as the totem uploads them (the payload as its event log stores it), numbered on.
    func upload(_ events: [DomainEvent], at wallTime: Date = Date()) -> [UploadedEvent] {
        events.map { event in
            lastSeq += 1
            return Self.uploaded(event, seq: lastSeq, at: wallTime)
        }
    }

    static func uploaded(_ event: DomainEvent, seq: Int64, at wallTime: Date = Date()) -> UploadedEvent {
        let payload = try! EventCoding.payload(event)
        return UploadedEvent(seq: seq, wallTime: wallTime.timeIntervalSince1970, type: event.type, payload: payload)
    }

    /// A batch of `events` with this door's figures.
    func batch(_ events: [UploadedEvent], held: Int = 0, waiting: Int = 0) -> EventBatch {
        EventBatch(events: events, outboxDepth: 0, clockOffset: 0, door: DoorReport(held: held, waiting: waiting, seq: lastSeq))
    }

    /// A ticket of this totem's, issued now on `day`.
    func ticket(_ sequence: Int, day: BusinessDay, lane: Lane = .regular) -> Ticket {
        Ticket(number: TicketNumber(totem: letter, lane: lane, sequence: sequence), businessDay: day, issuedAt: Date(),
               state: .printing, code: "CODE-\(device.letter)-\(sequence)")
    }
}

extension BusinessDay {
    /// Today in UTC, as the hub's store 7 has it.
    static var today: BusinessDay {
        BusinessDay(containing: Date(), startMinute: 0, timeZone: TimeZone(identifier: "UTC")!)
    }
}

extension AuditActor {
    /// Who the unit tests' changes are audited as.
    static let test = AuditActor(who: "test", source: "a unit test")
}
