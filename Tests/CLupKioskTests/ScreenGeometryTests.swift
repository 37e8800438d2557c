@testable import CLupKiosk
import XCTest

final class ScreenGeometryTests: XCTestCase {
    let geometry = ScreenGeometry(width: 720, height: 1280)

    func test_theWelcomeScreensButtonIsInTheMiddle() {
        XCTAssertEqual(geometry.button(on: .welcome, atX: 360, y: 640)?.action, .getTicket)
    }

    func test_tapsOutsideTheButtonHitNothing() {
        XCTAssertNil(geometry.button(on: .welcome, atX: 10, y: 10))
        XCTAssertNil(geometry.button(on: .welcome, atX: 360, y: 1140), "between the figures and the bar")
        XCTAssertNil(geometry.button(on: .welcome, atX: 107, y: 640), "just left of the button")
    }

    func test_screensWithoutButtonsHitNothing() {
        for screen in [Screen.asleep, .printing(number: "A-001"), .ticketReady(number: "A-001", wait: ""),
                       .printFailed(reason: "")] {
            XCTAssertNil(geometry.button(on: screen, atX: 360, y: 640), screen.name)
        }
    }
}

/// What the voice says, and when.
final class SpokenGuidanceTests: XCTestCase {
    func test_aTicketNumberIsReadLetterByLetterThenAsANumber() {
        XCTAssertEqual(TextCatalog.of("en").spokenNumber("A-017"), "A 17")
        XCTAssertEqual(TextCatalog.of("en").spokenNumber("AP-004"), "A P 4")
        XCTAssertEqual(TextCatalog.of("en").spokenNumber("odd"), "odd")
    }

    func test_theGreetingIsForSomeoneWhoWokeTheTotemOnly() {
        let english = CustomerTexts(language: "en")
        XCTAssertEqual(english.spoken(.welcome, after: .asleep), "Welcome. Touch the button on the screen to take a ticket.")
        XCTAssertNil(english.spoken(.welcome, after: .ticketReady(number: "A-001", wait: "now")),
                     "back to welcome after a ticket: quiet, not over \"take your ticket\"")
        XCTAssertEqual(english.spoken(.ticketReady(number: "A-017", wait: "about 5 min"), after: .printing(number: "A-017")),
                       "Your number is A 17. Please take your ticket, and scan it at the door when your number is called.")
        XCTAssertNil(english.spoken(.printing(number: "A-017"), after: .welcome))
    }

    func test_everyLanguageHasItsOwnWords() {
        let screens: [(Screen, Screen)] = [(.welcome, .asleep), (.ticketReady(number: "A-001", wait: "now"), .printing(number: "A-001")),
                                           (.printFailed(reason: "no paper"), .printing(number: "A-001"))]
        for (screen, previous) in screens {
            let lines = CustomerTexts.supported.map { CustomerTexts(language: $0).spoken(screen, after: previous) }
            XCTAssertEqual(Set(lines.compactMap { $0 }).count, CustomerTexts.supported.count, "\(screen)")
        }
    }
}
