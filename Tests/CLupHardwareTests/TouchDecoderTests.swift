import CLupCore
@testable import CLupHardware
import XCTest

/// The decoder against synthetic streams: each protocol, lost events, bad values.
final class TouchDecoderTests: XCTestCase {
    func abs(_ t: Double, _ code: UInt16, _ value: Int32) -> InputEvent {
        InputEvent(time: t, type: EventCode.absolute, code: code, value: value)
    }
    func syn(_ t: Double, _ code: UInt16 = EventCode.report) -> InputEvent {
        InputEvent(time: t, type: EventCode.synchronization, code: code, value: 0)
    }
    func key(_ t: Double, _ code: UInt16, _ value: Int32) -> InputEvent {
        InputEvent(time: t, type: EventCode.key, code: code, value: value)
    }

    func run(_ decoder: inout TouchDecoder, _ events: [InputEvent]) -> [Contact] {
        events.flatMap { decoder.feed($0) }
    }

    func test_protocolBTracksTwoFingersBySlot() {
        var decoder = TouchDecoder(mode: .slots(2))
        let ended = run(&decoder, [
            abs(0, EventCode.trackingID, 10), abs(0, EventCode.positionX, 100), abs(0, EventCode.positionY, 200),
            abs(0, EventCode.slot, 1), abs(0, EventCode.trackingID, 11), abs(0, EventCode.positionX, 300),
            abs(0, EventCode.positionY, 400), syn(0),
            abs(0.1, EventCode.positionX, 310), syn(0.1),
            abs(0.2, EventCode.slot, 0), abs(0.2, EventCode.trackingID, -1), syn(0.2),
            abs(0.3, EventCode.slot, 1), abs(0.3, EventCode.trackingID, -1), syn(0.3),
        ])
        XCTAssertEqual(ended.map(\.id), [10, 11])
        XCTAssertEqual(ended[1].endX, 310)
        XCTAssertEqual(ended[1].endTime, 0.3)
        XCTAssertTrue(decoder.activeContacts.isEmpty)
    }

    func test_protocolAMatchesContactsFrameByFrame() {
        var decoder = TouchDecoder(mode: .protocolA)
        let ended = run(&decoder, [
            abs(0, EventCode.positionX, 10), abs(0, EventCode.positionY, 20), syn(0, EventCode.multitouchReport),
            abs(0, EventCode.positionX, 50), abs(0, EventCode.positionY, 60), syn(0, EventCode.multitouchReport), syn(0),
            abs(0.1, EventCode.positionX, 12), abs(0.1, EventCode.positionY, 22), syn(0.1, EventCode.multitouchReport), syn(0.1),
            syn(0.2, EventCode.multitouchReport), syn(0.2),
        ])
        XCTAssertEqual(ended.count, 2)
        XCTAssertEqual(ended.first { $0.startX == 10 }?.endX, 12)
        XCTAssertEqual(ended.first { $0.startX == 50 }?.endTime, 0.1, "the second finger left first")
    }

    func test_aTouchWhereTheLastOneBeforeOpeningWasStartsThereInItsSlot() {
        // The kernel sends no position (nor slot) equal to the last one it sent: a tap on
        // the same button as the last tap before clupd opened the panel brings only its
        // tracking id. The positions and the slot come from the device at opening.
        var decoder = TouchDecoder(mode: .slots(2))
        decoder.seed(slots: [(x: 10, y: 20), (x: 400, y: 240)], currentSlot: 1, single: (x: 0, y: 0))
        let ended = run(&decoder, [
            abs(1.0, EventCode.trackingID, 8), syn(1.0),
            abs(1.1, EventCode.trackingID, -1), syn(1.1),
        ])
        XCTAssertEqual(ended.count, 1)
        XCTAssertEqual(ended.first.map { [$0.startX, $0.startY, $0.endX, $0.endY] }, [400, 240, 400, 240])

        var single = TouchDecoder(mode: .singleTouch)
        single.seed(slots: [], currentSlot: 0, single: (x: 55, y: 66))
        let lifted = run(&single, [key(1.0, EventCode.touch, 1), syn(1.0), key(1.1, EventCode.touch, 0), syn(1.1)])
        XCTAssertEqual(lifted.first.map { [$0.startX, $0.startY] }, [55, 66])
    }

