import CLupCore
import CLupHardware
@testable import CLupKiosk
import CTestSupport
import Foundation
import XCTest

/// The Linux backends of presence, turnstile and serial reader on the real event loop,
/// with the stand-ins this machine allows: a regular file for sysfs, FIFOs for evdev
/// nodes, a pseudo-terminal for the serial port.
///
/// Time is a `ManualClock` that the tests move: the loop's timers (polling, retries, pulses,
/// cut-off codes) fire when the test says, and what a writer thread sends is waited for,
/// so a busy machine changes how long a test takes, never what it sees.
final class LinuxDeviceTests: XCTestCase {
    var directory: URL!
    let clock = ManualClock()
    /// Opened writers (FIFOs) are closed once this is signalled, as if the device was unplugged.
    let unplug = DispatchSemaphore(value: 0)

    override func setUpWithError() throws {
        // A device that gives up on garbage closes its end while `feed` may still be
        // writing: the writer gets EPIPE, as clupd would, not a SIGPIPE that ends the tests.
        signal(SIGPIPE, SIG_IGN)
        directory = URL(fileURLWithPath: "/tmp/clup-devices-\(getpid())-\(UInt16.random(in: 0...UInt16.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Lets `seconds` pass on the loop's clock and handles what is due.
    func pass(_ seconds: Double, on loop: EventLoop) {
        clock.advance(seconds)
        loop.turn()
    }

    /// Turns `loop` (time passing in steps of `step`) until `condition` holds: what other
    /// threads send arrives when it arrives. A minute at most, for a machine that busy.
    @discardableResult
    func turn(_ loop: EventLoop, step: Double = 0, until condition: () -> Bool,
              file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while !condition() {
            guard Date() < deadline else {
                XCTFail("not within a minute", file: file, line: line)
                return false
            }
            pass(step, on: loop)
            usleep(1000)
        }
        return true
    }

    /// Writes `bytes` into the FIFO at `path` from a worker thread; with `holdOpen`, the
    /// writer stays until `unplug` is signalled.
    func feed(_ path: String, _ bytes: [UInt8], holdOpen: Bool = false) {
        let unplug = self.unplug
        Thread {
            let fd = open(path, O_WRONLY)
            guard fd >= 0 else { return }
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if holdOpen { _ = unplug.wait(timeout: .now() + 60) }
            close(fd)
        }.start()
    }

    func test_iioProximityWakesAndSleepsWithHysteresis() throws {
        let raw = directory.appendingPathComponent("in_proximity_raw")
        try "10\n".write(to: raw, atomically: true, encoding: .ascii)
        let loop = EventLoop(clock: clock)
        let sensor = IIOPresenceSensor(path: raw.path, near: 200, far: 150, loop: loop, interval: 0.05)
        var changes: [Bool] = []
        sensor.onChange = { changes.append($0) }
        sensor.start()
        // Each value is read at the next poll; between near (200) and far (150) nothing changes.
        for (value, expected) in [("250", [true]), ("170", [true]), ("120", [true, false]), ("175", [true, false])] {
            try "\(value)\n".write(to: raw, atomically: true, encoding: .ascii)
            pass(0.05, on: loop)
            XCTAssertEqual(changes, expected, "after \(value)")
        }
        try FileManager.default.removeItem(at: raw)
        pass(0.05, on: loop)
        XCTAssertEqual(changes, [true, false])
        XCTAssertEqual(sensor.health.state, .missing)
    }

    func test_evdevProximitySwitchReportsPresence() throws {
        let node = directory.appendingPathComponent("proximity").path
        XCTAssertEqual(mkfifo(node, 0o600), 0)
        let loop = EventLoop(clock: clock)
        let sensor = EvdevPresenceSensor(path: node, loop: loop, retryInterval: 0.1)
        var changes: [Bool] = []
        sensor.onChange = { changes.append($0) }
        sensor.start()
        let events = [1, 1, 0].enumerated().map { index, value in
            InputEvent(time: Double(index), type: EventCode.switchEvent, code: EventCode.frontProximity, value: Int32(value))
        }
        feed(node, events.flatMap(InputEventStream.encode), holdOpen: true)
        turn(loop, until: { changes.count >= 2 })
        unplug.signal()
        XCTAssertEqual(changes, [true, false], "the repeated 1 is no change")
        sensor.stop()
    }

    func test_theHeadphoneJacksSwitchTurnsSpeechToTheHeadsetAndBackWhenTheNodeGoes() throws {
        let node = directory.appendingPathComponent("headphone").path
        XCTAssertEqual(mkfifo(node, 0o600), 0)
        let loop = EventLoop(clock: clock)
        let jack = EvdevHeadsetJack(path: node, loop: loop, retryInterval: 0.1)
        var changes: [Bool] = []
        jack.onChange = { changes.append($0) }
        jack.start()
        // In, in again (no change), a microphone switch (not ours), out, in; then the node goes.
        let events = [(EventCode.headphoneInsert, 1), (EventCode.headphoneInsert, 1), (UInt16(0x04), 1),
                      (EventCode.headphoneInsert, 0), (EventCode.headphoneInsert, 1)].enumerated().map { index, pair in
            InputEvent(time: Double(index), type: EventCode.switchEvent, code: pair.0, value: Int32(pair.1))
        }
        feed(node, events.flatMap(InputEventStream.encode), holdOpen: true)
        turn(loop, until: { changes.count >= 3 })
        XCTAssertEqual(changes, [true, false, true])
        XCTAssertEqual(jack.health.detail, "\(node), headset in")
        unplug.signal()
        turn(loop, until: { changes.count >= 4 })
        XCTAssertEqual(changes, [true, false, true, false], "a jack that went away has no headset in it")
        XCTAssertEqual(jack.health.state, .missing)
        jack.stop()
    }

    func test_turnstilePulsesAreDebouncedAndTheReleaseLineIsPulsed() throws {
        let node = directory.appendingPathComponent("turnstile").path
        let release = directory.appendingPathComponent("gpio17-value")
        XCTAssertEqual(mkfifo(node, 0o600), 0)
        try "0".write(to: release, atomically: true, encoding: .ascii)
        let loop = EventLoop(clock: clock)
        let turnstile = EvdevTurnstile(path: node, entryKey: 183, exitKey: 184,
                                       release: ReleaseLine(target: .valueFile(release.path), loop: loop, pulse: 0.1), loop: loop)
        var passages: [PassageDirection] = []
        turnstile.onPassage = { passages.append($0) }
        turnstile.start()
        func key(_ t: Double, _ code: UInt16, _ value: Int32) -> InputEvent {
            InputEvent(time: t, type: EventCode.key, code: code, value: value)
        }
        // In: a clean pulse, then relay bounce. Out: a 5 ms spike (noise), then a real pulse.
        // The pulses are judged on the kernel's timestamps, whenever they are read.
        let events = [key(1.0, 183, 1), key(1.1, 183, 0), key(1.12, 183, 1), key(1.16, 183, 0),
                      key(2.0, 184, 1), key(2.005, 184, 0), key(3.0, 184, 1), key(3.08, 184, 0)]
        feed(node, events.flatMap(InputEventStream.encode), holdOpen: true)
        turn(loop, until: { passages.count >= 2 })
        XCTAssertEqual(passages, [.entry, .exit])
        try turnstile.release()
        pass(0.09, on: loop)
        XCTAssertEqual(try String(contentsOf: release, encoding: .ascii), "1", "the line is high while released")
        pass(0.02, on: loop)
        XCTAssertEqual(try String(contentsOf: release, encoding: .ascii), "0", "and low again after the pulse")
        XCTAssertEqual(turnstile.releases, 1)
        unplug.signal()
        turnstile.stop()
    }

    /// Edges as the kernel queues them on a GPIO line's descriptor (`struct gpioevent_data`:
    /// a u64 timestamp in ns, a u32 id, 1 rising and 2 falling, and 4 bytes of padding).
    func gpioRecords(_ edges: [(Double, Bool)]) -> [UInt8] {
        edges.flatMap { time, active -> [UInt8] in
            withUnsafeBytes(of: UInt64(time * 1e9).littleEndian, Array.init)
                + withUnsafeBytes(of: UInt32(active ? 1 : 2).littleEndian, Array.init) + [0, 0, 0, 0]
        }
    }

    func test_gpioTurnstileContactsAreReadThroughLibgpiodAndDebounced() throws {
        let entry = directory.appendingPathComponent("entry-line").path
        let exit = directory.appendingPathComponent("exit-line").path
        XCTAssertEqual(mkfifo(entry, 0o600), 0)
        XCTAssertEqual(mkfifo(exit, 0o600), 0)
        let loop = EventLoop(clock: clock)
        let turnstile = GPIOTurnstile(entry: .eventStream(path: entry), exit: .eventStream(path: exit), release: nil,
                                      loop: loop, retryInterval: 0.1)
        var passages: [PassageDirection] = []
        turnstile.onPassage = { passages.append($0) }
        turnstile.start()
        XCTAssertEqual(turnstile.health.state, .ok, turnstile.health.detail)
        // In: two people, the first one's relay bouncing. Out: a 5 ms spike, then one person.
        feed(entry, gpioRecords([(1.0, true), (1.1, false), (1.12, true), (1.16, false), (2.0, true), (2.1, false)]), holdOpen: true)
        feed(exit, gpioRecords([(1.0, true), (1.005, false), (3.0, true), (3.08, false)]), holdOpen: true)
        turn(loop, until: { passages.count >= 3 })
        XCTAssertEqual(passages.filter { $0 == .entry }.count, 2)
        XCTAssertEqual(passages.filter { $0 == .exit }.count, 1)
        XCTAssertEqual(turnstile.health.state, .ok)
        // The writers close and the entry line's node goes away (an unplugged USB GPIO
        // adapter), then comes back.
        unlink(entry)
        unplug.signal()
        unplug.signal()
        // First the stream ends ("gone"), then the next try finds no node.
        turn(loop, step: 0.01, until: { turnstile.health.detail.contains("No such file or directory") })
        XCTAssertEqual(turnstile.health.state, .missing)
        XCTAssertTrue(turnstile.health.detail.hasPrefix("entry \(entry): No such file or directory"), turnstile.health.detail)
        XCTAssertEqual(mkfifo(entry, 0o600), 0)
        pass(0.11, on: loop)
        XCTAssertEqual(turnstile.health.state, .ok, "back within the retry interval: \(turnstile.health.detail)")
        turnstile.stop()
    }

    func test_gpioPIRWakesAfterSettlingAndSleepsAfterItsHoldTime() throws {
        let line = directory.appendingPathComponent("pir-line").path
        XCTAssertEqual(mkfifo(line, 0o600), 0)
        let loop = EventLoop()
        let sensor = GPIOPresenceSensor(source: .eventStream(path: line), loop: loop,
                                        debouncer: PIRDebouncer(settle: 0.05, hold: 0.3), retryInterval: 0.1)
        var changes: [(Bool, Double)] = []
        let clock = SystemClock()
        sensor.onChange = { changes.append(($0, clock.monotonic())) }
        sensor.start()
        // Timestamps in the kernel's clock, as a real line's would be: a 10 ms spike, then
        // someone moving for 0.2 s, pausing 0.1 s, moving again for 0.1 s, then gone.
        let start = clock.monotonic() + 0.1
        let edges: [(Double, Bool)] = [(0, true), (0.01, false), (0.1, true), (0.3, false), (0.4, true), (0.5, false)]
        var fed = 0
        func feedNext() {
            guard fed < edges.count else { return }
            let (time, active) = edges[fed]
            fed += 1
            let fd = open(line, O_WRONLY | O_NONBLOCK)
            if fd >= 0 {
                let bytes = gpioRecords([(start + time, active)])
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
        }
        // Holding the FIFO open from this side keeps the reader from seeing its end between writes.
        let keeper = open(line, O_RDWR | O_NONBLOCK)
        defer { close(keeper) }
        // Edges are judged on their timestamps (PIRDebouncerTests checks the timing exactly);
        // here they go through libgpiod and the loop in order, and "gone" comes from a timer.
        for (time, _) in edges { loop.schedule(after: 0.1 + time, handler: feedNext) }
        func stopOnceGone() {
            if changes.count >= 2 { return loop.stop() }
            loop.schedule(after: 0.01, handler: stopOnceGone)
        }
        stopOnceGone()
        loop.schedule(after: 60) { loop.stop() }
        loop.run()
        XCTAssertEqual(changes.map(\.0), [true, false], "the spike and the pause are not changes")
        if changes.count == 2 {
            XCTAssertGreaterThanOrEqual(changes[1].1 - start, 0.8, "gone only 0.3 s after the last movement")
        }
        XCTAssertEqual(sensor.health.state, .ok, sensor.health.detail)
        sensor.stop()
    }

    func test_aGPIOChipThatIsNotThereIsMissingAndItsReleaseLineSaysWhy() throws {
        let loop = EventLoop(clock: clock)
        let spec = try XCTUnwrap(GPIOLineSpec(parsing: "gpiochip-clup-absent:17"))
        let sensor = GPIOPresenceSensor(source: .line(spec, activeLow: false), loop: loop, retryInterval: 0.1)
        sensor.start()
        pass(0.25, on: loop)
        XCTAssertEqual(sensor.health.state, .missing)
        XCTAssertTrue(sensor.health.detail.contains("no GPIO chip \"gpiochip-clup-absent\""), sensor.health.detail)
        let release = ReleaseLine(target: .gpio(spec), loop: loop)
        XCTAssertThrowsError(try release.fire()) { error in
            XCTAssertTrue("\(error)".hasPrefix("E-HW-021 cannot drive GPIO gpiochip-clup-absent:17: no GPIO chip"), "\(error)")
        }
        XCTAssertEqual(release.releases, 0)
        sensor.stop()
    }

    func test_garbageOnAGPIOLineNeverCrashesTheTurnstile() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<20 {
            let entry = directory.appendingPathComponent("garbage-\(round)").path
            XCTAssertEqual(mkfifo(entry, 0o600), 0)
            let loop = EventLoop(clock: clock)
            let turnstile = GPIOTurnstile(entry: .eventStream(path: entry), exit: .eventStream(path: "/nonexistent"),
                                          release: nil, loop: loop, retryInterval: 0.05)
            var passages = 0
            turnstile.onPassage = { _ in passages += 1 }
            turnstile.start()
            let bytes = (0..<Int.random(in: 1...4000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            feed(entry, bytes)
            // Read to the end: the writer leaves, and the line is missing until it is back.
            turn(loop, until: { turnstile.health.state != .ok })
            // However the bytes fell, a passage needs a completed pulse: at most one per two records.
            XCTAssertLessThanOrEqual(passages, bytes.count / 32 + 1)
            turnstile.stop()
        }
    }

    func test_theReleaseStartsInactiveHonoursActiveLowAndAFailingOneIsAFault() throws {
        let node = directory.appendingPathComponent("turnstile-keys").path
        let value = directory.appendingPathComponent("relay-value")
        XCTAssertEqual(mkfifo(node, 0o600), 0)
        // A relay module that closes on a low input, left closed ("0") by a crash mid-pulse.
        try "0".write(to: value, atomically: true, encoding: .ascii)
        let loop = EventLoop(clock: clock)
        let release = ReleaseLine(target: .valueFile(value.path), activeLow: true, loop: loop, pulse: 0.1)
        let turnstile = EvdevTurnstile(path: node, entryKey: 183, exitKey: 184, release: release, loop: loop)
        turnstile.start()
        func level() -> String { (try? String(contentsOf: value, encoding: .ascii)) ?? "gone" }
        XCTAssertEqual(level(), "1", "released (inactive, high) as clupd starts")
        // Two admissions 50 ms apart: the first pulse's end must not cut the second short.
        try turnstile.release()
        pass(0.01, on: loop)
        XCTAssertEqual(level(), "0", "active (low) while the first pulse lasts")
        pass(0.04, on: loop)
        try turnstile.release()
        pass(0.07, on: loop)
        XCTAssertEqual(level(), "0", "the first pulse's end did not cut the second short")
        pass(0.08, on: loop)
        XCTAssertEqual(level(), "1", "inactive once the second pulse ended")
        XCTAssertEqual(turnstile.releases, 2)
        try FileManager.default.removeItem(at: value)
        XCTAssertThrowsError(try turnstile.release()) { error in
            XCTAssertTrue("\(error)".hasPrefix("E-HW-021 cannot drive \(value.path)"), "\(error)")
        }
        let health = turnstile.health
        XCTAssertEqual(health.state, .fault)
        XCTAssertTrue(health.detail.contains("cannot drive the release output \(value.path) active: No such file or directory"),
                      health.detail)
        turnstile.stop()
    }

    func test_aTurnstileWithoutAReleaseLineSaysSo() {
        let turnstile = EvdevTurnstile(path: "/nonexistent", entryKey: 1, exitKey: 2, release: nil, loop: EventLoop())
        XCTAssertThrowsError(try turnstile.release()) { error in
            XCTAssertTrue("\(error)".contains("E-HW-020"), "\(error)")
        }
    }

    func test_aSerialScannerOnAPseudoTerminalDeliversLinesAndRefusesACutOffOne() throws {
        var name = [CChar](repeating: 0, count: 64)
        let master = clup_test_open_pty(&name, 64)
        XCTAssertGreaterThanOrEqual(master, 0)
        defer { close(master) }
        let port = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let loop = EventLoop(clock: clock)
        let reader = SerialDoorReader(path: port, loop: loop)
        var outputs: [WedgeDecoder.Output] = []
        reader.onRead = { outputs.append($0) }
        reader.start()
        XCTAssertTrue(reader.isConnected, reader.health.detail)
        let bytes = Array("V5:A B$\r\nNEXT\nHALF".utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        turn(loop, until: { outputs.count >= 2 })
        XCTAssertEqual(outputs, [.code("V5:A B$"), .code("NEXT")], "HALF waits for its end of line")
        pass(0.6, on: loop)
        XCTAssertEqual(outputs, [.code("V5:A B$"), .code("NEXT"), .refused("a code cut off after 4 bytes (no end of line)")])
        reader.stop()
    }

    func test_usbHotplugSeesTheDevicesOnTheBusOrSaysWhyNot() {
        let loop = EventLoop(clock: clock)
        let hotplug = USBHotplug(loop: loop)
        var arrivals = 0
        hotplug.onChange = { _, arrived in if arrived { arrivals += 1 } }
        hotplug.start()
        pass(0.2, on: loop)
        if let problem = hotplug.problem {
            XCTAssertTrue(problem.hasPrefix("E-USB-"), problem)
            XCTAssertEqual(hotplug.health.state, .missing)
        } else {
            // Registering enumerates what is plugged in now (nothing, in a container).
            XCTAssertEqual(hotplug.present.count, (try? USBBus.devices().count) ?? -1)
            XCTAssertEqual(arrivals, hotplug.present.count)
            XCTAssertEqual(hotplug.health.detail, "\(arrivals) devices, hotplug on")
        }
        hotplug.stop()
    }

    func test_aSerialPortThatIsNotThereIsMissing() {
        let reader = SerialDoorReader(path: "/dev/serial/by-id/no-such-scanner", loop: EventLoop())
        reader.start()
        XCTAssertEqual(reader.health.state, .missing)
    }
}
