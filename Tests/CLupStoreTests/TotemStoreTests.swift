import CLupCore
import CLupStore
import Foundation
import XCTest

final class TotemStoreTests: XCTestCase {
    var directory: URL!
    let day = BusinessDay("2026-11-21")
    let issuer = TicketIssuer(store: 7, totem: "A", validMinutes: 240)
    let noon = Date(timeIntervalSince1970: 1_795_000_000)

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("clup-store-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    var path: String { directory.appendingPathComponent("clup.sqlite").path }

    func openStore() throws -> TotemStore {
        try TotemStore(path: path, deviceID: "store-7-totem-A")
    }

    func test_numbersArePerLaneAndRestartEachDay() throws {
        let store = try openStore()
        let first = try store.issueTicket(lane: .regular, issuer: issuer, businessDay: day, at: noon)
        let second = try store.issueTicket(lane: .regular, issuer: issuer, businessDay: day, at: noon)
        let priority = try store.issueTicket(lane: .priority, issuer: issuer, businessDay: day, at: noon)
        let tomorrow = try store.issueTicket(lane: .regular, issuer: issuer, businessDay: BusinessDay("2026-11-22"),
                                              at: noon.addingTimeInterval(86_400))
        XCTAssertEqual([first, second, priority, tomorrow].map(\.number.description), ["A-001", "A-002", "AP-001", "A-001"])
    }

    func test_everyChangeAppendsOneEventWithGaplessSeq() throws {
        let store = try openStore()
        let ticket = try store.issueTicket(lane: .regular, issuer: issuer, businessDay: day, at: noon)
        try store.markPrinted(ticket.number, businessDay: day, job: 12, at: noon)
        try store.recordPassage(.entry, door: "main", businessDay: day, at: noon)
        let events = try store.events()
        XCTAssertEqual(events.map(\.seq), [1, 2, 3])
        XCTAssertEqual(events.map(\.type), ["ticket.issued", "ticket.printed", "occupancy.passage"])
        XCTAssertEqual(try events[0].decoded(), .ticketIssued(ticket))
        XCTAssertEqual(try events[1].decoded(), .ticketPrinted(ticket.number, businessDay: day, job: 12))
    }

    func test_stateSurvivesReopening() throws {
        var store: TotemStore? = try openStore()
        let ticket = try store!.issueTicket(lane: .regular, issuer: issuer, businessDay: day, at: noon)
        try store!.markPrintFailed(ticket.number, businessDay: day, reason: "E-PRN-003 printer out of paper", at: noon)
        try store!.recordPassage(.entry, door: "main", businessDay: day, at: noon)
        store = nil

        let reopened = try openStore()
        XCTAssertEqual(try reopened.tickets(on: day).map(\.state), [.printFailed])
        XCTAssertEqual(try reopened.ledger(on: day).inside, 1)
        XCTAssertEqual(try reopened.events().count, 3)
        let next = try reopened.issueTicket(lane: .regular, issuer: issuer, businessDay: day, at: noon)
        XCTAssertEqual(next.number.description, "A-002", "a failed ticket's number is never reused")
    }

    func test_printedTicketsCountAsWaiting() throws {
        let store = try openStore()
        let printed = try store.issueTicket(lane: .regular, issuer: issuer, businessDay: day, at: noon)
        _ = try store.issueTicket(lane: .regular, issuer: issuer, businessDay: day, at: noon)
        try store.markPrinted(printed.number, businessDay: day, job: 1, at: noon)
        XCTAssertEqual(try store.waitingCount(on: day), 1)
    }

    func test_markingAnUnknownTicketFailsAndAppendsNothing() throws {
        let store = try openStore()
        XCTAssertThrowsError(try store.markPrinted(TicketNumber(totem: "A", lane: .regular, sequence: 9),
                                                   businessDay: day, job: 1, at: noon)) { error in
            XCTAssertEqual(error as? StoreError, .unknownTicket("A-009"))
        }
        XCTAssertEqual(try store.events().count, 0)
    }

    func test_aCorruptFileIsRefusedAndLeftAsItWas() throws {
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try openStore()) { error in
            XCTAssertTrue("\(error)".contains("is not a readable SQLite database"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), garbage)
    }

    func test_anotherProgramsDatabaseIsRefused() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, "CREATE TABLE photos (id INTEGER PRIMARY KEY);"]
        try process.run()
        process.waitUntilExit()
        XCTAssertThrowsError(try openStore()) { error in
            XCTAssertTrue("\(error)".contains("another program"), "\(error)")
        }
    }
}
