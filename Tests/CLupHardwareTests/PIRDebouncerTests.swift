import CLupHardware
import XCTest

/// A PIR's line into presence, against synthetic timestamped levels and evaluation times.
final class PIRDebouncerTests: XCTestCase {
    /// Applies `levels` (time, active) and evaluates at each of `checks`; returns what changed when.
    func changes(_ levels: [(Double, Bool)], checks: [Double], settle: Double = 0.1, hold: Double = 3) -> [String] {
        var debouncer = PIRDebouncer(settle: settle, hold: hold)
        var events = levels.map { (time: $0.0, level: Optional($0.1)) } + checks.map { (time: $0, level: nil) }
        events.sort { $0.time < $1.time }
        var seen: [String] = []
        for event in events {
            if let level = event.level { debouncer.level(level, since: event.time) }
            if let present = debouncer.evaluate(now: event.time) { seen.append("\(event.time): \(present ? "present" : "gone")") }
        }
        return seen
    }

    func test_someoneCountsOnceTheLineHasSettled() {
        XCTAssertEqual(changes([(1.0, true)], checks: [1.05, 1.1, 1.2]), ["1.1: present"])
    }

    func test_aSpikeShorterThanTheSettleTimeIsNotAPerson() {
        XCTAssertEqual(changes([(1.0, true), (1.04, false)], checks: [1.05, 1.1, 2.0]), [])
    }

    func test_aPauseBetweenMovementsIsNotLeaving() {
        // The PIR drops for 2 s while the customer reads the screen, then sees them move again.
        XCTAssertEqual(changes([(1.0, true), (2.0, false), (4.0, true), (5.0, false)], checks: [1.2, 3.0, 4.9, 7.9, 8.0]),
                       ["1.2: present", "8.0: gone"])
    }

    func test_aSpikeReadLateIsStillASpike() {
        // Both edges of a 5 ms spike read together 0.5 s later (the loop was busy drawing).
        var debouncer = PIRDebouncer(settle: 0.1, hold: 3)
        XCTAssertEqual(debouncer.edges([GPIOEdge(active: true, time: 1.0), GPIOEdge(active: false, time: 1.005)], now: 1.5), [])
        XCTAssertFalse(debouncer.present)
        // A real arrival and departure read late together: both changes, in order.
        XCTAssertEqual(debouncer.edges([GPIOEdge(active: true, time: 2.0), GPIOEdge(active: false, time: 2.5)], now: 6.0),
                       [true, false])
    }

    func test_theDeadlineSaysWhenToLookAgain() {
        var debouncer = PIRDebouncer(settle: 0.1, hold: 3)
        XCTAssertNil(debouncer.deadline)
        debouncer.level(true, since: 10)
        XCTAssertEqual(debouncer.deadline, 10.1)
        XCTAssertNil(debouncer.evaluate(now: 10.05))
        XCTAssertEqual(debouncer.evaluate(now: 10.1), true)
        XCTAssertNil(debouncer.deadline, "nothing pending while the line agrees with what was reported")
        debouncer.level(false, since: 12)
        XCTAssertEqual(debouncer.deadline, 15)
        XCTAssertEqual(debouncer.evaluate(now: 15), false)
        XCTAssertFalse(debouncer.present)
    }

    func test_lineSpecsParseOffsetsAndNames() {
        XCTAssertEqual(GPIOLineSpec(parsing: "gpiochip0:17"), GPIOLineSpec(chip: "gpiochip0", line: .offset(17)))
        XCTAssertEqual(GPIOLineSpec(parsing: "pinctrl-bcm2711:GPIO17"), GPIOLineSpec(chip: "pinctrl-bcm2711", line: .name("GPIO17")))
        XCTAssertEqual(GPIOLineSpec(parsing: "/dev/gpiochip2:3")?.chip, "/dev/gpiochip2")
        for bad in ["gpiochip0", ":17", "gpiochip0:", "gpiochip0:PIR SENSE", ""] {
            XCTAssertNil(GPIOLineSpec(parsing: bad), bad)
        }
        XCTAssertEqual(GPIOLineSpec(parsing: "gpiochip0:PIR")?.description, "gpiochip0:PIR")
    }
}
