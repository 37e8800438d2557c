import CLupCore
import CLupHardware
import Foundation
import Synchronization
import XCTest

final class VoiceTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try temporaryFolder("clup-voice")
    }

    // MARK: synthesis

    func test_welcomeIsSpokenInEnglishAndItalian_differently() throws {
        let synthesizer = SpeechSynthesizer()
        let english = try synthesizer.synthesize("Welcome", language: "en")
        let italian = try synthesizer.synthesize("Benvenuti", language: "it")
        for audio in [english, italian] {
            XCTAssertTrue((8000...48000).contains(audio.sampleRate), "\(audio.sampleRate) Hz")
            XCTAssertTrue((0.3...10).contains(audio.duration), "\(audio.duration) s")
            // Speech, not silence: espeak-ng speaks at an RMS in the thousands.
            XCTAssertGreaterThan(rms(audio.samples), 500)
        }
        XCTAssertNotEqual(english.samples, italian.samples)
    }

    func test_fasterRateGivesShorterSpeech() throws {
        let sentence = "Please take a ticket and wait for your number."
        let slow = try SpeechSynthesizer(wordsPerMinute: 120).synthesize(sentence, language: "en")
        let fast = try SpeechSynthesizer(wordsPerMinute: 300).synthesize(sentence, language: "en")
        XCTAssertLessThan(fast.duration, slow.duration * 0.7)
    }

    func test_aSlowerQuieterStyleIsLongerAndSofterAsHeard() throws {
        let voice = SimulatedVoice(directory: directory.path)
        voice.say("Benvenuti al negozio", language: "it")
        voice.waitUntilIdle()
        let usual = try WAVFile.read(contentsOf: voice.currentUtterancePath)
        voice.say("Benvenuti al negozio", language: "it", style: SpeechStyle(rate: 0.7, gainDecibels: -12))
        voice.waitUntilIdle()
        let styled = try WAVFile.read(contentsOf: voice.currentUtterancePath)
        XCTAssertGreaterThan(styled.duration, usual.duration * 1.25, "slower")
        let drop = 20 * log10(rms(styled.samples) / rms(usual.samples))
        XCTAssertEqual(drop, -12, accuracy: 1.5, "12 dB quieter")
        XCTAssertEqual(SpeechAudio(sampleRate: 8000, samples: [20000, -20000, 100]).amplified(by: 6).samples, [32767, -32768, 200],
                       "louder, clipped to 16 bits")
    }

    func test_unknownLanguageIsRefusedWithItsCode() {
        XCTAssertThrowsError(try SpeechSynthesizer().synthesize("Welcome", language: "xx")) { error in
            XCTAssertEqual(error as? SpeechError, .unknownLanguage("xx"))
            XCTAssertTrue("\(error)".hasPrefix("E-HW-041"), "\(error)")
        }
        XCTAssertThrowsError(try SpeechSynthesizer().synthesize("Welcome", language: ""))
    }

    /// Speech is made by clup-speak, a process for each utterance: each way it can fail is
    /// an error that says which, never a hang or a crash of clupd.
    func test_aSpeechHelperThatCannotSpeakSaysWhy() throws {
        // Its exit status tells missing speech data (espeak-ng falls back to its own folder
        // when ESPEAK_DATA_PATH has none, so this one is a script), with the folder looked in.
        let noData = try helper("no-data", "echo /opt/x/espeak-ng-data >&2; exit 3")
        XCTAssertThrowsError(try SpeechSynthesizer(helper: noData).synthesize("Welcome", language: "en")) { error in
            XCTAssertEqual(error as? SpeechError, .dataMissing(path: "/opt/x/espeak-ng-data"))
        }
        XCTAssertThrowsError(try SpeechSynthesizer(helper: "/nonexistent/clup-speak").synthesize("Welcome", language: "en")) { error in
            XCTAssertTrue("\(error)".hasPrefix("E-HW-048 the speech helper failed: cannot run /nonexistent/clup-speak"), "\(error)")
        }
        let garbage = try helper("garbage", "echo not speech")
        XCTAssertThrowsError(try SpeechSynthesizer(helper: garbage).synthesize("Welcome", language: "en")) { error in
            XCTAssertEqual(error as? SpeechError, .helperFailed("its output is not speech (11 bytes)"))
        }
        let complaining = try helper("complaining", "printf 'first\\nbroken\\033[31m red\\n' >&2; exit 9")
        XCTAssertThrowsError(try SpeechSynthesizer(helper: complaining).synthesize("Welcome", language: "en")) { error in
            XCTAssertEqual(error as? SpeechError, .helperFailed("\(complaining) exited with status 9: broken\\u{1B}[31m red"),
                           "its last line, escaped")
        }
        let stuck = try helper("stuck", "exec sleep 30")
        XCTAssertThrowsError(try SpeechSynthesizer(helper: stuck, timeoutSeconds: 0.5).synthesize("Welcome", language: "en")) { error in
            XCTAssertEqual(error as? SpeechError, .helperFailed("\(stuck) was stopped by signal 9 (no speech within 0.5 s)"))
        }
        let long = String(repeating: "a", count: 70_000)
        XCTAssertThrowsError(try SpeechSynthesizer().synthesize(long, language: "en")) { error in
            XCTAssertEqual(error as? SpeechError, .helperFailed("a text of 70000 bytes, more than 65536"))
        }
    }

    /// A shell script standing in for clup-speak.
    private func helper(_ name: String, _ body: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        // It reads its text first, as clup-speak does.
        try Data("#!/bin/sh\ncat >/dev/null\n\(body)\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
        return path
    }

    // MARK: WAV files

    func test_wavRoundTripsAndRefusesStereo() throws {
        let audio = SpeechAudio(sampleRate: 22050, samples: [0, 1, -1, .max, .min, 1234])
        let bytes = WAVFile.encode(audio)
        XCTAssertEqual(bytes.count, 44 + 12)
        XCTAssertEqual(try WAVFile.decode(bytes), audio)

        var stereo = bytes
        stereo[22] = 2
        XCTAssertThrowsError(try WAVFile.decode(stereo)) { error in
            XCTAssertTrue("\(error)".hasPrefix("E-HW-043"), "\(error)")
        }
        XCTAssertThrowsError(try WAVFile.decode(Array(bytes.prefix(10))))
    }

    // MARK: ALSA

    func test_alsaVoicePlaysTheSynthesisedSamples() throws {
        let played = directory.appendingPathComponent("played.wav").path
        // ALSA's file plugin writes what is played to a WAV file and passes it on to a null
        // device: a real trip through alsa-lib without a sound card or the system's config.
        let configuration = """
            pcm.totem { type file slave.pcm "null" file "\(played)" format "wav" }
            pcm.null { type null }
            """
        let synthesizer = RecordingSynthesizer()
        let voice = ALSAVoice(device: "totem", synthesizer: synthesizer, configuration: configuration)

        voice.say("Welcome", language: "en")
        voice.waitUntilIdle()

        let made = synthesizer.made.withLock { $0 }
        XCTAssertEqual(made.count, 1)
        let heard = try WAVFile.read(contentsOf: played)
        XCTAssertEqual(heard.sampleRate, made.first?.sampleRate)
        XCTAssertEqual(heard.samples.count, made.first?.samples.count)
        XCTAssertTrue(heard.samples == made.first?.samples, "ALSA wrote other samples than were synthesised")
        XCTAssertEqual(voice.health.state, .ok, voice.health.detail)
        XCTAssertEqual(voice.health.detail, "totem, 1 utterance")
        XCTAssertEqual(voice.lastUtterance, "Welcome")
    }

    func test_alsaVoiceOnAMissingDeviceReportsWhyWithoutBlocking() {
        let voice = ALSAVoice(device: "clup-no-such-speaker")
        voice.waitUntilIdle()
        XCTAssertEqual(voice.health.state, .missing)
        XCTAssertTrue(voice.health.detail.contains("clup-no-such-speaker"), voice.health.detail)
        XCTAssertTrue(voice.health.detail.contains("E-HW-044"), voice.health.detail)
        XCTAssertTrue(voice.health.detail.contains("No such file or directory"), voice.health.detail)

        voice.say("Welcome", language: "en")
        voice.waitUntilIdle()
        XCTAssertEqual(voice.health.state, .missing)
        XCTAssertEqual(voice.lastUtterance, "Welcome")
    }

    func test_sayReturnsWhileTheUtteranceIsStillBeingMade() {
        let synthesizer = HeldSynthesizer()
        let voice = SimulatedVoice(directory: directory.path, synthesizer: synthesizer)
        voice.say("Welcome", language: "en")
        // The synthesiser holds the utterance until released (or 30 s pass): a `say` that
        // waited for it would return only after it let go.
        XCTAssertTrue(synthesizer.isHolding, "say waited for the synthesiser")
        synthesizer.release()
        voice.waitUntilIdle()
        XCTAssertEqual(voice.lastUtterance, "Welcome")
    }

    // MARK: simulated

    func test_simulatedVoiceWritesWhatItSaid() throws {
        let voice = SimulatedVoice(directory: directory.path)
        XCTAssertNil(voice.lastUtterance)

        voice.say("Benvenuti", language: "it")
        voice.waitUntilIdle()

        let said = try WAVFile.read(contentsOf: voice.currentUtterancePath)
        XCTAssertTrue((0.3...10).contains(said.duration), "\(said.duration) s")
        XCTAssertGreaterThan(rms(said.samples), 500)
        XCTAssertEqual(voice.lastUtterance, "Benvenuti")
        XCTAssertEqual(voice.health, DeviceHealth(role: "voice", backend: "simulated", state: .ok, detail: "1 utterance"))
    }

    func test_simulatedVoiceReportsAnUnknownLanguage() {
        let voice = SimulatedVoice(directory: directory.path)
        voice.say("Welcome", language: "xx")
        voice.waitUntilIdle()
        XCTAssertEqual(voice.health.state, .fault)
        XCTAssertTrue(voice.health.detail.contains("E-HW-041"), voice.health.detail)
        XCTAssertFalse(FileManager.default.fileExists(atPath: voice.currentUtterancePath))
    }

    func test_silenceCutsALongUtterance() throws {
        let text = "Welcome to the store. Please take a ticket and wait until your number is called. "
            + "The store is full at the moment, and we will call you as soon as there is room inside."
        let whole = try SpeechSynthesizer().synthesize(text, language: "en")
        XCTAssertGreaterThan(whole.duration, 5)
        let voice = SimulatedVoice(directory: directory.path)

        voice.say(text, language: "en")
        XCTAssertTrue(wait(until: { voice.isSpeaking }, seconds: 60), "never started speaking")
        voice.silence()
        voice.waitUntilIdle()

        XCTAssertFalse(voice.isSpeaking)
        XCTAssertEqual(voice.lastUtterance, text)
        let heard = try WAVFile.read(contentsOf: voice.currentUtterancePath)
        XCTAssertLessThan(heard.duration, whole.duration, "voice.wav should hold only what was heard before silence()")
    }

    // MARK: helpers

    private func rms(_ samples: [Int16]) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    private func wait(until condition: () -> Bool, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }
}

/// A synthesiser that holds each utterance until released (or 30 s pass).
private final class HeldSynthesizer: SpeechSynthesizing {
    private let released = DispatchSemaphore(value: 0)
    private let holding = Mutex(true)

    var isHolding: Bool { holding.withLock { $0 } }

    func release() { released.signal() }

    func synthesize(_ text: String, language: String) throws(SpeechError) -> SpeechAudio {
        _ = released.wait(timeout: .now() + 30)
        holding.withLock { $0 = false }
        return SpeechAudio(sampleRate: 22050, samples: [0, 0])
    }
}

/// The real synthesiser, keeping what it made, so a test can compare it with what reached ALSA.
private final class RecordingSynthesizer: SpeechSynthesizing {
    let made = Mutex<[SpeechAudio]>([])

    func synthesize(_ text: String, language: String) throws(SpeechError) -> SpeechAudio {
        let audio = try SpeechSynthesizer().synthesize(text, language: language)
        made.withLock { $0.append(audio) }
        return audio
    }
}
