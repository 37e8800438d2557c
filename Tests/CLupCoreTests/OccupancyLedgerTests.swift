import CLupCore
import Foundation
import XCTest

final class OccupancyLedgerTests: XCTestCase {
    let day = BusinessDay("2026-11-21")
    let noon = Date(timeIntervalSince1970: 1_795_000_000)

    func test_countsEntriesMinusExitsPerDoorAndRecordsAnEventForEach() {
        var state = DayState(businessDay: day)
        let event = state.pass(.entry, door: "main", at: Moment(wall: noon))
        state.pass(.entry, door: "main", at: Moment(wall: noon))
        state.pass(.exit, door: "side", at: Moment(wall: noon))
        XCTAssertEqual(event, [.passage(direction: .entry, door: "main", businessDay: day, at: noon, ticket: nil)])
        XCTAssertEqual(state.ledger(door: "main").inside, 2)
        XCTAssertEqual(state.ledger(door: "side").count, -1)
        XCTAssertEqual(state.inside, 1, "people may leave by another door than they came in")
    }

    func test_neverShowsBelowZeroButKeepsCounting() {
        var state = DayState(businessDay: day)
        state.pass(.exit, door: "main", at: Moment(wall: noon))
        state.pass(.exit, door: "main", at: Moment(wall: noon))
        XCTAssertEqual(state.inside, 0)
        XCTAssertEqual(state.ledger(door: "main").exits, 2)
        state.pass(.entry, door: "main", at: Moment(wall: noon))
        XCTAssertEqual(state.inside, 0, "one in after two out: still nobody shown inside")
    }
}
