import CLupCore
@testable import CLupHardware
import Foundation
import XCTest

final class PrinterPortTests: XCTestCase {
    func test_theStatusLinesSayWhatAPrinterSays() {
        let ready = PrinterPortStatus(byte: 0x18)
        XCTAssertTrue(ready.isReady)
        XCTAssertEqual(ready.reasons, [])
        XCTAssertEqual(ready.words, "paper in, on line, no error")

        // Paper out as printers say it: the paper-empty line with the error line.
        let noPaper = PrinterPortStatus(byte: 0x30)
        XCTAssertTrue(noPaper.paperOut)
        XCTAssertEqual(noPaper.reasons, ["media-empty-error"], "the error that comes with it is the paper")
        XCTAssertEqual(noPaper.words, "NO PAPER, ERROR")

        // A cover open: off line with the error line.
        let coverOpen = PrinterPortStatus(byte: 0x00)
        XCTAssertFalse(coverOpen.isReady)
        XCTAssertEqual(coverOpen.reasons, ["offline-report", "other-error"])
        XCTAssertEqual(coverOpen.words, "OFF LINE, ERROR (a cover open, a jam or the cutter)")

        // Bits no printer class defines change nothing.
        XCTAssertTrue(PrinterPortStatus(byte: 0x18 | 0xC7).isReady)
    }

    func test_aPortThatIsNotThereIsAbsentUnlessItsPrinterIsStillOnTheBus() throws {
        let folder = try temporaryFolder("clup-port")
        let gone = folder.appendingPathComponent("lp0").path

        guard case let (.absent(why), nil) = PrinterPort.read(path: gone, interface: nil) else {
            return XCTFail("a port never seen, not there: absent")
        }
        XCTAssertTrue(why.hasPrefix("\(gone): "), why)
        // The node gone while its USB interface is still there: CUPS's backend took the printer.
        let interface = folder.path
        guard case let (.busy(busy), kept?) = PrinterPort.read(path: gone, interface: interface) else {
            return XCTFail("a printer still on the bus: busy")
        }
        XCTAssertEqual(kept, interface)
        XCTAssertEqual(busy, "the printer is in CUPS's hands (printing)")
        // Its interface gone too: unplugged.
        guard case (.absent, nil) = PrinterPort.read(path: gone, interface: folder.appendingPathComponent("1-1:1.0").path) else {
            return XCTFail("a printer off the bus: absent")
        }
    }

    func test_aDeviceThatIsNotAPrintersPortSaysSo() {
        guard case let (.failed(why), _) = PrinterPort.read(path: "/dev/null", interface: nil) else {
            return XCTFail("/dev/null has no status lines")
        }
        XCTAssertEqual(why, "/dev/null is not a USB printer's port (usblp): it has no status lines")
    }

    func test_theWatchKeepsTheLinesWhileCUPSPrintsAndForgetsThemWhenThePrinterGoes() {
        let watch = PrinterPortWatch(path: "/dev/clup/printer") { _, _ in (.absent("unused"), nil) }
        XCTAssertEqual(watch.health.state, .missing)
        XCTAssertTrue(watch.update((.status(PrinterPortStatus(byte: 0x30)), "/sys/x")))
        XCTAssertEqual(watch.stopsTickets?.paperOut, true)
        XCTAssertEqual(watch.health, DeviceHealth(role: "printer", backend: "usblp", state: .fault,
                                                  detail: "/dev/clup/printer: NO PAPER, ERROR"))
        XCTAssertEqual(watch.interface, "/sys/x")
        XCTAssertFalse(watch.update((.busy("the printer is in CUPS's hands (printing)"), "/sys/x")), "the lines are as they were")
        XCTAssertEqual(watch.stopsTickets?.paperOut, true)
        XCTAssertEqual(watch.health.detail,
                       "/dev/clup/printer: NO PAPER, ERROR at the last look; the printer is in CUPS's hands (printing)")
        XCTAssertTrue(watch.update((.status(PrinterPortStatus(byte: 0x18)), "/sys/x")))
        XCTAssertNil(watch.stopsTickets)
        XCTAssertEqual(watch.health.state, .ok)
        // Lines kept while the printer is in other hands are trusted for a minute of looks, not for good.
        XCTAssertTrue(watch.update((.status(PrinterPortStatus(byte: 0x30)), "/sys/x")))
        for _ in 0..<PrinterPortWatch.busyLooksTrusted {
            watch.update((.busy("the printer is in CUPS's hands (printing)"), "/sys/x"))
        }
        XCTAssertEqual(watch.stopsTickets?.paperOut, true)
        XCTAssertTrue(watch.update((.busy("the printer is in CUPS's hands (printing)"), "/sys/x")))
        XCTAssertNil(watch.stopsTickets, "usblp never got the printer back: its old lines stop nothing")
        XCTAssertEqual(watch.health.detail,
                       "/dev/clup/printer: its lines not known while it is in other hands; the printer is in CUPS's hands (printing)")
        XCTAssertTrue(watch.update((.absent("/dev/clup/printer: No such file or directory"), nil)))
        XCTAssertNil(watch.stopsTickets, "a printer unplugged stops nothing by its lines: CUPS says what it can")
        XCTAssertEqual(watch.health, DeviceHealth(role: "printer", backend: "usblp", state: .missing,
                                                  detail: "/dev/clup/printer: No such file or directory"))
    }
}
