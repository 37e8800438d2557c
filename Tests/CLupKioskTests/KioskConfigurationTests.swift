@testable import CLupKiosk
import CLupPrinting
import XCTest

final class KioskConfigurationTests: XCTestCase {
    func test_anEmptyFileIsTheDefaultSimulatedTotem() throws {
        let config = try KioskConfiguration.parse("", file: "clupd.toml")
        XCTAssertEqual(config, KioskConfiguration())
        XCTAssertEqual(config.hardware, .simulated)
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
        XCTAssertEqual(config.storeID, 12)
        XCTAssertEqual(config.timeZone.identifier, "Europe/Rome")
        XCTAssertEqual(config.businessDayStartMinute, 330)
        XCTAssertEqual(config.totemLetter, "C")
        XCTAssertEqual(config.paper, .mm58)
        XCTAssertEqual(config.printTimeoutSeconds, 12.5)
        XCTAssertEqual(config.screenWidth, 1080)
        XCTAssertEqual(config.idleTimeoutSeconds, 45)
        XCTAssertEqual(config.ticketValidMinutes, 180)
        XCTAssertEqual(config.hardware, .linux)
        XCTAssertEqual(config.controlGroup, "clup")
        XCTAssertEqual(config.deviceID, "store-12-totem-C")
    }

    func test_eachBadValueNamesFileLineKeyAndProblem() {
        let cases: [(String, String)] = [
            ("[totem]\nletter = \"ab\"", "clupd.toml:2: totem.letter: expected one capital letter A-Z, got \"ab\""),
            ("[store]\nid = \"7\"", "clupd.toml:2: store.id: expected an integer, got a string"),
            ("[store]\nid = 0", "clupd.toml:2: store.id: 0 is out of range 1...4294967295"),
            ("[store]\ntimezone = \"Mars/Olympus\"", "clupd.toml:2: store.timezone: unknown time zone"),
            ("[store]\nbusiness_day_start = \"25:00\"", "store.business_day_start: expected a time \"HH:MM\""),
            ("[screen]\nidle_timeout_seconds = -1", "screen.idle_timeout_seconds: -1.0 is out of range"),
            ("[printer]\nqueue = \"  \"", "printer.queue: must not be empty"),
            ("[printer]\nqeue = \"x\"", "clupd.toml:2: printer.qeue: unknown key"),
            ("[hardware]\nmode = \"real\"", "hardware.mode: expected \"simulated\" or \"linux\""),
            ("[store\n", "clupd.toml:1: expected ']'"),
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
}
