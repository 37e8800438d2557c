import CLupCore
import CLupHardware
import CLupProtocol
import Foundation
import Logging

/// The touch panel's calibration (`clupctl calibrate`): four targets shown one after the
/// other, each answered with the raw touch on it; clupctl solves the matrix and sends it
/// back to be saved in `STATE/calibration.json` and put in force. While it runs, the panel
/// and the screen are lent to it (`MaintenanceHold`), and the calibration there was comes
/// back if it is not saved.
final class TouchCalibration {
    /// `STATE/calibration.json`.
    let path: String
    /// Where the calibration in force comes from.
    private(set) var source = "hardware.calibration"
    /// A calibration under way.
    private var inProgress: CalibrationInProgress?
    private unowned let kiosk: Kiosk
    private let touchscreen: Touchscreen
    private let runtime: KioskRuntime
    private var loop: EventLoop { runtime.loop }
    private var clock: any Clock { runtime.clock }
    private var logger: Logger { runtime.logger }

    /// Puts the saved calibration in force, if there is a sound one (a damaged file is
    /// ignored, and the log says why: `hardware.calibration` holds).
    init(path: String, kiosk: Kiosk, runtime: KioskRuntime) {
        self.path = path
        self.kiosk = kiosk
        touchscreen = kiosk.devices.touchscreen
        self.runtime = runtime
        switch SavedCalibration.read(from: path) {
        case let .success(saved)?:
            touchscreen.calibration = CalibrationMatrix(saved.matrix)
            source = "\(path) (clupctl calibrate, by \(saved.by) at \(saved.at.formatted(.iso8601)))"
        case let .failure(problem)?:
            runtime.logger.error("the saved calibration is ignored", metadata: ["problem": "\(problem)"])
        case nil:
            break
        }
    }

    /// Shows target `index` and answers with the first touch on it, read uncalibrated. The
    /// first target takes the touch panel and the screen until `calibrationEnd` (or 120 s).
    func target(_ index: Int, timeoutSeconds: Int, force: Bool) throws -> PendingReply<RawTouch> {
        let targets = CalibrationSolver.targets
        guard targets.indices.contains(index), (1...300).contains(timeoutSeconds) else {
            throw CodedError(.requestNotUnderstood, "a calibration target is 0 to \(targets.count - 1), waited for 1 to 300 s")
        }
        let hold: MaintenanceHold
        if index == 0 {
            if let calibrating = inProgress { endCalibration(calibrating, keep: nil) }
            hold = MaintenanceHold("the calibration of the touch panel", display: true)
            // Four touches and the answer, with time to spare; past it the calibration there was is put back.
            try kiosk.take(hold, force: force, leaseSeconds: Double(timeoutSeconds * targets.count) + 60)
            let previous = touchscreen.calibration
            inProgress = CalibrationInProgress(hold: hold, previous: previous)
            hold.onLeaseEnd = { [unowned self, unowned hold] in
                guard inProgress?.hold === hold else { return }
                touchscreen.calibration = previous
                inProgress = nil
            }
            touchscreen.calibration = .identity
        } else {
            guard let calibrating = inProgress, kiosk.maintenance === calibrating.hold else {
                throw CodedError(.calibrationNotStarted, "no calibration in progress: start again from the first target")
            }
            hold = calibrating.hold
        }
        let target = targets[index]
        try kiosk.showMaintenance(try kiosk.calibrationFrame(target: index, of: targets.count, at: target))
        let pending = PendingReply<RawTouch>("calibration target \(index + 1)", seconds: Double(timeoutSeconds) + 5)
        let size = screenMM()
        let maxError = kiosk.config.hardware.calibrationMaxErrorMM
        let timer = loop.schedule(after: Double(timeoutSeconds)) { [unowned self] in
            hold.onTouch = nil
            if let calibrating = inProgress { endCalibration(calibrating, keep: nil) }
            pending.finish(.failure(CodedError(.selfTestTimedOut, "no touch on target \(index + 1) within \(timeoutSeconds) s")))
        }
        hold.onTouch = { [unowned self] gesture in
            guard gesture.kind == .tap || gesture.kind == .longPress else { return }
            hold.onTouch = nil
            loop.cancel(timer)
            pending.finish(.success(RawTouch(index: index, targetX: target.x, targetY: target.y, rawX: gesture.x1, rawY: gesture.y1,
                                             widthMM: size.width, heightMM: size.height, maxErrorMM: maxError)))
        }
        pending.onCancel = { [unowned self] in
            loop.cancel(timer)
            if let calibrating = inProgress { endCalibration(calibrating, keep: nil) }
        }
        return pending
    }

