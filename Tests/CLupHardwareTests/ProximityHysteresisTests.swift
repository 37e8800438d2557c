import CLupHardware
import XCTest

final class ProximityHysteresisTests: XCTestCase {
    func test_presentFromNearUntilFar_notFlappingInBetween() {
        var sensor = ProximityHysteresis(near: 200, far: 150)
        let changes = [100, 199, 200, 180, 160, 201, 150, 170, 199, 220].compactMap { sensor.reading($0) }
        XCTAssertEqual(changes, [true, false, true])
    }
}
