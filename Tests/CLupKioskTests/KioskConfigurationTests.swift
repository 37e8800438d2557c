import CLupCore
import CLupHardware
@testable import CLupKiosk
import CLupPrinting
import Foundation
import XCTest

final class KioskConfigurationTests: XCTestCase {
    func test_anEmptyFileIsTheDefaultSimulatedTotem() throws {
        let config = try KioskConfiguration.parse("", file: "clupd.toml")
        XCTAssertEqual(config, KioskConfiguration())
        XCTAssertEqual(config.hardware.mode, .simulated)
        XCTAssertEqual(config.hardware.devices().touchscreen, .simulated)
        XCTAssertEqual(config.deviceID, "store-1-totem-A")
    }

    func test_readsEveryKey() throws {
        let config = try KioskConfiguration.parse("""
            [store]
            id = 12
            name = "CLup Via Roma"
            timezone = "Europe/Rome"
            business_day_start = "05:30"
            [totem]
            letter = "C"
            door = "north"
            [printer]
            queue = "thermal"
            paper = "58mm"
            timeout_seconds = 12.5
            [screen]
            width = 1080
            height = 1920
            idle_timeout_seconds = 45
            result_seconds = 6
            [tickets]
            valid_minutes = 180
            default_wait_minutes = 15
            [hardware]
            mode = "linux"
            [control]
            group = "clup"
            """, file: "clupd.toml")
        XCTAssertEqual(config.store.id, 12)
        XCTAssertEqual(config.store.timeZone.identifier, "Europe/Rome")
        XCTAssertEqual(config.store.businessDayStartMinute, 330)
        XCTAssertEqual(config.totem.letter, "C")
        XCTAssertEqual(config.printer.paper, .mm58)
        XCTAssertEqual(config.printer.timeoutSeconds, 12.5)
        XCTAssertEqual(config.screen.width, 1080)
        XCTAssertEqual(config.screen.idleTimeoutSeconds, 45)
        XCTAssertEqual(config.tickets.validMinutes, 180)
        XCTAssertEqual(config.hardware.mode, .linux)
        XCTAssertEqual(config.control.group, "clup")
        XCTAssertEqual(config.deviceID, "store-12-totem-C")
    }

    func test_theConfigurationShownByTheShellReadsBackTheSame() throws {
        var config = KioskConfiguration()
        config.store.name = "Say \"cheese\" \\ here\t\u{1}"
        config.queue.capacity = 12
        config.queue.presentationWindow = 90
        config.printer.timeoutSeconds = 2.5
        config.control.group = "clup"
        XCTAssertEqual(try KioskConfiguration.parse(config.toml(), file: "shown.toml"), config)
        XCTAssertEqual(try KioskConfiguration.parse(config.toml(comments: true), file: "shown.toml"), config)
    }

    func test_queueKeysSetThePolicy() throws {
        let config = try KioskConfiguration.parse("""
            [queue]
            capacity = 12
            priority_share = 0.25
            aging_bound_minutes = 20
            presentation_window_minutes = 0.5
            slot_minutes = 15
            booking_share = 0.2
            """, file: "clupd.toml")
        XCTAssertEqual(config.queue.capacity, 12)
        XCTAssertEqual(config.queue.reservedForPriority, 3)
        XCTAssertEqual(config.queue.agingBound, 1200)
        XCTAssertEqual(config.queue.presentationWindow, 30)
        XCTAssertEqual(config.queue.slotLength, 900)
        XCTAssertThrowsError(try KioskConfiguration.parse("[queue]\npriority_share = 0.8\nbooking_share = 0.5", file: "c.toml")) { error in
            XCTAssertTrue("\(error)".contains("no place would be left for walk-ins"), "\(error)")
        }
        XCTAssertThrowsError(try KioskConfiguration.parse("[queue]\npriority_share = 1.5", file: "c.toml")) { error in
            XCTAssertTrue("\(error)".contains("queue.priority_share: 1.5 is not between 0 and 1"), "\(error)")
        }
    }

