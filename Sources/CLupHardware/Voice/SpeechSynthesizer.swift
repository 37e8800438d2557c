import CLupCore
import CEspeak
import Foundation
import Synchronization

/// Mono 16-bit PCM, as the synthesiser makes it and a speaker plays it.
public struct SpeechAudio: Sendable, Equatable {
    public let sampleRate: Int
    public let samples: [Int16]

    public init(sampleRate: Int, samples: [Int16]) {
        self.sampleRate = sampleRate
        self.samples = samples
    }

    /// How long it lasts, in seconds.
    public var duration: Double { Double(samples.count) / Double(sampleRate) }

    /// The same, `decibels` louder (or quieter), clipped to 16 bits.
    public func amplified(by decibels: Double) -> SpeechAudio {
        guard decibels != 0 else { return self }
        let factor = pow(10, decibels / 20)
        return SpeechAudio(sampleRate: sampleRate, samples: samples.map { sample in
            Int16(max(Double(Int16.min), min(Double(Int16.max), (Double(sample) * factor).rounded())))
        })
    }
}

/// How the person at the totem asked to hear the voice: its speed, as a multiple of the
/// configured one, and its loudness, in decibels from the usual.
public struct SpeechStyle: Sendable, Equatable {
    public var rate: Double
    public var gainDecibels: Double

    public init(rate: Double = 1, gainDecibels: Double = 0) {
        self.rate = rate
        self.gainDecibels = gainDecibels
    }

    public static let standard = SpeechStyle()
}

/// Why text could not be turned into speech.
public enum SpeechError: Error, Equatable, Sendable, CodedErrorConvertible {
    /// espeak-ng found no phoneme data where it looked (`ESPEAK_DATA_PATH` or its default).
    case dataMissing(path: String)
    /// espeak-ng has no voice for this language code.
    case unknownLanguage(String)
    /// espeak-ng refused the text (its `espeak_ERROR` status).
    case synthesisFailed(status: Int)

    public var coded: CodedError {
        switch self {
        case let .dataMissing(path): CodedError(.speechDataMissing, "speech data not found in \(path) (is espeak-ng-data installed?)")
        case let .unknownLanguage(code): CodedError(.noVoiceForLanguage, "no voice for language \"\(code)\"")
        case let .synthesisFailed(status): CodedError(.synthesisFailed, "espeak-ng could not synthesise the text (status \(status))")
        }
    }
}

/// Turns text into speech audio; the seam between the voices and the engine that speaks.
public protocol SpeechSynthesizing: Sendable {
    func synthesize(_ text: String, language: String) throws(SpeechError) -> SpeechAudio
    /// At `rate` times the usual speed.
    func synthesize(_ text: String, language: String, rate: Double) throws(SpeechError) -> SpeechAudio
}

extension SpeechSynthesizing {
    /// A synthesiser with one speed says everything at it.
    public func synthesize(_ text: String, language: String, rate: Double) throws(SpeechError) -> SpeechAudio {
        try synthesize(text, language: language)
    }
}

/// Speech from libespeak-ng, rendered to memory (its synchronous mode), never to a sound
/// device: the voice backends decide where it goes.
///
/// espeak-ng is one engine per process and not thread-safe, so every instance shares it under
/// one lock. It is initialised on first use; if its data is missing that is remembered and
/// reported on every call, not retried (install espeak-ng-data and restart).
public struct SpeechSynthesizer: SpeechSynthesizing {
    /// Speaking rate in words per minute, within what espeak-ng accepts (80...450; 175 is its normal).
    public let wordsPerMinute: Int

    public init(wordsPerMinute: Int = 175) {
        self.wordsPerMinute = min(max(wordsPerMinute, 80), 450)
    }

    public func synthesize(_ text: String, language: String) throws(SpeechError) -> SpeechAudio {
        try synthesize(text, language: language, rate: 1)
    }

    public func synthesize(_ text: String, language: String, rate: Double) throws(SpeechError) -> SpeechAudio {
        let wordsPerMinute = min(max(Int((Double(wordsPerMinute) * rate).rounded()), 80), 450)
        return try espeakEngine.withLock { engine throws(SpeechError) -> SpeechAudio in
            try engine.synthesize(text, language: language, wordsPerMinute: wordsPerMinute)
        }
    }
}

/// The process's one espeak-ng; only touched under this lock.
private let espeakEngine = Mutex(EspeakEngine())

private struct EspeakEngine {
    /// The sample rate once espeak-ng started, or why it could not.
    private var started: Result<Int, SpeechError>?

    mutating func synthesize(_ text: String, language: String, wordsPerMinute: Int) throws(SpeechError) -> SpeechAudio {
        let sampleRate = try start()
        // An empty criterion would silently pick espeak-ng's default voice (English).
        guard !language.isEmpty, selectVoice(for: language) == EE_OK else { throw .unknownLanguage(language) }
        // The rate is global to the engine: set it for every call, as instances may differ.
        espeak_SetParameter(espeakRATE, Int32(wordsPerMinute), 0)
        let collector = SampleCollector()
        let status = withExtendedLifetime(collector) {
            text.withCString { chars in
                espeak_Synth(chars, strlen(chars) + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil,
                             Unmanaged.passUnretained(collector).toOpaque())
            }
        }
        guard status == EE_OK else { throw .synthesisFailed(status: Int(status.rawValue)) }
        return SpeechAudio(sampleRate: sampleRate, samples: collector.samples)
    }

    private mutating func start() throws(SpeechError) -> Int {
        if let started { return try started.get() }
        // Without DONT_EXIT espeak-ng calls exit(1) when its data is missing; with it, it
        // returns a sample rate of 0 (seen with 1.51; documented as -1) and we report it.
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, espeakINITIALIZE_DONT_EXIT)
        let result: Result<Int, SpeechError>
        if rate > 0 {
            espeak_SetSynthCallback(collectSamples)
            result = .success(Int(rate))
        } else {
            var path: UnsafePointer<CChar>?
            espeak_Info(&path)
            result = .failure(.dataMissing(path: path.map { String(cString: $0) } ?? "its default directory"))
        }
        started = result
        return try result.get()
    }

    /// Picks espeak-ng's best voice for a language code; an unknown code leaves the previous
    /// voice selected and returns `EE_NOT_FOUND`.
    private func selectVoice(for language: String) -> espeak_ERROR {
        language.withCString { code in
            var criteria = espeak_VOICE()
            criteria.languages = code
            return espeak_SetVoiceByProperties(&criteria)
        }
    }
}

/// Where the audio of the `espeak_Synth` call in progress goes.
private final class SampleCollector {
    var samples: [Int16] = []
}

/// espeak-ng's synth callback. A C callback cannot capture Swift context, so the collector
/// travels as the `user_data` of the call, which espeak-ng copies into every event.
private func collectSamples(_ wav: UnsafeMutablePointer<Int16>?, _ count: Int32,
                            _ events: UnsafeMutablePointer<espeak_EVENT>?) -> Int32 {
    guard let wav, count > 0, let userData = events?.pointee.user_data else { return 0 }
    let collector = Unmanaged<SampleCollector>.fromOpaque(userData).takeUnretainedValue()
    collector.samples.append(contentsOf: UnsafeBufferPointer(start: wav, count: Int(count)))
    return 0
}
