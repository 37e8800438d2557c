import CLupHardware
import XCTest

/// Turnstile pulses against synthetic, timestamped edges.
final class PulseDebouncerTests: XCTestCase {
    /// Feeds (time, active) edges; returns the times passages were counted.
    func passages(_ edges: [(Double, Bool)], _ debouncer: PulseDebouncer = PulseDebouncer(minimumPulse: 0.03, lockout: 0.3)) -> [Double] {
        var debouncer = debouncer
        return edges.compactMap { time, active in debouncer.edge(active: active, at: time) ? time : nil }
    }

    func test_aCleanPulseIsOnePassage() {
        XCTAssertEqual(passages([(1.0, true), (1.08, false)]), [1.08])
    }

    func test_aSpikeShorterThanTheMinimumPulseIsNoise() {
        XCTAssertEqual(passages([(1.0, true), (1.01, false)]), [])
    }

    func test_relayBounceAfterAPassageIsNotAnotherPerson() {
        let bouncing: [(Double, Bool)] = [(1.0, true), (1.1, false), (1.12, true), (1.17, false), (1.2, true), (1.26, false)]
        XCTAssertEqual(passages(bouncing), [1.1])
    }

    func test_twoPeopleOutsideTheLockoutAreTwoPassages() {
        XCTAssertEqual(passages([(1.0, true), (1.1, false), (1.5, true), (1.6, false)]), [1.1, 1.6])
    }

    func test_repeatedActiveEdgesKeepTheFirstStart() {
        // Some GPIO drivers report the same level twice; the pulse is measured from the first.
        XCTAssertEqual(passages([(1.0, true), (1.02, true), (1.04, false)]), [1.04])
    }

    func test_aReleaseWithoutAPressIsIgnored() {
        XCTAssertEqual(passages([(1.0, false), (1.5, false)]), [])
    }
}
