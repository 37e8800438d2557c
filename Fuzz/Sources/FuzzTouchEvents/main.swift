import CFuzzDriver
import CLupHardware
import Foundation

/// A touch panel's byte stream, as read from its evdev node, through the live path's
/// stages: cut into `struct input_event` records, decoded in the mode the first byte picks
/// (protocol B with 10 slots, protocol A, single touch), the contacts still open released
/// as when the panel is unplugged, and every contact through the gesture pipeline.
/// Besides not crashing: no more contacts at once than the panel has slots, and every
/// gesture's coordinates are numbers.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTouchEvents(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = UnsafeBufferPointer(start: start, count: count)
    guard let selector = bytes.first else { return 0 }
    let modes: [TouchDecoder.Mode] = [.slots(10), .protocolA, .singleTouch]
    let mode = modes[Int(selector) % modes.count]
    let range = AxisRange(minimum: 0, maximum: 4095)
    let pipeline = TouchPipeline(xRange: range, yRange: range)

    var stream = InputEventStream()
    var decoder = TouchDecoder(mode: mode)
    var ended: [Contact] = []
    var lastTime = 0.0
    for event in stream.feed(bytes.dropFirst()) {
        ended += decoder.feed(event)
        lastTime = event.time
        if case let .slots(slots) = mode, decoder.activeContacts.count > slots {
            fatalError("\(decoder.activeContacts.count) contacts on a panel with \(slots) slots")
        }
    }
    ended += decoder.releaseAll(at: lastTime)
    guard decoder.activeContacts.isEmpty else { fatalError("contacts left after releasing all") }
    for contact in ended {
        guard let gesture = pipeline.gesture(for: contact) else { continue }
        let coordinates = [gesture.x0, gesture.y0, gesture.x1, gesture.y1]
        guard coordinates.allSatisfy(\.isFinite), gesture.milliseconds >= 0 else {
            fatalError("a gesture with coordinates \(coordinates), \(gesture.milliseconds) ms")
        }
    }
    return 0
}

exit(clup_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, { fuzzTouchEvents($0, $1) }))
