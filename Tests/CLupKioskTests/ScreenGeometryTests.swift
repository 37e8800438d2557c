@testable import CLupKiosk
import XCTest

final class ScreenGeometryTests: XCTestCase {
    let geometry = ScreenGeometry(width: 720, height: 1280)

    func test_theWelcomeScreensButtonIsInTheMiddle() {
        XCTAssertEqual(geometry.button(on: .welcome, atX: 360, y: 640)?.action, .getTicket)
    }

    func test_tapsOutsideTheButtonHitNothing() {
        XCTAssertNil(geometry.button(on: .welcome, atX: 10, y: 10))
        XCTAssertNil(geometry.button(on: .welcome, atX: 360, y: 1200))
        XCTAssertNil(geometry.button(on: .welcome, atX: 107, y: 640), "just left of the button")
    }

    func test_screensWithoutButtonsHitNothing() {
        for screen in [Screen.asleep, .printing(number: "A-001"), .ticketReady(number: "A-001", wait: ""),
                       .printFailed(reason: "")] {
            XCTAssertNil(geometry.button(on: screen, atX: 360, y: 640), screen.name)
        }
    }
}
