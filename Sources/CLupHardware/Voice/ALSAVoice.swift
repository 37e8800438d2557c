import CLupCore
import CALSA
import Foundation
import Synchronization

/// The totem's speaker, through ALSA. Each utterance is synthesised and played on a worker
/// queue, so the event loop never waits for espeak-ng or a sound card.
///
/// The PCM is opened for each utterance and closed after it, as `aplay` does: nothing holds
/// the device while the totem is quiet, and a USB speaker unplugged and plugged back works
/// again from the next sentence. It is also opened once at start, so a missing speaker shows
/// in `clupctl status` before anything is said.
///
/// Sendable without `@unchecked`: every stored property is immutable and Sendable, what
/// changes lives in a `Mutex`, and the ALSA handles never leave the worker queue.
public final class ALSAVoice: Voice, Sendable {
    /// The ALSA PCM name: `default`, `plughw:CARD=Speaker`, …
    public let device: String
    /// The headset output's PCM, where it is not the codec that switches by itself.
    public let headsetDevice: String?
    let synthesizer: any SpeechSynthesizing
    let configuration: String?
    private let queue = UtteranceQueue(label: "clup.voice.alsa")
    private let status = Mutex(Status())

    /// The buffering asked of ALSA (100 ms): at most how long a cut or the final drain takes,
    /// beyond one slice.
    private static let latencyMicroseconds: UInt32 = 100_000

    private struct Status {
        var lastUtterance: String?
        var utterances = 0
        /// An utterance is being written to the card now.
        var speaking = false
        var problem: SpeakerProblem? = SpeakerProblem(state: .missing, text: "not opened yet")
        var toHeadset = false
    }

    /// Why the speaker cannot be used, as health shows it.
    private struct SpeakerProblem: Error {
        let state: DeviceHealth.State
        let text: String
    }

    /// - Parameter configuration: ALSA configuration text in which to look `device` up instead
    ///   of the system's (`alsa.conf`, `~/.asoundrc`); it must define every PCM it refers to.
    ///   Tests use it to play into a `file` plugin on a machine without a sound card.
    public init(device: String = "default", headsetDevice: String? = nil, synthesizer: any SpeechSynthesizing = SpeechSynthesizer(),
                configuration: String? = nil) {
        self.device = device
        self.headsetDevice = headsetDevice
        self.synthesizer = synthesizer
        self.configuration = configuration
        queue.async { self.probe() }
    }

    public var health: DeviceHealth {
        status.withLock { status in
            let output = status.toHeadset ? "headset " + (headsetDevice ?? "(the codec's own switch)") : device
            let summary = "\(output), \(status.utterances) utterance\(status.utterances == 1 ? "" : "s")"
            guard let problem = status.problem else {
                return DeviceHealth(role: "voice", backend: "alsa", state: .ok,
                                    detail: summary + (status.speaking ? ", speaking" : ""))
            }
            return DeviceHealth(role: "voice", backend: "alsa", state: problem.state, detail: "\(summary): \(problem.text)")
        }
    }

    public var lastUtterance: String? { status.withLock { $0.lastUtterance } }

    public func say(_ text: String, language: String, style: SpeechStyle) {
        status.withLock { $0.lastUtterance = text }
        queue.enqueue { turn in self.speak(text, language: language, style: style, turn: turn) }
    }

    public func silence() {
        queue.silence()
    }

    public func route(toHeadset: Bool) {
        status.withLock { $0.toHeadset = toHeadset }
    }

    /// Returns when everything asked so far has been played or dropped (for tests and shutdown).
    public func waitUntilIdle() {
        queue.waitUntilIdle()
    }

    /// Records how the last use of the speaker went: nil after success; a synthesis error is a fault.
    private func report(_ error: (any Error)?) {
        let problem = error.map { error in
            error as? SpeakerProblem ?? SpeakerProblem(state: .fault, text: "\(error)")
        }
        status.withLock { $0.problem = problem }
    }

    private func probe() {
        do {
            snd_pcm_close(try open())
            report(nil)
        } catch {
            report(error)
        }
    }