    func test_aGarbledTimestampGivesALongGestureNotACrash() {
        // Found by scripts/fuzz: a contact whose clock jumped by 2^62 s overflowed the
        // gesture's duration in milliseconds and stopped clupd.
        var decoder = TouchDecoder(mode: .singleTouch)
        let ended = run(&decoder, [
            key(0, EventCode.touch, 1), abs(0, EventCode.x, 50), abs(0, EventCode.y, 50), syn(0),
            key(0x1p62, EventCode.touch, 0), syn(0x1p62),
        ])
        let pipeline = TouchPipeline(xRange: AxisRange(minimum: 0, maximum: 100), yRange: AxisRange(minimum: 0, maximum: 100))
        let gesture = try? XCTUnwrap(ended.first.flatMap(pipeline.gesture(for:)))
        XCTAssertEqual(gesture?.kind, .longPress)
        XCTAssertEqual(gesture?.milliseconds, Int(Int32.max))
    }

    func test_singleTouchFollowsBtnTouch() {
        var decoder = TouchDecoder(mode: .singleTouch)
        let ended = run(&decoder, [
            abs(0, EventCode.x, 5), abs(0, EventCode.y, 6), key(0, EventCode.touch, 1), syn(0),
            abs(0.05, EventCode.x, 7), syn(0.05),
            key(0.1, EventCode.touch, 0), syn(0.1),
        ])
        XCTAssertEqual(ended.count, 1)
        XCTAssertEqual([ended[0].startX, ended[0].endX], [5, 7])
    }

    /// A single-touch panel in mouse emulation (and qemu's usb-tablet) presses BTN_LEFT.
    func test_singleTouchFollowsTheLeftButtonOfAPanelInMouseEmulation() {
        var decoder = TouchDecoder(mode: .singleTouch)
        let ended = run(&decoder, [
            abs(0, EventCode.x, 16384), abs(0, EventCode.y, 8000), key(0, EventCode.leftButton, 1), syn(0),
            key(0.08, EventCode.leftButton, 0), syn(0.08),
            key(0.1, 0x111, 1), syn(0.1), key(0.15, 0x111, 0), syn(0.15),   // BTN_RIGHT: no contact
        ])
        XCTAssertEqual(ended.count, 1)
        XCTAssertEqual([ended[0].startX, ended[0].startY], [16384, 8000])
    }

    func test_afterSynDroppedEventsUpToTheNextReportAreDiscardedAndContactsCancelled() {
        var decoder = TouchDecoder(mode: .slots(2))
        _ = run(&decoder, [abs(0, EventCode.trackingID, 1), abs(0, EventCode.positionX, 100), syn(0)])
        let ended = run(&decoder, [
            syn(0.1, EventCode.dropped),
            abs(0.1, EventCode.positionX, 999), abs(0.1, EventCode.trackingID, -1),
            syn(0.2),
        ])
        XCTAssertEqual(ended.count, 1)
        XCTAssertTrue(ended[0].cancelled)
        XCTAssertEqual(ended[0].endX, 100, "nothing from the dropped stretch was applied")
        let pipeline = TouchPipeline(xRange: AxisRange(minimum: 0, maximum: 1000), yRange: AxisRange(minimum: 0, maximum: 1000))
        XCTAssertNil(pipeline.gesture(for: ended[0]), "a cancelled contact makes no gesture")
    }

    func test_resyncKeepsAFingerThatIsStillDown() {
        var decoder = TouchDecoder(mode: .slots(2))
        _ = run(&decoder, [abs(0, EventCode.trackingID, 1), abs(0, EventCode.positionX, 100), syn(0), syn(0.1, EventCode.dropped)])
        XCTAssertTrue(decoder.resync(slots: [(1, 120, 0), (-1, 0, 0)], currentSlot: 0, at: 0.2).isEmpty)
        let ended = run(&decoder, [abs(0.3, EventCode.trackingID, -1), syn(0.3)])
        XCTAssertEqual(ended.map(\.endX), [120])
        XCTAssertFalse(ended[0].cancelled)
    }

