import CLupCore
import XCTest

final class OccupancyLedgerTests: XCTestCase {
    func test_countsEntriesMinusExitsAndRecordsAnEventForEach() {
        var ledger = OccupancyLedger(businessDay: BusinessDay("2026-11-21"))
        let event = ledger.record(.entry, door: "main")
        ledger.record(.entry, door: "main")
        ledger.record(.exit, door: "main")
        XCTAssertEqual(ledger.inside, 1)
        XCTAssertEqual(event, .passage(direction: .entry, door: "main", businessDay: BusinessDay("2026-11-21")))
    }

    func test_neverShowsBelowZeroButKeepsCounting() {
        var ledger = OccupancyLedger(businessDay: BusinessDay("2026-11-21"))
        ledger.record(.exit, door: "main")
        ledger.record(.exit, door: "main")
        XCTAssertEqual(ledger.inside, 0)
        XCTAssertEqual(ledger.exits, 2)
        ledger.record(.entry, door: "main")
        XCTAssertEqual(ledger.inside, 0, "one in after two out: still nobody shown inside")
    }
}
