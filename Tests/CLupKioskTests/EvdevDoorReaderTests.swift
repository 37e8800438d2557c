import CLupHardware
@testable import CLupKiosk
import Foundation
import XCTest

/// The live wedge-scanner reader on the real event loop, fed key events through a FIFO.
final class EvdevDoorReaderTests: XCTestCase {
    func keystrokes(_ text: String, start: Double, enter: Bool) -> [UInt8] {
        var events = Keymap.us.scannerEvents(typing: text, startingAt: start) ?? []
        if !enter { events.removeLast(4) }   // Enter's press and release, each with its SYN_REPORT
        return events.flatMap(InputEventStream.encode)
    }

    func test_aScannedCodeArrives_andOneCutOffIsRefusedAfterTheScannerGoesQuiet() throws {
        let fifo = "/tmp/clup-reader-\(getpid())-\(UInt16.random(in: 0...UInt16.max))"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        defer { unlink(fifo) }
        let loop = EventLoop()
        let reader = EvdevDoorReader(path: fifo, keymap: .us, loop: loop, retryInterval: 0.2)
        var outputs: [WedgeDecoder.Output] = []
        reader.onRead = { outputs.append($0) }
        reader.start()
        XCTAssertTrue(reader.isConnected)
        let bytes = keystrokes("V5:A B$", start: 100, enter: true) + keystrokes("HALF", start: 100.1, enter: false)
        let unplug = DispatchSemaphore(value: 0)
        let thread = Thread {
            let fd = open(fifo, O_WRONLY)
            guard fd >= 0 else { return }
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            // Keep the "device" plugged in while the reader waits for the rest of HALF.
            _ = unplug.wait(timeout: .now() + 60)
            close(fd)
        }
        thread.start()
        // Until the reader has given up on HALF (a minute at most, on a machine that busy).
        func stopOnceBothAreRead() {
            if outputs.count >= 2 { return loop.stop() }
            loop.schedule(after: 0.01, handler: stopOnceBothAreRead)
        }
        stopOnceBothAreRead()
        loop.schedule(after: 60) { loop.stop() }
        loop.run()
        unplug.signal()
        XCTAssertEqual(outputs, [.code("V5:A B$"), .refused("a code cut off after 4 characters (no Enter)")])
        reader.stop()
    }
}
