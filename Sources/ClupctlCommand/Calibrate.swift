import ArgumentParser
import CLupCore
import CLupProtocol
import Foundation

/// `clupctl calibrate`: four targets on the screen, touched in turn; the matrix that maps
/// the raw touches onto them (libinput's six numbers), its error in millimetres, and saved
/// only when the technician says so.
struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Calibrate the touch panel: touch four targets; the matrix is saved only if you confirm.",
        discussion: "Saved in the state directory (calibration.json), it replaces hardware.calibration, now and at every start.")
    @OptionGroup var connection: Connection
    @Option(help: "How long to wait for each touch, in seconds.") var timeout = 30
    @Flag(help: "Even while a customer uses the totem.") var force = false
    @Flag(help: "Save without asking (if the error is within hardware.calibration_max_error_mm).") var yes = false

    func run() throws {
        guard (1...300).contains(timeout) else { throw ValidationError("--timeout is 1 to 300 seconds") }
        let client = connection.client(waiting: timeout + 15)
        var touches: [RawTouch] = []
        do {
            for index in CalibrationSolver.targets.indices {
                print("target \(index + 1) of \(CalibrationSolver.targets.count): touch the centre of the cross on the screen")
                fflush(nil)
                let touch = try client.send(Control.CalibrationTarget(index: index, timeoutSeconds: timeout, force: force))
                print(String(format: "  touched at (%.4f, %.4f) of the panel, target (%.2f, %.2f)", touch.rawX, touch.rawY,
                             touch.targetX, touch.targetY))
                touches.append(touch)
            }
        } catch {
            _ = try? client.send(Control.CalibrationEnd(matrix: nil))
            throw error
        }
        let size = touches[0]
        let solution: CalibrationSolver.Solution
        do {
            solution = try CalibrationSolver.solve(raw: touches.map { ($0.rawX, $0.rawY) }, widthMM: size.widthMM, heightMM: size.heightMM)
        } catch {
            _ = try? client.send(Control.CalibrationEnd(matrix: nil))
            throw error
        }
        let matrix = solution.matrix.values.map { abs($0) < 0.00005 ? 0 : $0 }
        print("calibration [\(matrix.map { String(format: "%.4f", $0) }.joined(separator: ", "))]")
        for (index, error) in solution.errorsMM.enumerated() { print(String(format: "  target %d: %.2f mm off", index + 1, error)) }
        print(String(format: "max error %.2f mm, rms %.2f mm (at most %.1f mm is kept)", solution.maxErrorMM, solution.rmsErrorMM,
                     size.maxErrorMM))
        guard solution.maxErrorMM <= size.maxErrorMM else {
            _ = try? client.send(Control.CalibrationEnd(matrix: nil))
            throw CodedError(.calibrationTooFarOff, String(format: "the fit still misses by %.2f mm (more than %.1f mm): not saved; "
                + "calibrate again, touching each cross's centre", solution.maxErrorMM, size.maxErrorMM))
        }
        let save = yes || Terminal.readVisible("save this calibration? [y/n] ")?.lowercased().hasPrefix("y") == true
        let reply = try client.send(Control.CalibrationEnd(matrix: save ? matrix : nil))
        if save {
            print("saved: in force now and at every start (\(shown(reply.source)))")
        } else {
            print("not saved; the calibration in force is kept: [\(reply.matrix.map { String(format: "%.4f", $0) }.joined(separator: ", "))]")
        }
    }
}
