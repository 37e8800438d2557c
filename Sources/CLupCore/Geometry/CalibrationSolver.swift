/// Fits libinput's calibration matrix (`CalibrationMatrix`) to touches on targets drawn at
/// known places: the touches are read with no calibration (the identity matrix), normalised
/// to 0...1 across the panel, and the matrix is the affine map taking them closest to the
/// targets in the least-squares sense, one axis at a time (x' = a·u + b·v + c,
/// y' = d·u + e·v + f, the order `CalibrationMatrix` stores and applies).
public enum CalibrationSolver {
    /// Where the four targets are drawn, normalised: insets so a touch is always on the panel.
    public static let targets: [(x: Double, y: Double)] = [(0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9)]

    /// A fitted matrix and how far it still misses each target.
    public struct Solution: Equatable, Sendable {
        public let matrix: CalibrationMatrix
        /// Per target: how far the corrected touch lands from the target, in millimetres.
        public let errorsMM: [Double]

        public init(matrix: CalibrationMatrix, errorsMM: [Double]) {
            self.matrix = matrix
            self.errorsMM = errorsMM
        }

        /// The largest of `errorsMM`.
        public var maxErrorMM: Double { errorsMM.max() ?? 0 }

        /// The root mean square of `errorsMM`.
        public var rmsErrorMM: Double {
            guard !errorsMM.isEmpty else { return 0 }
            return (errorsMM.reduce(0) { $0 + $1 * $1 } / Double(errorsMM.count)).squareRoot()
        }

        /// The target whose touch fits worst (0-based); the first of them on a tie.
        ///
        /// With four touches and three unknowns per axis, one sloppy touch's misfit is shared
        /// out over all four in a fixed pattern: this says which target is missed most, not
        /// necessarily which touch was sloppy.
        public var worstTarget: Int { errorsMM.indices.max { errorsMM[$0] < errorsMM[$1] } ?? 0 }
    }

    /// Why no matrix came of the touches.
    public enum Failure: Error, Equatable, CodedErrorConvertible {
        /// Not one touch per target, or fewer than 3 (the count of touches given).
        case wrongCount(Int)
        /// The touches are one spot, or on one line: they say nothing of one of the directions.
        case degenerate
        /// The fit would scale the panel's area by `determinant` (a·e − b·d), outside
        /// 0.25...4 in magnitude: no panel is that far off its screen.
        case implausible(determinant: Double)

        public var coded: CodedError {
            switch self {
            case let .wrongCount(count):
                CodedError(.calibrationDegenerate, "\(count) touches do not span the screen: touch each target, not the same spot")
            case .degenerate:
                CodedError(.calibrationDegenerate, "the touches do not span the screen: touch each target, not the same spot")
            case let .implausible(determinant):
                CodedError(.calibrationTooFarOff,
                           "the fit would scale the panel's area by \(CalibrationSolver.short(determinant)) (its determinant; "
                               + "0.25 to 4 is plausible): touch the centre of each target")
            }
        }
    }

    /// The least-squares fit of `raw` touches (normalised, read with the identity matrix) to
    /// `targets`, one touch per target, in the same order; the errors are in millimetres on a
    /// screen of `widthMM` × `heightMM`.
    public static func solve(raw: [(x: Double, y: Double)], targets: [(x: Double, y: Double)] = CalibrationSolver.targets,
                             widthMM: Double, heightMM: Double) throws -> Solution {
        let count = raw.count
        guard count == targets.count, count >= 3 else { throw Failure.wrongCount(count) }

        // The normal equations: N·(a, b, c) = Pᵀx and N·(d, e, f) = Pᵀy, N = PᵀP, where P's
        // rows are the touches (u, v, 1) and x, y the targets' coordinates.
        var normal: [[Double]] = [[0, 0, 0], [0, 0, 0], [0, 0, 0]]
        var towardsX: [Double] = [0, 0, 0]
        var towardsY: [Double] = [0, 0, 0]
        for (touch, target) in zip(raw, targets) {
            let row: [Double] = [touch.x, touch.y, 1]
            for i in 0..<3 {
                for j in 0..<3 { normal[i][j] += row[i] * row[j] }
                towardsX[i] += row[i] * target.x
                towardsY[i] += row[i] * target.y
            }
        }

        // det N = count³ · det(the touches' covariance): about 0 when they are one spot or on a
        // line. Scaled so, the bound does not depend on the count of touches. (`>=` so NaN fails.)
        let spread = determinantOf(normal) / Double(count * count * count)
        guard spread >= 1e-10, let solved = solveLinear(normal, [towardsX, towardsY]) else { throw Failure.degenerate }
        let (abc, def) = (solved[0], solved[1])
        let matrix = CalibrationMatrix([abc[0], abc[1], abc[2], def[0], def[1], def[2]])

        let areaScale = matrix.a * matrix.e - matrix.b * matrix.d
        guard (0.25...4).contains(abs(areaScale)) else { throw Failure.implausible(determinant: areaScale) }

        // The affine map itself, not `apply`, which clamps to the panel and would hide a miss.
        let errors = zip(raw, targets).map { pair -> Double in
            let (touch, target) = pair
            let dx = (matrix.a * touch.x + matrix.b * touch.y + matrix.c - target.x) * widthMM
            let dy = (matrix.d * touch.x + matrix.e * touch.y + matrix.f - target.y) * heightMM
            return (dx * dx + dy * dy).squareRoot()
        }
        return Solution(matrix: matrix, errorsMM: errors)
    }

    /// The determinant of the 3×3 matrix `m`.
    private static func determinantOf(_ m: [[Double]]) -> Double {
        let first = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        let second = m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        let third = m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        return first - second + third
    }

    /// The s with `m`·s = r, for each r of `columns`, by Gaussian elimination with partial
    /// pivoting on the 3×3 `m`; nil if `m` is singular.
    private static func solveLinear(_ m: [[Double]], _ columns: [[Double]]) -> [[Double]]? {
        // m with the right-hand sides as extra columns.
        var rows: [[Double]] = (0..<3).map { i -> [Double] in m[i] + columns.map { column -> Double in column[i] } }
        for column in 0..<3 {
            var pivot = column
            for row in column + 1..<3 where abs(rows[row][column]) > abs(rows[pivot][column]) { pivot = row }
            guard abs(rows[pivot][column]) > 0 else { return nil }   // also false for NaN
            rows.swapAt(column, pivot)
            let pivotRow = rows[column]
            for row in column + 1..<3 {
                let factor = rows[row][column] / pivotRow[column]
                for k in column..<pivotRow.count { rows[row][k] -= factor * pivotRow[k] }
            }
        }
        return columns.indices.map { j -> [Double] in
            var solution: [Double] = [0, 0, 0]
            for i in (0..<3).reversed() {
                var sum = rows[i][3 + j]
                for k in i + 1..<3 { sum -= rows[i][k] * solution[k] }
                solution[i] = sum / rows[i][i]
            }
            return solution
        }
    }

    /// `value` to 3 decimals for a sentence, unless that would show it as 0.
    static func short(_ value: Double) -> String {
        abs(value) >= 0.001 && abs(value) < 1e9 ? "\((value * 1000).rounded() / 1000)" : "\(value)"
    }
}
