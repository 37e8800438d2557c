import CLupCore
import Foundation
import XCTest

final class WaitEstimatorTests: XCTestCase {
    let start = Date(timeIntervalSince1970: 1_795_000_000)

    func test_withoutHistoryTheConfiguredDefaultIsUsed() {
        let estimate = WaitEstimator().estimate(ahead: 4, free: 0, occupied: 10, capacity: 20, defaultMinutes: 10)
        XCTAssertEqual(estimate.description, "about 10 min")
    }

    func test_withAFreePlaceTheWaitIsNow() {
        var estimator = WaitEstimator()
        estimator.recordExit(at: Moment(wall: start))
        XCTAssertEqual(estimator.estimate(ahead: 0, free: 1, occupied: 5, capacity: 20, defaultMinutes: 10).description, "now")
    }

    func test_littlesLawFromTheSmoothedExitInterval() {
        var estimator = WaitEstimator()
        // One exit every two minutes.
        for minute in stride(from: 0, through: 20, by: 2) { estimator.recordExit(at: Moment(wall: start.addingTimeInterval(Double(minute) * 60))) }
        XCTAssertEqual(estimator.meanExitInterval ?? 0, 120, accuracy: 0.001)
        // Four ahead, nothing free: the fifth exit frees our place, about 10 minutes.
        XCTAssertEqual(estimator.estimate(ahead: 4, free: 0, occupied: 10, capacity: 20, defaultMinutes: 3).description,
                       "about 10 min")
    }

    func test_smoothingDampsABurstOfExits() {
        var estimator = WaitEstimator()
        estimator.recordExit(at: Moment(wall: start))
        estimator.recordExit(at: Moment(wall: start.addingTimeInterval(120)))
        estimator.recordExit(at: Moment(wall: start.addingTimeInterval(121)))
        XCTAssertEqual(estimator.meanExitInterval ?? 0, 0.3 * 1 + 0.7 * 120, accuracy: 0.001)
    }

    func test_nearCapacityTheEstimateIsARange() {
        var estimator = WaitEstimator()
        estimator.recordExit(at: Moment(wall: start))
        estimator.recordExit(at: Moment(wall: start.addingTimeInterval(120)))
        let estimate = estimator.estimate(ahead: 4, free: 0, occupied: 19, capacity: 20, defaultMinutes: 3)
        XCTAssertEqual(estimate, WaitEstimate(low: 7, high: 15))
        XCTAssertEqual(estimate.description, "7–15 min")
    }
}
