import CLupCore
import XCTest

final class TicketNumberTests: XCTestCase {
    func test_printsTotemLetterLaneAndThreeDigits() {
        XCTAssertEqual(TicketNumber(totem: "A", lane: .regular, sequence: 17).description, "A-017")
        XCTAssertEqual(TicketNumber(totem: "A", lane: .priority, sequence: 4).description, "AP-004")
        XCTAssertEqual(TicketNumber(totem: "C", lane: .booking, sequence: 1234).description, "CB-1234")
    }

    func test_parsesWhatItPrints() {
        for lane in Lane.allCases {
            let number = TicketNumber(totem: "B", lane: lane, sequence: 42)
            XCTAssertEqual(TicketNumber(number.description), number)
        }
    }

    func test_refusesMalformedNumbers() {
        for text in ["", "A", "A-", "-017", "a-017", "AX-001", "A-000", "A-01x", "A--1", "AP-P-1", "A-٣"] {
            XCTAssertNil(TicketNumber(text), text)
        }
    }
}
