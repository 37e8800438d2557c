import CLupCore
import XCTest

/// The touch panel's calibration: the least-squares fit of raw touches to the targets, how far
/// it still misses them in millimetres, and the touches it refuses.
///
/// `CalibrationMatrix` stores libinput's [a, b, c, d, e, f] and applies x' = a·u + b·v + c,
/// y' = d·u + e·v + f to a raw touch (u, v), so the expected numbers below are in that order.
final class CalibrationSolverTests: XCTestCase {
    private func assertMatrix(_ matrix: CalibrationMatrix, _ expected: [Double], accuracy: Double,
                              file: StaticString = #filePath, line: UInt = #line) {
        let values = [matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f]
        XCTAssertEqual(matrix.values, values, file: file, line: line)
        for (index, (value, wanted)) in zip(values, expected).enumerated() {
            XCTAssertEqual(value, wanted, accuracy: accuracy, "element \(index) of \(values)", file: file, line: line)
        }
    }

    private func assertFailure(_ expected: CalibrationSolver.Failure, raw: [(x: Double, y: Double)],
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try CalibrationSolver.solve(raw: raw, widthMM: 200, heightMM: 120), file: file, line: line) { error in
            XCTAssertEqual(error as? CalibrationSolver.Failure, expected, file: file, line: line)
        }
    }

    func test_touchesOnTheTargetsGiveTheIdentity() throws {
        let solution = try CalibrationSolver.solve(raw: CalibrationSolver.targets, widthMM: 200, heightMM: 120)
        assertMatrix(solution.matrix, [1, 0, 0, 0, 1, 0], accuracy: 1e-9)
        XCTAssertEqual(solution.errorsMM.count, 4)
        XCTAssertEqual(solution.maxErrorMM, 0, accuracy: 1e-9)
        XCTAssertEqual(solution.rmsErrorMM, 0, accuracy: 1e-9)
    }

    func test_aShrunkAndShiftedPanelGetsTheInverseMap() throws {
        // u = 0.05 + 0.9·x, v = 0.02 + 0.95·y, so x = (u − 0.05) / 0.9 and y = (v − 0.02) / 0.95.
        let raw: [(x: Double, y: Double)] = CalibrationSolver.targets.map { (x: 0.05 + 0.9 * $0.x, y: 0.02 + 0.95 * $0.y) }
        let solution = try CalibrationSolver.solve(raw: raw, widthMM: 200, heightMM: 120)
        assertMatrix(solution.matrix, [1 / 0.9, 0, -0.05 / 0.9, 0, 1 / 0.95, -0.02 / 0.95], accuracy: 1e-9)
        XCTAssertEqual(solution.maxErrorMM, 0, accuracy: 1e-9)
        for (touch, target) in zip(raw, CalibrationSolver.targets) {
            let (x, y) = solution.matrix.apply(x: touch.x, y: touch.y)
            XCTAssertEqual(x, target.x, accuracy: 1e-6)
            XCTAssertEqual(y, target.y, accuracy: 1e-6)
        }
    }

    func test_aPanelTurnedClockwiseAndShiftedGetsTheRotationBack() throws {
        // u = y + 0.03, v = 0.98 − x: the panel's origin is at the picture's top right, its u
        // axis pointing down and its v axis left (a panel turned 90° clockwise). Back:
        // x = 0.98 − v (a = 0, b = −1, c = 0.98) and y = u − 0.03 (d = 1, e = 0, f = −0.03),
        // libinput's "90° clockwise" [0, −1, 1, 1, 0, 0] give or take the offset, not
        // `CalibrationMatrix.rotated90` (libinput's 270°).
        let raw: [(x: Double, y: Double)] = CalibrationSolver.targets.map { (x: $0.y + 0.03, y: 0.98 - $0.x) }
        let solution = try CalibrationSolver.solve(raw: raw, widthMM: 200, heightMM: 120)
        assertMatrix(solution.matrix, [0, -1, 0.98, 1, 0, -0.03], accuracy: 1e-9)
        XCTAssertEqual(solution.maxErrorMM, 0, accuracy: 1e-9)
    }

    func test_rotated90IsTheFitOfAPanelTurnedCounterClockwise() throws {
        // u = 1 − y, v = x: the panel's origin at the picture's bottom left, u pointing up.
        let raw: [(x: Double, y: Double)] = CalibrationSolver.targets.map { (x: 1 - $0.y, y: $0.x) }
        let solution = try CalibrationSolver.solve(raw: raw, widthMM: 200, heightMM: 120)
        let rotated90 = CalibrationMatrix.rotated90
        assertMatrix(solution.matrix, [rotated90.a, rotated90.b, rotated90.c, rotated90.d, rotated90.e, rotated90.f],
                     accuracy: 1e-9)
    }

    func test_aMirroredPanelIsPlausible() throws {
        let raw: [(x: Double, y: Double)] = CalibrationSolver.targets.map { (x: 1 - $0.x, y: $0.y) }
        let solution = try CalibrationSolver.solve(raw: raw, widthMM: 200, heightMM: 120)
        assertMatrix(solution.matrix, [-1, 0, 1, 0, 1, 0], accuracy: 1e-9)
    }

    func test_oneSloppyTouchShowsInTheErrors() throws {
        var raw = CalibrationSolver.targets
        raw[1].x += 0.02
        let solution = try CalibrationSolver.solve(raw: raw, widthMM: 200, heightMM: 120)
        XCTAssertGreaterThan(solution.maxErrorMM, 0)

        // The errors again, from the matrix found: the unclamped map, then millimetres.
        let m = solution.matrix
        let fromMatrix = zip(raw, CalibrationSolver.targets).map { pair -> Double in
            let (touch, target) = pair
            let dx = (m.a * touch.x + m.b * touch.y + m.c - target.x) * 200
            let dy = (m.d * touch.x + m.e * touch.y + m.f - target.y) * 120
            return (dx * dx + dy * dy).squareRoot()
        }
        XCTAssertEqual(solution.errorsMM.count, 4)
        for (error, expected) in zip(solution.errorsMM, fromMatrix) { XCTAssertEqual(error, expected, accuracy: 1e-9) }

        // And from first principles. y is fitted exactly (y = v), so only x misses. A least-squares
        // residual is the targets' x = (0.1, 0.9, 0.9, 0.1) projected on the direction w
        // orthogonal to the columns u, v and 1 of the fit, sign reversed. w = (1, −1, q, −q) is
        // orthogonal to 1 and to v = (0.1, 0.1, 0.9, 0.9); to u = (0.1, 0.92, 0.9, 0.1) when
        // 0.1 − 0.92 + q·(0.9 − 0.1) = 0, q = 1.025. w·x = 0.1 − 0.9 + 1.025·(0.9 − 0.1) = 0.02,
        // |w|² = 2 + 2·1.025².
        let q = 1.025
        let w = [1, -1, q, -q]
        let k = 0.02 / (2 + 2 * q * q)
        let expectedMM = w.map { abs(k * $0) * 200 }
        for (error, expected) in zip(solution.errorsMM, expectedMM) { XCTAssertEqual(error, expected, accuracy: 1e-9) }
        XCTAssertEqual(solution.maxErrorMM, k * q * 200, accuracy: 1e-9)   // about 1 mm
        let rms = (expectedMM.map { $0 * $0 }.reduce(0, +) / 4).squareRoot()
        XCTAssertEqual(solution.rmsErrorMM, rms, accuracy: 1e-9)

        // With four touches and three unknowns per axis the misfit is shared out: targets 2 and
        // 3 are missed (equally) most, not the sloppy touch's target 1.
        XCTAssertTrue([2, 3].contains(solution.worstTarget), "\(solution.worstTarget)")
        XCTAssertEqual(solution.errorsMM[solution.worstTarget], solution.maxErrorMM)
    }

    func test_threeTouchesOnThreeTargetsFitExactly() throws {
        let targets = Array(CalibrationSolver.targets.prefix(3))
        let raw: [(x: Double, y: Double)] = targets.map { (x: 0.05 + 0.9 * $0.x, y: 0.02 + 0.95 * $0.y) }
        let solution = try CalibrationSolver.solve(raw: raw, targets: targets, widthMM: 200, heightMM: 120)
        assertMatrix(solution.matrix, [1 / 0.9, 0, -0.05 / 0.9, 0, 1 / 0.95, -0.02 / 0.95], accuracy: 1e-9)
        XCTAssertEqual(solution.errorsMM.count, 3)
    }

    func test_touchesOnOneSpotOrOneLineAreDegenerate() {
        assertFailure(.degenerate, raw: Array(repeating: (x: 0.5, y: 0.5), count: 4))
        assertFailure(.degenerate, raw: [(0.1, 0.1), (0.4, 0.4), (0.9, 0.9), (0.6, 0.6)])
        assertFailure(.degenerate, raw: [(0.1, 0.5), (0.9, 0.5), (0.7, 0.5), (0.3, 0.5)])
    }

    func test_touchesOverATinyAreaAreImplausible() {
        // u = 0.45 + 0.1·x: the fit would blow the panel up 10 times each way, 100 times in area.
        let raw: [(x: Double, y: Double)] = CalibrationSolver.targets.map { (x: 0.45 + 0.1 * $0.x, y: 0.45 + 0.1 * $0.y) }
        XCTAssertThrowsError(try CalibrationSolver.solve(raw: raw, widthMM: 200, heightMM: 120)) { error in
            guard case let .implausible(determinant)? = error as? CalibrationSolver.Failure else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(determinant, 100, accuracy: 1e-6)
        }
        // And the other way: touches far wider than the targets (area × 0.16).
        let wide: [(x: Double, y: Double)] = CalibrationSolver.targets.map { (x: 2.5 * $0.x - 0.75, y: 2.5 * $0.y - 0.75) }
        XCTAssertThrowsError(try CalibrationSolver.solve(raw: wide, widthMM: 200, heightMM: 120)) { error in
            guard case let .implausible(determinant)? = error as? CalibrationSolver.Failure else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(determinant, 0.16, accuracy: 1e-9)
        }
    }

    func test_aTouchPerTargetAndAtLeastThreeAreNeeded() {
        assertFailure(.wrongCount(2), raw: [(0.1, 0.1), (0.9, 0.9)])
        assertFailure(.wrongCount(3), raw: Array(CalibrationSolver.targets.prefix(3)))
        XCTAssertThrowsError(try CalibrationSolver.solve(raw: [(0.1, 0.1), (0.9, 0.9)], targets: [(0.1, 0.1), (0.9, 0.9)],
                                                         widthMM: 200, heightMM: 120)) { error in
            XCTAssertEqual(error as? CalibrationSolver.Failure, .wrongCount(2))
        }
    }

    func test_failuresCarryTheirCodes() {
        XCTAssertEqual(CalibrationSolver.Failure.degenerate.coded.errorCode, .calibrationDegenerate)
        XCTAssertEqual(CalibrationSolver.Failure.wrongCount(2).coded.errorCode, .calibrationDegenerate)
        let implausible = CalibrationSolver.Failure.implausible(determinant: 100).coded
        XCTAssertEqual(implausible.errorCode, .calibrationTooFarOff)
        XCTAssertTrue(implausible.message.contains("100"), implausible.message)
        XCTAssertEqual(CodedError(describing: CalibrationSolver.Failure.degenerate).errorCode, .calibrationDegenerate)
    }
}