    func test_gpioLinesAreNamedChipColonLine() throws {
        let config = try KioskConfiguration.parse("""
            [hardware]
            pir = "gpiochip0:17"
            pir_active_low = true
            pir_hold = 5
            turnstile_entry_line = "gpiochip1:TURNSTILE_IN"
            turnstile_exit_line = "/dev/gpiochip1:6"
            turnstile_release = "gpiochip1:7"
            """, file: "clupd.toml")
        let devices = config.hardware.devices()
        XCTAssertEqual(devices.presence, .pir(GPIOLineSpec(chip: "gpiochip0", line: .offset(17)), activeLow: true, hold: 5))
        XCTAssertEqual(devices.turnstile, .gpio(entry: GPIOLineSpec(chip: "gpiochip1", line: .name("TURNSTILE_IN")),
                                                exit: GPIOLineSpec(chip: "/dev/gpiochip1", line: .offset(6)), activeLow: false))
        XCTAssertEqual(devices.release?.target, .gpio(GPIOLineSpec(chip: "gpiochip1", line: .offset(7))))
        XCTAssertEqual(try KioskConfiguration.parse(config.toml(), file: "shown.toml"), config)

        let refusals = [
            ("[hardware]\npir = \"gpiochip0\"", "clupd.toml:2: hardware.pir: expected a GPIO line \"CHIP:LINE\""),
            ("[hardware]\npir = \"gpiochip0:17\"\nproximity = \"/sys/x\"", "one presence sensor"),
            ("[hardware]\nturnstile_entry_line = \"gpiochip0:5\"", "needs both lines"),
            ("[hardware]\nturnstile = \"/dev/clup/turnstile\"\nturnstile_entry_line = \"c:5\"\nturnstile_exit_line = \"c:6\"",
             "one turnstile"),
            ("[hardware]\npir_active_low = \"yes\"", "hardware.pir_active_low: expected true or false, got a string"),
            ("[hardware]\nturnstile_release = \"relay\"", "expected a value file path"),
        ]
        for (text, message) in refusals {
            XCTAssertThrowsError(try KioskConfiguration.parse(text, file: "clupd.toml"), text) { error in
                XCTAssertTrue("\(error)".contains(message), "\(error)")
            }
        }
    }

    func test_hardwareKeysNameTheRealDevices() throws {
        let config = try KioskConfiguration.parse("""
            [hardware]
            touchscreen = "/dev/clup/touch"
            calibration = [0, 1, 0, -1, 0, 1]
            serial_reader = "/dev/serial/by-id/usb-scanner"
            proximity = "/sys/bus/iio/devices/iio:device0/in_proximity_raw"
            proximity_near = 300
            proximity_far = 250
            turnstile = "/dev/clup/turnstile"
            turnstile_release = "/sys/class/gpio/gpio17/value"
            """, file: "clupd.toml")
        let devices = config.hardware.devices()
        XCTAssertEqual(devices.touchscreen, .evdev(path: "/dev/clup/touch", axesFrom: nil, calibration: [0, 1, 0, -1, 0, 1]))
        XCTAssertEqual(devices.reader, .serial(path: "/dev/serial/by-id/usb-scanner"))
        XCTAssertEqual(devices.presence, .proximity(path: "/sys/bus/iio/devices/iio:device0/in_proximity_raw", near: 300, far: 250))
        XCTAssertEqual(devices.turnstile, .evdev(path: "/dev/clup/turnstile", entryKey: 183, exitKey: 184))
        XCTAssertEqual(devices.release?.target, .valueFile("/sys/class/gpio/gpio17/value"))
        XCTAssertEqual(devices.display, .simulated, "a device not named stays simulated")
        XCTAssertEqual(try KioskConfiguration.parse(config.toml(), file: "shown.toml"), config)
        XCTAssertThrowsError(try KioskConfiguration.parse("[hardware]\nreader = \"/a\"\nserial_reader = \"/b\"", file: "c.toml")) { error in
            XCTAssertTrue("\(error)".contains("one door reader"), "\(error)")
        }
        XCTAssertThrowsError(try KioskConfiguration.parse("[hardware]\ncalibration = [1, 0, 0]", file: "c.toml")) { error in
            XCTAssertTrue("\(error)".contains("expected 6 numbers"), "\(error)")
        }
    }