    /// Ends the calibration: `matrix` is checked, saved in the state directory and put in
    /// force; nil puts back the calibration there was.
    func end(_ matrix: [Double]?, by who: String, from origin: String) throws -> CalibrationReply {
        let calibrating = inProgress
        guard let matrix else {
            if let calibrating { endCalibration(calibrating, keep: nil) }
            return CalibrationReply(matrix: touchscreen.calibration.values, source: source + " (kept)")
        }
        guard let calibrating, kiosk.maintenance === calibrating.hold else {
            throw CodedError(.calibrationNotStarted, "no calibration in progress (it ended, or its lease ran out): run clupctl calibrate again")
        }
        guard matrix.count == 6, matrix.allSatisfy(\.isFinite), matrix.allSatisfy({ abs($0) <= 10 }) else {
            throw CodedError(.calibrationTooFarOff, "a calibration is 6 finite numbers of at most 10")
        }
        let determinant = matrix[0] * matrix[4] - matrix[1] * matrix[3]
        guard (0.25...4).contains(abs(determinant)) else {
            throw CodedError(.calibrationTooFarOff, "the matrix would scale the panel's area by \(determinant): not a plausible panel")
        }
        let saved = SavedCalibration(matrix: matrix, at: clock.now(), by: who)
        try saved.write(to: path)
        endCalibration(calibrating, keep: CalibrationMatrix(matrix))
        kiosk.record([AuditEntry(role: .technician, who: who, action: .calibrated,
                                 result: matrix.map { String(format: "%.4f", $0) }.joined(separator: " "), from: origin)])
        logger.notice("touch panel calibrated", metadata: ["matrix": "\(matrix)", "by": "\(who)"])
        return CalibrationReply(matrix: matrix, source: source)
    }

    private func endCalibration(_ calibrating: CalibrationInProgress, keep matrix: CalibrationMatrix?) {
        touchscreen.calibration = matrix ?? calibrating.previous
        if matrix != nil { source = "\(path) (clupctl calibrate)" }
        inProgress = nil
        kiosk.give(back: calibrating.hold)
    }

    /// The screen's size in millimetres: from the display, else the configuration.
    func screenMM() -> (width: Double, height: Double) {
        kiosk.devices.display.physicalSizeMM ?? (kiosk.config.screen.widthMM, kiosk.config.screen.heightMM)
    }
}

/// A calibration under way: the hold on the panel and the screen, and the calibration to put
/// back if it is not saved.
struct CalibrationInProgress {
    let hold: MaintenanceHold
    let previous: CalibrationMatrix
}

/// The calibration `clupctl calibrate` saved, in `STATE/calibration.json`; it replaces
/// `hardware.calibration` at start.
struct SavedCalibration: Codable, Equatable {
    let matrix: [Double]
    let at: Date
    let by: String

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let temporary = path + ".tmp"
        try encoder.encode(self).write(to: URL(fileURLWithPath: temporary))
        let fd = open(temporary, O_RDONLY)
        if fd >= 0 { fsync(fd); close(fd) }
        guard rename(temporary, path) == 0 else {
            throw CodedError(.stateDirectoryUncreatable, "cannot save \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// The saved calibration, if there is a sound one (a damaged file is ignored: the
    /// configuration's calibration holds, and the log says why).
    static func read(from path: String) -> Result<SavedCalibration, CodedError>? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard data.count < 4096, let saved = try? decoder.decode(SavedCalibration.self, from: data), saved.matrix.count == 6,
              saved.matrix.allSatisfy({ $0.isFinite && abs($0) <= 10 }) else {
            return .failure(CodedError(.badConfiguration, "\(path) is not a calibration clupctl saved; using hardware.calibration"))
        }
        return .success(saved)
    }
}
