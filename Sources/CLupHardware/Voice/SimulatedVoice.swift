import CLupCore
import Foundation
import Synchronization

/// A simulated speaker that writes what it says to a WAV file, so the voice can be listened
/// to (and tested) on a machine without a sound card.
///
/// It synthesises with the same engine as the real voice and "plays" in real time on a worker
/// queue: `isSpeaking` holds for as long as the utterance lasts, and `directory/voice.wav`
/// holds what a customer would have heard of the last utterance, all of it or up to where a
/// newer `say` or `silence()` cut it.
///
/// Sendable without `@unchecked`: every stored property is immutable and Sendable, and what
/// changes lives in a `Mutex`.
public final class SimulatedVoice: Voice, Sendable {
    public let directory: String
    let synthesizer: any SpeechSynthesizing
    private let queue = UtteranceQueue(label: "clup.voice.simulated")
    private let status = Mutex(Status())

    private struct Status {
        var lastUtterance: String?
        var utterances = 0
        var speaking = false
        var problem: String?
        var toHeadset = false
    }

    public init(directory: String, synthesizer: any SpeechSynthesizing = SpeechSynthesizer()) {
        self.directory = directory
        self.synthesizer = synthesizer
    }

    /// The file holding what was heard of the last utterance: the speaker's, or the
    /// headset's while speech goes there.
    public var currentUtterancePath: String { status.withLock { $0.toHeadset } ? headsetPath : speakerPath }
    public var speakerPath: String { directory + "/voice.wav" }
    public var headsetPath: String { directory + "/headset.wav" }

    public func route(toHeadset: Bool) {
        status.withLock { $0.toHeadset = toHeadset }
    }

    public var health: DeviceHealth {
        status.withLock { status in
            let summary = "\(status.utterances) utterance\(status.utterances == 1 ? "" : "s")" + (status.toHeadset ? " (to the headset)" : "")
            guard let problem = status.problem else {
                return DeviceHealth(role: "voice", backend: "simulated", state: .ok,
                                    detail: summary + (status.speaking ? ", speaking" : ""))
            }
            return DeviceHealth(role: "voice", backend: "simulated", state: .fault, detail: "\(summary): \(problem)")
        }
    }

    public var lastUtterance: String? { status.withLock { $0.lastUtterance } }

    /// Whether an utterance is being "played" now.
    public var isSpeaking: Bool { status.withLock { $0.speaking } }

    public func say(_ text: String, language: String, style: SpeechStyle) {
        status.withLock { $0.lastUtterance = text }
        queue.enqueue { turn in self.speak(text, language: language, style: style, turn: turn) }
    }

    public func silence() {
        queue.silence()
    }

    /// Returns when everything asked so far has been played or cut.
    public func waitUntilIdle() {
        queue.waitUntilIdle()
    }

    private func speak(_ text: String, language: String, style: SpeechStyle, turn: Int) {
        guard queue.isCurrent(turn) else { return }
        do {
            let audio = try synthesizer.synthesize(text, language: language, rate: style.rate).amplified(by: style.gainDecibels)
            guard queue.isCurrent(turn) else { return }
            try WAVFile.write(audio, to: currentUtterancePath)
            status.withLock { status in
                status.utterances += 1
                status.speaking = true
                status.problem = nil
            }
            let heard = playInRealTime(audio, turn: turn)
            if heard < audio.samples.count {
                try WAVFile.write(SpeechAudio(sampleRate: audio.sampleRate, samples: Array(audio.samples.prefix(heard))),
                                  to: currentUtterancePath)
            }
        } catch {
            status.withLock { $0.problem = "\(error)" }
        }
        status.withLock { $0.speaking = false }
    }

    /// Waits as long as the utterance lasts, looking every 10 ms for a newer `say` or
    /// `silence()`; returns how many samples were heard.
    private func playInRealTime(_ audio: SpeechAudio, turn: Int) -> Int {
        let start = DispatchTime.now().uptimeNanoseconds
        while true {
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let heard = min(audio.samples.count, Int(elapsed * Double(audio.sampleRate)))
            if heard == audio.samples.count || !queue.isCurrent(turn) { return heard }
            usleep(10_000)
        }
    }
}
