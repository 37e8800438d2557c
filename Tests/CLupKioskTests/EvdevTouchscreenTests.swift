import CLupCore
import CLupHardware
@testable import CLupKiosk
import Foundation
import XCTest

/// The live evdev touch reader on the daemon's real event loop, fed `struct input_event`
/// records through a FIFO standing in for /dev/input/eventN.
final class EvdevTouchscreenTests: XCTestCase {
    var fifo: String!

    override func setUpWithError() throws {
        fifo = "/tmp/clup-touch-\(getpid())-\(UInt16.random(in: 0...UInt16.max))"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    }

    override func tearDown() {
        unlink(fifo)
    }

    let axes: [UInt16: AxisRange] = [
        EventCode.slot: AxisRange(minimum: 0, maximum: 9),
        EventCode.positionX: AxisRange(minimum: 0, maximum: 799),
        EventCode.positionY: AxisRange(minimum: 0, maximum: 479),
    ]

    func tap(at t: Double, id: Int32, x: Int32, y: Int32) -> [InputEvent] {
        [InputEvent(time: t, type: EventCode.absolute, code: EventCode.trackingID, value: id),
         InputEvent(time: t, type: EventCode.absolute, code: EventCode.positionX, value: x),
         InputEvent(time: t, type: EventCode.absolute, code: EventCode.positionY, value: y),
         InputEvent(time: t, type: EventCode.synchronization, code: EventCode.report, value: 0),
         InputEvent(time: t + 0.08, type: EventCode.absolute, code: EventCode.trackingID, value: -1),
         InputEvent(time: t + 0.08, type: EventCode.synchronization, code: EventCode.report, value: 0)]
    }

    /// Writes `bytes` into the FIFO from a worker thread (opening blocks until the reader is there).
    func write(_ bytes: [UInt8], close closeAfter: Bool = true) -> Thread {
        let path = fifo!
        let thread = Thread {
            let fd = open(path, O_WRONLY)
            guard fd >= 0 else { return }
            _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if closeAfter { close(fd) }
        }
        thread.start()
        return thread
    }

    func test_tapsThroughTheDeviceNodeBecomeGestures_garbageAndLossAreSurvived_andAGoneDeviceComesBack() throws {
        let clock = ManualClock()
        let loop = EventLoop(clock: clock)
        let panel = EvdevTouchscreen(path: fifo, loop: loop, axes: axes, retryInterval: 0.2)
        var gestures: [TouchGesture] = []
        panel.onGesture = { gestures.append($0) }
        // The kiosk hears of the panel going and coming back from it, not by asking now and then.
        var healthSeen: [DeviceHealth.State] = []
        panel.onHealthChange = { [unowned panel] in healthSeen.append(panel.health.state) }
        panel.start()
        XCTAssertTrue(panel.isConnected)

        // A tap, a contact cut by SYN_DROPPED, out-of-range values, a partial record, then the writer goes away.
        var bytes = tap(at: 1, id: 1, x: 400, y: 240).flatMap(InputEventStream.encode)
        bytes += [InputEvent(time: 2, type: EventCode.absolute, code: EventCode.trackingID, value: 2),
                  InputEvent(time: 2, type: EventCode.absolute, code: EventCode.positionX, value: 100),
                  InputEvent(time: 2, type: EventCode.synchronization, code: EventCode.report, value: 0),
                  InputEvent(time: 2.1, type: EventCode.synchronization, code: EventCode.dropped, value: 0),
                  InputEvent(time: 2.2, type: EventCode.synchronization, code: EventCode.report, value: 0)]
            .flatMap(InputEventStream.encode)
        bytes += tap(at: 3, id: 3, x: 5000, y: -40).flatMap(InputEventStream.encode)
        bytes += [0x01, 0x02, 0x03]
        _ = write(bytes)

        // The reader takes what arrives, sees the writer leave, releases its contacts and
        // retries (time moves only here, 10 ms a turn); then the device is back.
        XCTAssertTrue(turn(loop, clock, until: { panel.disconnects >= 1 }), "the writer's leaving was never seen")
        XCTAssertEqual(gestures.count, 2)
        _ = write(tap(at: 10, id: 4, x: 0, y: 479).flatMap(InputEventStream.encode))
        XCTAssertTrue(turn(loop, clock, until: { gestures.count >= 3 }), "no gesture after the device came back")
        XCTAssertEqual(gestures.count, 3, "two taps, the out-of-range one clamped; the cut contact made none; then one after reconnecting")
        XCTAssertEqual(gestures.map(\.kind), [.tap, .tap, .tap])
        XCTAssertEqual(gestures[0].x0, 400.0 / 799, accuracy: 0.001)
        XCTAssertEqual([gestures[1].x0, gestures[1].y0], [1, 0])
        XCTAssertEqual([gestures[2].x0, gestures[2].y0], [0, 1])
        XCTAssertEqual(Array(healthSeen.prefix(3)), [.ok, .missing, .ok], "opened, gone, back")
        panel.stop()
    }

    /// Turns `loop`, time passing 10 ms a turn, until `condition` holds (a minute of real
    /// time at most, for a machine that busy).
    func turn(_ loop: EventLoop, _ clock: ManualClock, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while !condition() {
            guard Date() < deadline else { return false }
            clock.advance(0.01)
            loop.turn()
            usleep(1000)
        }
        return true
    }

    func test_aMissingDeviceIsReportedAndRetried() {
        let loop = EventLoop()
        let panel = EvdevTouchscreen(path: "/dev/input/no-such-device", loop: loop, axes: axes, retryInterval: 0.05)
        panel.start()
        XCTAssertFalse(panel.isConnected)
        XCTAssertEqual(panel.health.state, .missing)
        XCTAssertTrue(panel.health.detail.contains("No such file or directory"), panel.health.detail)
    }
}
