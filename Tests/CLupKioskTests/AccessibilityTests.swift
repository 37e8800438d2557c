import CLupCore
import CLupHardware
@testable import CLupKiosk
import Foundation
import XCTest

/// What `kiosk-accessibility.md` says a test can check, over every screen and language:
/// two taps to a ticket, every function reached by single taps and by explore by touch,
/// every screen spoken in its language by a voice that exists, Repeat and the bar where
/// they always are, a slide off a button pressing nothing, a touch stopping the voice.
final class AccessibilityTests: XCTestCase {
    let geometry = ScreenGeometry(width: 720, height: 1280, offersBookings: true)

    func test_fromWakeToATicketIsAtMostTwoTapsInEveryLanguageOpenOrFull() {
        for language in TextCatalog.languages {
            for entrance in [ScreenFlow.Entrance.open, .full] {
                var flow = ScreenFlow(language: language)
                _ = flow.handle(.entrance(entrance))
                var taps = 0
                var effects: [ScreenFlow.Effect] = []
                // Woken by a touch (the sensor missed them), then the button in the middle of the screen.
                while !effects.contains(.issueTicket) && taps < 5 {
                    let button = geometry.button(on: flow.screen, atX: 360, y: 640, language: language)
                    effects = flow.handle(.tap(button?.action))
                    taps += 1
                }
                XCTAssertLessThanOrEqual(taps, 2, "\(language) \(entrance)")
            }
        }
    }

    /// The functions a customer can reach from the welcome screen, and how each shows.
    private func crawl(exploring: Bool) -> Set<String> {
        var found: Set<String> = []
        var seen: Set<String> = []
        func visit(_ flow: ScreenFlow, depth: Int) {
            let key = "\(flow.screen.name) \(flow.language) \(flow.largeText)"
            guard depth < 4, seen.insert(key).inserted else { return }
            for button in geometry.buttons(on: flow.screen, language: flow.language, largeText: flow.largeText) {
                var next = flow
                var effects = next.handle(.tap(button.action))
                if exploring {
                    XCTAssertEqual(effects.last, .describe(button.action), "explore: the first touch on \(button.action.name) says it")
                    effects = next.handle(.tap(button.action))
                }
                for effect in effects {
                    switch effect {
                    case .issueTicket: found.insert("ticket")
                    case .findSlots: found.insert("find slots")
                    case .repeatSpeech: found.insert("repeat")
                    case .largeTextSwitched: found.insert("large text")
                    default: break
                    }
                }
                if next.language != flow.language { found.insert("language \(next.language)") }
                if next.speechStyle != flow.speechStyle { found.insert("voice \(button.action.name)") }
                found.insert("screen \(next.screen.name)")
                visit(next, depth: depth + 1)
            }
        }
        var flow = ScreenFlow()
        if exploring { _ = flow.handle(.headset(true)) } else { _ = flow.handle(.presence(true)) }
        visit(flow, depth: 0)
        return found
    }

    func test_aCrawlerReachesEveryFunctionWithSingleTapsAndTheSameInExploreMode() {
        let taps = crawl(exploring: false)
        for function in ["ticket", "find slots", "repeat", "large text", "language it", "language de", "voice slower", "voice faster",
                         "voice quieter", "voice louder", "screen speech-settings", "screen choosing-language"] {
            XCTAssertTrue(taps.contains(function), "\(function) is not reached by single taps: \(taps.sorted())")
        }
        XCTAssertEqual(crawl(exploring: true), taps, "explore by touch reaches the same")
    }

    func test_everyScreenIsSpokenInItsLanguageByAVoiceThatExists() throws {
        for language in TextCatalog.languages {
            let texts = CustomerTexts(language: language)
            for (name, screen) in ScreenGalleryTests.screens where screen != .asleep {
                let line = try XCTUnwrap(texts.repeated(screen), "\(language) \(name): nothing said")
                XCTAssertFalse(line.isEmpty)
                if language != "en", let english = CustomerTexts(language: "en").repeated(screen) {
                    XCTAssertNotEqual(line, english, "\(language) \(name): said in English")
                }
            }
            let audio = try SpeechSynthesizer().synthesize(TextCatalog.of(language)(.spokenWelcome), language: language)
            XCTAssertGreaterThan(audio.duration, 1, "\(language): espeak-ng has a voice for it")
        }
    }

    func test_theBarKeepsItsPlaceOnEveryScreen() {
        for largeText in [false, true] {
            var places: [Button.Action: Set<String>] = [:]
            for (_, screen) in ScreenGalleryTests.screens where screen != .asleep && screen != .outOfOrder && screen != .backSoon && !screen.isStaff {
                for button in geometry.buttons(on: screen, largeText: largeText) where [.repeatSpeech, .largeText].contains(button.action) {
                    places[button.action, default: []].insert("\(button.x),\(button.y),\(button.width),\(button.height)")
                }
            }
            XCTAssertEqual(places[.repeatSpeech]?.count, 1, "Repeat moves (large text \(largeText))")
            XCTAssertEqual(places[.largeText]?.count, 1, "the large-text switch moves (large text \(largeText))")
        }
    }

    func test_aTouchThatSlidesOffAButtonPressesNothingAndATouchStopsTheVoice() throws {
        let totem = try KioskHarness()
        totem.approach()
        let button = try XCTUnwrap(totem.kiosk.screens.geometry.buttons(on: .welcome).first { $0.action == .getTicket })
        let (x, y) = ((button.x + button.width / 2) / 720, (button.y + button.height / 2) / 1280)
        let silencedBefore = totem.voice.silenced
        let outcome = totem.kiosk.touched(TouchGesture(kind: .drag, x0: x, y0: y, x1: x, y1: 0.99, milliseconds: 300))
        XCTAssertNil(outcome.ticket, outcome.sentence)
        XCTAssertTrue(totem.kiosk.desk.day.tickets.isEmpty, "down on the button, up off it: nothing pressed")
        XCTAssertGreaterThan(totem.voice.silenced, silencedBefore, "the touch stopped the voice")
    }
}
