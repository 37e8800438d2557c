import CLupCore

/// Plays a recorded event stream through the same decoder and pipeline as a live panel.
public enum TouchReplay {
    /// The gestures of `recording` (its axes from its own `A:` lines or a `.desc` read with it).
    public static func gestures(of recording: EvemuRecording,
                                calibration: CalibrationMatrix = .identity) throws(EvemuRecording.ParseError) -> [TouchGesture] {
        guard let pipeline = TouchPipeline(axes: recording.axes, calibration: calibration) else {
            throw EvemuRecording.ParseError(line: 0, message: "the description has no X and Y axis ranges")
        }
        var decoder = TouchDecoder(mode: TouchDecoder.mode(for: recording.axes))
        var ended: [Contact] = []
        for event in recording.events { ended += decoder.feed(event) }
        return ended.compactMap(pipeline.gesture(for:))
    }

    /// One JSON line per gesture: `{"gesture":"tap","x0":…,"y0":…,"x1":…,"y1":…,"ms":…}`.
    public static func jsonLine(_ gesture: TouchGesture) -> String {
        func number(_ value: Double) -> String {
            let text = String(Int((value * 10000).rounded()))
            let padded = String(repeating: "0", count: max(0, 5 - text.count)) + text
            return padded.dropLast(4) + "." + padded.suffix(4)
        }
        return #"{"gesture":"\#(gesture.kind.rawValue)","x0":\#(number(gesture.x0)),"y0":\#(number(gesture.y0)),"#
            + #""x1":\#(number(gesture.x1)),"y1":\#(number(gesture.y1)),"ms":\#(gesture.milliseconds)}"#
    }
}
