import CLupCore
import CLupProtocol
import Foundation
import XCTest

/// The hub reads a batch with `EventBatch.scanned` before JSONDecoder: it must read what
/// JSONDecoder reads, or give up.
final class EventBatchScanningTests: XCTestCase {
    func scanned(_ text: String) -> EventBatch? {
        var text = text
        return text.withUTF8 { EventBatch.scanned($0) }
    }

    func test_aBatchAsClupdSendsItIsReadAsJSONDecoderReadsIt() throws {
        let day = BusinessDay("2026-11-25")
        let event = DomainEvent.ticketCalled(TicketNumber(totem: "B", lane: .priority, sequence: 12), businessDay: day,
                                             at: Date(timeIntervalSinceReferenceDate: 817_300_000.125), reason: "a place is \"free\" — ok")
        let batch = EventBatch(
            events: [UploadedEvent(seq: 41, wallTime: 1_795_607_200.125, type: event.type, payload: try EventCoding.payload(event)),
                     UploadedEvent(seq: 42, wallTime: 0, type: "x", payload: "{\"line\":\"a\\nb\"}")],
            outboxDepth: 9_000_000_000, clockOffset: -0.75, door: DoorReport(held: 3, waiting: 1, seq: 42),
            health: TotemHealth(devices: [.init(role: "printer", state: "out of paper", detail: "é")], printer: "stopped",
                                softwareVersion: "0.12.0"))
        let text = String(decoding: try JSONEncoder().encode(batch), as: UTF8.self)
        XCTAssertEqual(scanned(text), batch)
        XCTAssertEqual(scanned(text), try JSONDecoder().decode(EventBatch.self, from: Data(text.utf8)))
    }

    func test_unusualBatchesAreReadTheSameOrLeftToJSONDecoder() throws {
        let event = #"{"seq":1,"wallTime":2.5,"type":"t","payload":"p"}"#
        let cases: [(String, Bool)] = [
            (#"{"events":[],"outboxDepth":0}"#, true),
            (#" {"outboxDepth":0,"clockOffset":null,"door":null,"health":null,"later":[{}],"events":[\#(event)]} "#, true),
            (#"{"events":[{"payload":"p","type":"t","wallTime":2,"seq":1,"new":"field"}],"outboxDepth":-1}"#, true),
            (#"{"events":[\#(event)]}"#, false),
            (#"{"events":[\#(event)],"outboxDepth":1.0}"#, false),
            (#"{"events":[\#(event)],"outboxDepth":9223372036854775808}"#, false),
            (#"{"events":[\#(event)],"outboxDepth":0,"outboxDepth":1}"#, false),
            (#"{"events":[\#(event)],"outboxDepth":0,"door":{"held":"many"}}"#, false),
            (#"{"events":[\#(event),],"outboxDepth":0}"#, false),
            (#"{"events":[\#(event)],"outboxDepth":0}{}"#, false),
        ]
        for (text, read) in cases {
            let ours = scanned(text)
            XCTAssertEqual(ours != nil, read, text)
            if let ours { XCTAssertEqual(ours, try JSONDecoder().decode(EventBatch.self, from: Data(text.utf8)), text) }
        }
    }
}
