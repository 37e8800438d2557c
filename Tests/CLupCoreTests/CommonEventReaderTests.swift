import CLupCore
import Foundation
import XCTest

/// `CommonEventReader` (through `EventCoding.scanned`) reads the commonest payloads without
/// JSONDecoder: what it reads must be what JSONDecoder reads, and where it gives up,
/// `EventCoding.event(from:)` must answer exactly as JSONDecoder does.
final class CommonEventReaderTests: XCTestCase {
    /// The event types the reader is for: a store writes these by the thousand.
    static let common: Set = ["occupancy.passage", "ticket.called", "ticket.admitted", "ticket.no-show", "ticket.admission-lapsed",
                              "ticket.left", "ticket.printed", "ticket.submitted"]

    func test_everyGoldenPayloadOfACommonTypeIsReadAsJSONDecoderReadsIt() throws {
        let folder = EventSchemaTests.folder
        var read = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            let payload = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                .trimmingCharacters(in: .newlines)
            let decoded = try EventCoding.decodedByFoundation(payload)
            let scanned = EventCoding.scanned(payload)
            if Self.common.contains(decoded.type) {
                XCTAssertEqual(scanned, decoded, file)
                read += 1
            } else {
                XCTAssertNil(scanned, "\(file): not a type the reader is for")
            }
        }
        XCTAssertGreaterThanOrEqual(read, 11)
    }

    /// Valid JSON a later clupd (or another encoder) might write: read, or given up on, but
    /// never read differently.
    func test_unusualPayloadsAreReadAsJSONDecoderReadsThemOrLeftToIt() throws {
        let day = #""businessDay":{"date":"2026-11-25"}"#
        let cases: [(payload: String, scanned: Bool)] = [
            (#" { "passage" : { "door" : "main" , "direction" : "in" , \#(day) , "at" : 817300000.5 } } "#, true),
            (#"{"passage":{"at":817300000,\#(day),"direction":"out","door":"ma\u00efn \"B\"\/\n","ticket":null}}"#, true),
            (#"{"passage":{"at":-0.0,\#(day),"direction":"out","door":"\ud83d\ude00","extra":{"a":[1,2.5e3,{"b":null}],"c":true}}}"#, true),
            (#"{"ticketCalled":{"_0":"AP-004",\#(day),"at":1,"reason":"","steady":{"seconds":0.25,"boot":"b","more":1}}}"#, true),
            (#"{"ticketPrinted":{"_0":"A-017",\#(day),"job":-41}}"#, true),
            (#"{"passage":{"at":8.173e8,\#(day),"direction":"in","door":"main"}}"#, false),
            (#"{"passage":{"at":"2026-11-25T10:15:00Z",\#(day),"direction":"in","door":"main"}}"#, false),
            (#"{"passage":{"at":1,\#(day),"direction":"in","door":"main","door":"side"}}"#, false),
            (#"{"ticketPrinted":{"_0":"A-017",\#(day),"job":41.0}}"#, false),
            (#"{"ticketIssued":{"_0":{}}}"#, false),
        ]
        for (payload, scanned) in cases {
            XCTAssertEqual(EventCoding.scanned(payload) != nil, scanned, payload)
            let foundation = Result { try EventCoding.decodedByFoundation(payload) }
            let ours = Result { try EventCoding.event(from: payload) }
            XCTAssertEqual(try? ours.get(), try? foundation.get(), payload)
            if scanned { XCTAssertNotNil(try? foundation.get(), payload) }
        }
    }

    /// What JSONDecoder refuses, the reader gives up on, and the error is JSONDecoder's.
    func test_badPayloadsAreRefusedAsBefore() {
        let day = #""businessDay":{"date":"2026-11-25"}"#
        for payload in [
            #"{"passage":{"at":1,\#(day),"direction":"sideways","door":"main"}}"#,
            #"{"passage":{"at":1,"direction":"in","door":"main"}}"#,
            #"{"passage":{"at":1e400,\#(day),"direction":"in","door":"main"}}"#,
            #"{"passage":{"at":4e11,\#(day),"direction":"in","door":"main"}}"#,
            #"{"passage":{"at":1,\#(day),"direction":"in","door":"\ud800"}}"#,
            "{\"passage\":{\"at\":1,\(day),\"direction\":\"in\",\"door\":\"a\u{1}b\"}}",
            #"{"ticketLeft":{"_0":"A-000",\#(day),"at":1}}"#,
            #"{"ticketLeft":{"_0":"A-001",\#(day),"at":1},"passage":{}}"#,
            #"{"ticketPrinted":{"_0":"A-017",\#(day),"job":99999999999999999999}}"#,
            #"{"passage":{"at":1,\#(day),"direction":"in","door":"main"}"#,
            #"{"passage":{"at":01,\#(day),"direction":"in","door":"main"}}"#,
            #"{"passage":{"at":1,\#(day),"direction":"in","door":"main"}} x"#,
            String(repeating: "[", count: 500),
        ] {
            XCTAssertNil(EventCoding.scanned(payload), payload)
            XCTAssertThrowsError(try EventCoding.event(from: payload), payload)
            XCTAssertThrowsError(try EventCoding.decodedByFoundation(payload), payload)
        }
    }
}