    func test_eachBadValueNamesFileLineKeyAndProblem() {
        let cases: [(String, String)] = [
            ("[totem]\nletter = \"ab\"", "clupd.toml:2: totem.letter: expected one capital letter A-Z, got \"ab\""),
            ("[store]\nid = \"7\"", "clupd.toml:2: store.id: expected an integer, got a string"),
            ("[store]\nid = 0", "clupd.toml:2: store.id: 0 is out of range 1...4294967295"),
            ("[store]\ntimezone = \"Mars/Olympus\"", "clupd.toml:2: store.timezone: expected a time zone name like \"Europe/Rome\", got \"Mars/Olympus\""),
            ("[store]\nbusiness_day_start = \"25:00\"", "store.business_day_start: expected a time \"HH:MM\""),
            ("[screen]\nidle_timeout_seconds = -1", "screen.idle_timeout_seconds: -1 is out of range (0, 86400]"),
            ("[printer]\nqueue = \"  \"", "printer.queue: must not be empty"),
            ("[printer]\nqeue = \"x\"", "clupd.toml:2: printer.qeue: unknown key"),
            ("[hardware]\nmode = \"real\"", "hardware.mode: expected \"simulated\" or \"linux\""),
            ("[store\n", "clupd.toml:1: expected ']'"),
            ("[printer]\npaper = \"90mm\"", "clupd.toml:2: printer.paper: expected \"80mm\" or \"58mm\", got \"90mm\""),
            ("[tickets]\nlanguages = " + String(repeating: "[", count: 10_000), "clupd.toml:2: arrays nested more than 8 deep"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try KioskConfiguration.parse(text, file: "clupd.toml"), text) { error in
                let description = String(describing: error)
                XCTAssertTrue(description.hasPrefix("E-CFG-001 "), description)
                XCTAssertTrue(description.contains(expected), "\(description) should contain \(expected)")
            }
        }
    }

