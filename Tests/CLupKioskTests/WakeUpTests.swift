import NIOCore
@testable import CLupKiosk
import NIOPosix
import XCTest

/// The pause between the hub link's rounds: a signal ends it, and none is lost.
final class WakeUpTests: XCTestCase {
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    override func tearDown() {
        try? group.syncShutdownGracefully()
    }

    func test_aSignalWhileATaskWaitsEndsTheWait() async {
        let wakeUp = WakeUp(on: group.next())
        let ended = expectation(description: "the hour-long wait ended")
        Task {
            await wakeUp.wait(upTo: 3600)
            ended.fulfill()
        }
        while !wakeUp.hasWaiter { await Task.yield() }
        wakeUp.signal()
        await fulfillment(of: [ended], timeout: 60)
    }

    func test_aSignalWhileNothingWaitsEndsTheNextWaitAtOnce() async {
        let wakeUp = WakeUp(on: group.next())
        wakeUp.signal()
        let ended = expectation(description: "the wait after the signal ended")
        Task {
            await wakeUp.wait(upTo: 3600)
            ended.fulfill()
        }
        await fulfillment(of: [ended], timeout: 60)
    }

    func test_aWaitNobodySignalsEndsWhenItsTimeIsUpAndLeavesNoSignalBehind() async {
        let wakeUp = WakeUp(on: group.next())
        let start = ContinuousClock.now
        await wakeUp.wait(upTo: 0.05)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .milliseconds(50))
        // The timer that ended it is not taken for a signal by the next wait.
        let second = ContinuousClock.now
        await wakeUp.wait(upTo: 0.05)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - second, .milliseconds(50))
    }

    func test_anAbsurdWaitIsBoundedAndANegativeOneEndsAtOnce() async {
        let wakeUp = WakeUp(on: group.next())
        await wakeUp.wait(upTo: -5)
        await wakeUp.wait(upTo: .nan)
        let ended = expectation(description: "an infinite wait ended by a signal")
        Task {
            await wakeUp.wait(upTo: .infinity)
            ended.fulfill()
        }
        while !wakeUp.hasWaiter { await Task.yield() }
        wakeUp.signal()
        await fulfillment(of: [ended], timeout: 60)
    }
}
