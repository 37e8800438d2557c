import CLupCore
@testable import CLupKiosk
import Foundation
import XCTest

/// What happens at a time of day (the store opening and closing, a new business day) happens
/// on its minute, a wall clock set meanwhile included, and nobody at the totem leaves its loop
/// asleep in between instead of looking every second.
final class KioskTimeOfDayTests: XCTestCase {
    /// Lets the loop sleep as it would, each time until its next timer, for `seconds` of
    /// nobody at the totem; returns how many times it woke.
    func wakeups(of totem: KioskHarness, over seconds: Double) -> Int {
        var (passed, woke) = (0.0, 0)
        while passed < seconds, let sleep = totem.loop.secondsToNextTimer {
            totem.clock.advance(max(0, sleep))
            passed += max(0, sleep)
            totem.settle()
            woke += 1
        }
        return woke
    }

    func test_nobodyAtTheTotemWakesItsLoopOnlyNowAndThen() throws {
        let totem = try KioskHarness {
            $0.store.opensMinute = 8 * 60
            $0.store.closesMinute = 20 * 60
        }
        // Ten minutes of an open store with nobody there: the devices are looked at twice a
        // minute; the hours, the day and the queue have nothing due.
        XCTAssertLessThanOrEqual(wakeups(of: totem, over: 600), 21)
        XCTAssertEqual(totem.kiosk.screens.flow.entrance, .open)
    }

    func test_theStoreOpensAndClosesOnItsMinute_andWhenTheClockIsSetPastIt() throws {
        // The harness's clock reads 11:30:00 UTC.
        let totem = try KioskHarness {
            $0.store.opensMinute = 11 * 60 + 31
            $0.store.closesMinute = 11 * 60 + 33
        }
        let closed = ScreenFlow.Entrance.closed(hours: "11:31–11:33")
        XCTAssertEqual(totem.kiosk.screens.flow.entrance, closed)
        totem.clock.advance(59.9)
        totem.settle()
        XCTAssertEqual(totem.kiosk.screens.flow.entrance, closed, "11:30:59.9")
        totem.clock.advance(0.1)
        totem.settle()
        XCTAssertEqual(totem.kiosk.screens.flow.entrance, .open, "11:31:00")
        // NTP sets the clock two minutes on, past closing: no time passed for the loop's timers.
        totem.clock.stepWall(120)
        totem.settle()
        XCTAssertEqual(totem.kiosk.screens.flow.entrance, closed, "11:33:00 by the clock set")
        totem.approach()
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .storeClosed(hours: "11:31–11:33"))
    }

    func test_aNewBusinessDayBeginsAtItsStart_andWhenTheClockIsSetPastIt() throws {
        // 2026-11-22 11:30 UTC; business days start at 05:00.
        let totem = try KioskHarness()
        XCTAssertEqual(totem.kiosk.desk.day.businessDay, BusinessDay("2026-11-22"))
        // The clock is set to 05:00 the next morning (a totem that booted without it, say).
        totem.clock.stepWall(17.5 * 3600)
        totem.settle()
        XCTAssertEqual(totem.kiosk.desk.day.businessDay, BusinessDay("2026-11-23"))
        totem.clock.advance(86_399)
        totem.settle()
        XCTAssertEqual(totem.kiosk.desk.day.businessDay, BusinessDay("2026-11-23"), "04:59:59")
        totem.clock.advance(1)
        totem.settle()
        XCTAssertEqual(totem.kiosk.desk.day.businessDay, BusinessDay("2026-11-24"), "05:00:00")
    }
}