    func test_anUnreadableFileSaysWhy() {
        XCTAssertThrowsError(try KioskConfiguration.load(path: "/nonexistent/clupd.toml")) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/clupd.toml: cannot read the file"), "\(error)")
        }
    }

    /// A file too large to be a configuration is refused before it is read, and one that is
    /// not text is refused as such: each with the file named, as clupd prints it on its one line.
    func test_aHugeFileOrOneNotTextIsRefusedWithItsSize() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clup-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let huge = folder.appendingPathComponent("huge.toml"), binary = folder.appendingPathComponent("binary.toml")
        try Data(repeating: UInt8(ascii: "#"), count: 2_000_000).write(to: huge)
        try Data([0x5B, 0xFF, 0xFE, 0x5D]).write(to: binary)
        XCTAssertThrowsError(try KioskConfiguration.load(path: huge.path)) { error in
            XCTAssertTrue("\(error)".contains("huge.toml: the file has 2000000 bytes; a configuration has at most 1048576"), "\(error)")
        }
        XCTAssertThrowsError(try KioskConfiguration.load(path: binary.path)) { error in
            XCTAssertTrue("\(error)".contains("binary.toml: the file is not UTF-8 text"), "\(error)")
        }
    }

    func test_linuxModeLooksForEveryDeviceNotNamedWhereTheUdevRulesPutIt() throws {
        let config = try KioskConfiguration.parse("[hardware]\nmode = \"linux\"\nserial_reader = \"/dev/ttyACM0\"", file: "c.toml")
        let devices = config.hardware.devices()
        XCTAssertEqual(devices.display, .firstScreen, "the first DRM card where there is one, else /dev/fb0")
        XCTAssertEqual(devices.speaker, .alsa(device: "default", headset: nil))
        XCTAssertEqual(devices.headset, DeviceChoices.Headset.none, "a jack only where one is named")
        XCTAssertEqual(devices.touchscreen, .evdev(path: "/dev/clup/touch", axesFrom: nil, calibration: [1, 0, 0, 0, 1, 0]))
        XCTAssertEqual(devices.presence, .evdevSwitch(path: "/dev/clup/presence"))
        XCTAssertEqual(devices.turnstile, .evdev(path: "/dev/clup/turnstile", entryKey: 183, exitKey: 184))
        XCTAssertEqual(devices.reader, .serial(path: "/dev/ttyACM0"), "the one named")
        XCTAssertEqual(config.hardware.devices(simulate: true).touchscreen, .simulated, "clupd --simulate")
        XCTAssertEqual(config.hardware.devices(simulate: true).reader, .serial(path: "/dev/ttyACM0"), "named: still real")
    }

    func test_aScreenIsADRMConnectorOrAFramebufferAndTurnsOnlyByQuarters() throws {
        let config = try KioskConfiguration.parse("""
            [hardware]
            display = "/dev/dri/card1:HDMI-A-1"
            display_rotation = 270
            calling_display = "/dev/dri/card1:DP-2"
            """, file: "c.toml")
        let devices = config.hardware.devices()
        XCTAssertEqual(devices.display, .drm(card: "/dev/dri/card1", connector: "HDMI-A-1"))
        XCTAssertEqual(devices.rotation, .threeQuarters)
        XCTAssertEqual(devices.callingBoard, .drm(card: "/dev/dri/card1", connector: "DP-2"))
        let card = try KioskConfiguration.parse("[hardware]\ndisplay = \"/dev/dri/card0\"\ncalling_display = \"/dev/fb1\"", file: "c.toml")
        XCTAssertEqual(card.hardware.devices().display, .drm(card: "/dev/dri/card0", connector: nil))
        XCTAssertEqual(card.hardware.devices().callingBoard, .framebuffer(path: "/dev/fb1"))
        XCTAssertEqual(card.hardware.devices().rotation, DisplayRotation.none)
        let file = try KioskConfiguration.parse("[hardware]\ndisplay = \"/tmp/fb.raw\"", file: "c.toml")
        XCTAssertEqual(file.hardware.devices().display, .framebuffer(path: "/tmp/fb.raw", assumedFormat: nil))
        XCTAssertThrowsError(try KioskConfiguration.parse("[hardware]\ndisplay_rotation = 45", file: "c.toml")) { error in
            XCTAssertTrue("\(error)".contains("45 is not a quarter turn: 0, 90, 180 or 270"), "\(error)")
        }
        XCTAssertThrowsError(try KioskConfiguration.parse("[hardware]\ndisplay_rotation = 360", file: "c.toml"))
    }

    /// The example file is what every key's declaration writes: a key added to a table is in
    /// it, with its default and what it is for.
    func test_theExampleFileIsWhatTheKeysDeclare() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let committed = try String(contentsOf: root.appendingPathComponent("hardware/clupd.example.toml"), encoding: .utf8)
        XCTAssertEqual(committed, KioskConfiguration.exampleFile,
                       "hardware/clupd.example.toml is out of date: `clupd example-config > hardware/clupd.example.toml`")
        XCTAssertEqual(try KioskConfiguration.parse(committed, file: "example.toml"), KioskConfiguration())
    }

    func test_onlyTheKeysARunningKioskCannotTakeNeedARestart() throws {
        let running = KioskConfiguration()
        var next = running
        next.queue.capacity = 50
        next.totem.letter = "B"
        next.hardware.touchscreen = "/dev/input/event3"
        XCTAssertEqual(running.restartOnlyDifferences(to: next), ["totem.letter", "hardware.touchscreen"])
        let adopted = next.keepingRestartOnlyKeys(of: running)
        XCTAssertEqual(adopted.queue.capacity, 50)
        XCTAssertEqual(adopted.totem.letter, "A")
        XCTAssertNil(adopted.hardware.touchscreen)
    }
}