    func test_anOutOfRangeSlotIsIgnoredUntilAValidOne() {
        var decoder = TouchDecoder(mode: .slots(2))
        let ended = run(&decoder, [
            abs(0, EventCode.slot, 7), abs(0, EventCode.trackingID, 5), syn(0),
            abs(0.1, EventCode.slot, -3), abs(0.1, EventCode.trackingID, 6), syn(0.1),
        ])
        XCTAssertTrue(ended.isEmpty)
        XCTAssertTrue(decoder.activeContacts.isEmpty)
    }

    func test_calibrationRotatesAndClampsToThePanel() {
        let pipeline = TouchPipeline(xRange: AxisRange(minimum: 0, maximum: 100), yRange: AxisRange(minimum: 0, maximum: 100),
                                     calibration: .rotated90)
        var contact = Contact(id: 1, time: 0, x: 20, y: 0)
        contact.move(to: 20, 0, at: 0.05)
        let gesture = pipeline.gesture(for: contact)
        XCTAssertEqual(gesture?.x0 ?? -1, 0, accuracy: 0.0001)
        XCTAssertEqual(gesture?.y0 ?? -1, 0.8, accuracy: 0.0001)
        var outside = Contact(id: 2, time: 0, x: 150, y: -20)
        outside.move(to: 150, -20, at: 0.05)
        let clamped = TouchPipeline(xRange: AxisRange(minimum: 0, maximum: 100), yRange: AxisRange(minimum: 0, maximum: 100))
            .gesture(for: outside)
        XCTAssertEqual([clamped?.x0, clamped?.y0], [1, 0])
    }

    func test_aContactOfAFewMillisecondsIsAGhost() {
        let pipeline = TouchPipeline(xRange: AxisRange(minimum: 0, maximum: 100), yRange: AxisRange(minimum: 0, maximum: 100))
        var ghost = Contact(id: 1, time: 0, x: 50, y: 50)
        ghost.move(to: 50, 50, at: 0.004)
        XCTAssertNil(pipeline.gesture(for: ghost))
    }

    func test_eventRecordsSurviveBeingFedOneByteAtATime() {
        let events = [abs(1.5, EventCode.positionX, -7), syn(2.000001), key(3, EventCode.touch, 1)]
        let bytes = events.flatMap(InputEventStream.encode)
        XCTAssertEqual(bytes.count, 72)
        var stream = InputEventStream()
        var decoded: [InputEvent] = []
        for byte in bytes { decoded += stream.feed([byte]) }
        XCTAssertEqual(decoded.map(\.value), [-7, 0, 1])
        XCTAssertEqual(decoded.map(\.code), [EventCode.positionX, EventCode.report, EventCode.touch])
        XCTAssertEqual(decoded[1].time, 2.000001, accuracy: 1e-9)
        XCTAssertEqual(stream.bufferedByteCount, 0)
    }

    func test_arbitraryBytesNeverCrashOrHangTheDecoders() {
        var state: UInt64 = 0xC1A9
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 29
        }
        let modes: [TouchDecoder.Mode] = [.slots(10), .protocolA, .singleTouch]
        var contacts = 0
        for round in 0..<3000 {
            var stream = InputEventStream()
            var decoder = TouchDecoder(mode: modes[round % 3])
            let pipeline = TouchPipeline(xRange: AxisRange(minimum: 0, maximum: 4095), yRange: AxisRange(minimum: 0, maximum: 4095))
            // Random records with plausible types and codes, and some pure garbage.
            var bytes: [UInt8] = []
            for _ in 0..<Int(next() % 60) {
                let event = InputEvent(time: Double(next() % 100), type: UInt16(next() % 4), code: [0, 1, 2, 3, 0x2F, 0x35, 0x36, 0x39, 0x14A][Int(next() % 9)],
                                       value: Int32(truncatingIfNeeded: Int64(next() % 200) - 100))
                bytes += round % 5 == 0 ? (0..<24).map { _ in UInt8(truncatingIfNeeded: next()) } : InputEventStream.encode(event)
            }
            for chunk in stride(from: 0, to: bytes.count, by: 7) {
                for event in stream.feed(bytes[chunk..<min(bytes.count, chunk + 7)]) {
                    for contact in decoder.feed(event) {
                        contacts += 1
                        _ = pipeline.gesture(for: contact)
                    }
                }
            }
            contacts += decoder.releaseAll(at: 0).count
        }
        XCTAssertGreaterThan(contacts, 100, "the random streams must make contacts to be worth anything")
    }
}