    private func speak(_ text: String, language: String, style: SpeechStyle, turn: Int) {
        // A newer utterance or silence() came before this one began: it is never heard.
        guard queue.isCurrent(turn) else { return }
        do {
            // Opened first, so a missing speaker is reported as such, whatever the text.
            let pcm = try open()
            defer { snd_pcm_close(pcm) }
            let audio = try synthesizer.synthesize(text, language: language, rate: style.rate).amplified(by: style.gainDecibels)
            try play(audio, on: pcm, turn: turn)
            report(nil)
        } catch {
            report(error)
        }
    }

    /// Opens the PCM without waiting for a busy device (`SND_PCM_NONBLOCK`), then makes it
    /// blocking again for writing.
    private func open() throws -> OpaquePointer {
        let device = status.withLock { $0.toHeadset } ? headsetDevice ?? self.device : self.device
        var pcm: OpaquePointer?
        let opened: Int32
        if let configuration {
            let config = try parse(configuration)
            // The PCM keeps nothing of the tree it was found in (checked under valgrind).
            defer { snd_config_delete(config) }
            opened = snd_pcm_open_lconf(&pcm, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK, config)
        } else {
            opened = snd_pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
        }
        guard opened == 0, let pcm else {
            throw SpeakerProblem(state: .missing, text: CodedError(.speakerUnopenable, "cannot open the speaker: \(alsaError(opened))").description)
        }
        snd_pcm_nonblock(pcm, 0)
        return pcm
    }

    /// Reads ALSA configuration text into a fresh tree, leaving the system's global one alone.
    private func parse(_ text: String) throws -> OpaquePointer {
        var config: OpaquePointer?
        let created = snd_config_top(&config)
        guard created == 0, let config else {
            throw SpeakerProblem(state: .fault, text: CodedError(.alsaConfiguration, "ALSA configuration: \(alsaError(created))").description)
        }
        let loaded = text.withCString { chars -> Int32 in
            var input: OpaquePointer?
            let opened = snd_input_buffer_open(&input, chars, strlen(chars))
            guard opened == 0, let input else { return opened }
            defer { snd_input_close(input) }
            return snd_config_load(config, input)
        }
        guard loaded == 0 else {
            snd_config_delete(config)
            throw SpeakerProblem(state: .fault, text: CodedError(.alsaConfiguration, "ALSA configuration unreadable: \(alsaError(loaded))").description)
        }
        return config
    }

    /// Writes `audio` in slices of 50 ms, checking between slices whether it is still wanted:
    /// a newer utterance or `silence()` drops it within a slice plus ALSA's buffer. A finished
    /// utterance is drained, so its end is heard before the PCM closes.
    private func play(_ audio: SpeechAudio, on pcm: OpaquePointer, turn: Int) throws {
        let set = snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1,
                                     UInt32(audio.sampleRate), 1, Self.latencyMicroseconds)
        guard set == 0 else {
            throw SpeakerProblem(state: .fault, text: CodedError(.speakerRefusesFormat, "the speaker refuses 16-bit mono at \(audio.sampleRate) Hz: \(alsaError(set))").description)
        }
        status.withLock { status in
            status.utterances += 1
            status.speaking = true
        }
        defer { status.withLock { $0.speaking = false } }
        let slice = max(1, audio.sampleRate / 20)
        try audio.samples.withUnsafeBufferPointer { samples in
            var offset = 0
            while offset < samples.count {
                guard queue.isCurrent(turn) else {
                    snd_pcm_drop(pcm)
                    return
                }
                let count = min(slice, samples.count - offset)
                let written = snd_pcm_writei(pcm, samples.baseAddress.map { $0 + offset }, snd_pcm_uframes_t(count))
                if written >= 0 {
                    offset += written
                } else {
                    // An underrun (this thread came late) or a suspend: recover and go on.
                    let recovered = snd_pcm_recover(pcm, Int32(written), 1)
                    guard recovered == 0 else {
                        throw SpeakerProblem(state: .fault, text: CodedError(.playingFailed, "playing failed: \(alsaError(recovered))").description)
                    }
                }
            }
            snd_pcm_drain(pcm)
        }
    }

    private func alsaError(_ status: Int32) -> String {
        String(cString: snd_strerror(status))
    }
}
