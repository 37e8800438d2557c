@testable import CLupKiosk
import Foundation
import XCTest

final class EventLoopTests: XCTestCase {
    func test_timersFireInDeadlineOrderAndCancelledOnesDoNot() {
        let loop = EventLoop()
        var fired: [String] = []
        loop.schedule(after: 0.03) { fired.append("late"); loop.stop() }
        loop.schedule(after: 0.01) { fired.append("early") }
        let cancelled = loop.schedule(after: 0.02) { fired.append("cancelled") }
        loop.cancel(cancelled)
        loop.run()
        XCTAssertEqual(fired, ["early", "late"])
    }

    func test_backgroundWorkCompletesOnTheLoopThread() {
        let loop = EventLoop()
        let loopThread = Thread.current
        var result: Int?
        var completedOnLoop = false
        loop.background({ () -> Int in
            Thread.sleep(forTimeInterval: 0.01)
            return 42
        }) { value in
            result = value
            completedOnLoop = Thread.current == loopThread
            loop.stop()
        }
        loop.schedule(after: 5) { loop.stop() }
        loop.run()
        XCTAssertEqual(result, 42)
        XCTAssertTrue(completedOnLoop)
    }

    func test_framesAreDrawnAtALowerPriorityThanATicketsWork() {
        let loop = EventLoop()
        @Sendable func niceness() -> Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
        let own = niceness()
        var (worker, drawing): (Int32?, Int32?) = (nil, nil)
        loop.background({ niceness() }) { value in
            worker = value
            if drawing != nil { loop.stop() }
        }
        loop.draw({ niceness() }) { value in
            drawing = value
            if worker != nil { loop.stop() }
        }
        loop.schedule(after: 5) { loop.stop() }
        loop.run()
        XCTAssertEqual(worker, own, "a ticket's layout and its send at the daemon's own priority")
        XCTAssertEqual(drawing, min(19, own + EventLoop.drawingNiceness), "the screens below it")
        XCTAssertEqual(niceness(), own, "the loop's thread keeps its priority")
    }

    func test_aWatchedDescriptorRunsItsHandlerWhenReadable() {
        let loop = EventLoop()
        let ends = makeWakePipe()
        defer { close(ends.read); close(ends.write) }
        var got: UInt8 = 0
        loop.watch(ends.read) {
            _ = read(ends.read, &got, 1)
            loop.stop()
        }
        var byte: UInt8 = 7
        _ = write(ends.write, &byte, 1)
        loop.schedule(after: 5) { loop.stop() }
        loop.run()
        XCTAssertEqual(got, 7)
    }
}
