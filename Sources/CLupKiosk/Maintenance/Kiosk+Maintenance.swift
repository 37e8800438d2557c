import Logging
import CLupCore
import CLupDrawing
import CLupHardware
import Foundation

/// Devices lent to a technician's self-test or calibration. While it lasts, what they report
/// goes to it and not to the kiosk: a test pulse never counts anyone in, a test scan never
/// admits anyone, a calibration touch never presses a button, and the screen is the test's.
final class MaintenanceHold {
    /// "the self-test of the turnstile", for messages.
    let what: String
    /// Whether the hold has the screen (the kiosk does not draw over it).
    let display: Bool
    var onPassage: ((PassageDirection) -> Void)?
    var onRead: ((WedgeDecoder.Output) -> Void)?
    var onTouch: ((TouchGesture) -> Void)?
    var onPresence: ((Bool) -> Void)?
    /// Ends the hold when nobody finishes it (a clupctl killed mid-calibration).
    var lease: EventLoop.TimerID?
    /// Puts back what the hold changed, when its lease ends it.
    var onLeaseEnd: (() -> Void)?

    init(_ what: String, display: Bool = false) {
        self.what = what
        self.display = display
    }

    /// Takes `input` if the hold listens to its device, and says what became of it; nil:
    /// the input is the kiosk's.
    func take(_ input: Kiosk.DeviceInput) -> KioskOutcome? {
        switch input {
        case let .presence(present):
            guard let onPresence else { return nil }
            onPresence(present)
            return KioskOutcome("presence \(present) taken by \(what)")
        case let .touch(gesture):
            guard let onTouch else { return nil }
            onTouch(gesture)
            return KioskOutcome("the touch is taken by \(what)")
        case let .passage(direction):
            // A test pulse: nobody went through, so the ledger is not touched.
            guard let onPassage else { return nil }
            onPassage(direction)
            return KioskOutcome("passage \(direction.rawValue) taken by \(what); not counted")
        case let .read(output):
            guard let onRead else { return nil }
            onRead(output)
            return KioskOutcome("the read is taken by \(what); nobody admitted")
        case .headset:
            return nil
        }
    }
}

extension Kiosk {
    /// Whether a customer (or an employee) is using the totem now (out of order, it is the
    /// technician's).
    var customerAtTheTotem: Bool {
        switch screens.flow.screen {
        case .asleep, .welcome, .outOfOrder: false
        default: true
        }
    }

    /// Lends the devices to `hold`; refused while another hold has them, or while a customer
    /// uses the totem (unless `force`).
    func take(_ hold: MaintenanceHold, force: Bool, leaseSeconds: Double) throws {
        if let other = maintenance {
            throw CodedError(.deviceBusy, "\(other.what) is still going on; finish it first")
        }
        if customerAtTheTotem, !force {
            throw CodedError(.deviceBusy, "a customer is using the totem (the \(screens.flow.screen.name) screen); "
                + "wait until they have gone, or add --force")
        }
        maintenance = hold
        hold.lease = loop.schedule(after: leaseSeconds) { [weak self, weak hold] in
            guard let self, let hold else { return }
            logger.warning("maintenance hold ended by its lease", metadata: ["what": "\(hold.what)"])
            hold.onLeaseEnd?()
            give(back: hold)
        }
        logger.notice("devices lent to maintenance", metadata: ["what": "\(hold.what)"])
    }

    /// Gives the devices back to the kiosk (nothing if `hold` no longer has them).
    func give(back hold: MaintenanceHold) {
        // Its callbacks hold on to the test that made it: let both go.
        (hold.onPassage, hold.onRead, hold.onTouch, hold.onPresence, hold.onLeaseEnd) = (nil, nil, nil, nil, nil)
        guard maintenance === hold else { return }
        loop.cancel(hold.lease)
        maintenance = nil
        if hold.display { redraw() }
    }

    /// Shows `frame` while a hold has the screen.
    func showMaintenance(_ frame: Canvas) throws {
        try devices.display.show(frame)
    }

    /// The test pattern: colour bars, a grid, a mark in each corner and the size in pixels.
    func testPattern() throws -> Canvas {
        let width = Double(screens.geometry.width), height = Double(screens.geometry.height)
        let canvas = try Canvas(width: Int(width), height: Int(height))
        canvas.fill(.black)
        let bars: [Color] = [.white, Color(red: 1, green: 1, blue: 0), Color(red: 0, green: 1, blue: 1), Color(red: 0, green: 1, blue: 0),
                             Color(red: 1, green: 0, blue: 1), Color(red: 1, green: 0, blue: 0), Color(red: 0, green: 0, blue: 1)]
        let barWidth = width / Double(bars.count)
        for (index, color) in bars.enumerated() {
            canvas.fillRect(x: Double(index) * barWidth, y: height * 0.35, width: barWidth, height: height * 0.3, color: color)
        }
        let grey = Color(red: 0.5, green: 0.5, blue: 0.5)
        for step in stride(from: 0.0, through: width, by: width / 10) {
            canvas.fillRect(x: min(step, width - 2), y: 0, width: 2, height: height * 0.35, color: grey)
        }
        for step in stride(from: 0.0, through: height * 0.35, by: height / 20) {
            canvas.fillRect(x: 0, y: step, width: width, height: 2, color: grey)
        }
        let mark = min(width, height) / 12
        for (x, y) in [(0.0, 0.0), (width - mark, 0), (0, height - mark), (width - mark, height - mark)] {
            canvas.fillRect(x: x, y: y, width: mark, height: mark, color: .white)
        }
        let size = min(width, height) / 16
        canvas.text("CLup self-test: \(Int(width)) × \(Int(height))", x: mark * 1.5, y: height * 0.8, size: size, color: .white)
        return canvas
    }

    /// Calibration target `index` of `CalibrationSolver.targets`: a cross in a ring, alone on the screen.
    func calibrationFrame(target index: Int, of count: Int, at point: (x: Double, y: Double)) throws -> Canvas {
        let width = Double(screens.geometry.width), height = Double(screens.geometry.height)
        let canvas = try Canvas(width: Int(width), height: Int(height))
        canvas.fill(.black)
        let x = point.x * width, y = point.y * height
        let arm = min(width, height) / 16
        canvas.fillRect(x: x - arm, y: y - 1.5, width: arm * 2, height: 3, color: .white)
        canvas.fillRect(x: x - 1.5, y: y - arm, width: 3, height: arm * 2, color: .white)
        canvas.fillRect(x: x - 4, y: y - 4, width: 8, height: 8, color: Color(red: 1, green: 0.3, blue: 0.3))
        let size = min(width, height) / 20
        let line = "Touch the centre of the cross (\(index + 1) of \(count))"
        canvas.text(line, x: (width - canvas.textWidth(line, size: size)) / 2, y: height / 2, size: size, color: .white)
        return canvas
    }
}
