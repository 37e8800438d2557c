import CLupCore
import Foundation

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
    /// The helper that runs espeak-ng (`clup-speak`) could not run, or gave no speech.
    case helperFailed(String)

    public var coded: CodedError {
        switch self {
        case let .dataMissing(path): CodedError(.speechDataMissing, "speech data not found in \(path) (is espeak-ng-data installed?)")
        case let .unknownLanguage(code): CodedError(.noVoiceForLanguage, "no voice for language \"\(code)\"")
        case let .synthesisFailed(status): CodedError(.synthesisFailed, "espeak-ng could not synthesise the text (status \(status))")
        case let .helperFailed(detail): CodedError(.speechHelperFailed, "the speech helper failed: \(detail)")
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

/// Speech from espeak-ng, made by `clup-speak` in a process of its own for each utterance
/// (clupd does not link espeak-ng, nor the PulseAudio and codecs it brings), never played
/// there: the voice backends decide where it goes.
///
/// The helper is looked for beside the running program (a checkout's build folder), then
/// where the package installs it (`/usr/libexec/clup-totem`). Missing speech data, an
/// unknown language and a refused text keep their own errors, as the helper tells them by
/// its exit status.
public struct SpeechSynthesizer: SpeechSynthesizing {
    /// Speaking rate in words per minute, within what espeak-ng accepts (80...450; 175 is its normal).
    public let wordsPerMinute: Int
    /// The `clup-speak` program run.
    public let helper: String

    /// The longest text spoken (the helper's own limit), and the most audio read back: ten
    /// minutes at 22,050 Hz.
    static let textLimit = 64 * 1024
    static let audioLimit = 8 + 2 * 22_050 * 600
    /// How long one utterance may take to make: the helper is killed after it.
    public let timeoutSeconds: Double

    public init(wordsPerMinute: Int = 175, helper: String = SpeechSynthesizer.installedHelper, timeoutSeconds: Double = 60) {
        self.wordsPerMinute = min(max(wordsPerMinute, 80), 450)
        self.helper = helper
        self.timeoutSeconds = timeoutSeconds
    }

    /// `clup-speak` beside the running program if it is there, else the package's.
    public static let installedHelper: String = {
        let program = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let beside = URL(fileURLWithPath: program).deletingLastPathComponent().appendingPathComponent("clup-speak").path
        return FileManager.default.isExecutableFile(atPath: beside) ? beside : "/usr/libexec/clup-totem/clup-speak"
    }()

    public func synthesize(_ text: String, language: String) throws(SpeechError) -> SpeechAudio {
        try synthesize(text, language: language, rate: 1)
    }

    public func synthesize(_ text: String, language: String, rate: Double) throws(SpeechError) -> SpeechAudio {
        let wordsPerMinute = min(max(Int((Double(wordsPerMinute) * rate).rounded()), 80), 450)
        // An empty criterion would silently pick espeak-ng's default voice (English).
        guard !language.isEmpty, language.utf8.count <= 64 else { throw .unknownLanguage(language) }
        let input = Data(text.utf8)
        guard input.count <= Self.textLimit else { throw .helperFailed("a text of \(input.count) bytes, more than \(Self.textLimit)") }
        let run = try runHelper(arguments: [language, String(wordsPerMinute)], input: input)
        switch run.status {
        case 0: break
        case 3: throw .dataMissing(path: run.said.isEmpty ? "its default directory" : run.said)
        case 4: throw .unknownLanguage(language)
        case 5: throw .synthesisFailed(status: Int(run.said) ?? -1)
        default: throw .helperFailed("\(helper) exited with status \(run.status)\(run.said.isEmpty ? "" : ": \(run.said)")")
        }
        return try Self.audio(run.output)
    }

    /// The helper's output: "CLUP", the sample rate (4 bytes, little-endian), the samples.
    static func audio(_ output: Data) throws(SpeechError) -> SpeechAudio {
        let bytes = [UInt8](output)
        guard bytes.count >= 8, bytes[0..<4] == [0x43, 0x4C, 0x55, 0x50], bytes.count % 2 == 0 else {
            throw .helperFailed("its output is not speech (\(bytes.count) bytes)")
        }
        let sampleRate = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        guard (8000...96000).contains(sampleRate) else { throw .helperFailed("a sample rate of \(sampleRate) Hz") }
        var samples = [Int16](repeating: 0, count: (bytes.count - 8) / 2)
        for index in samples.indices {
            samples[index] = Int16(bitPattern: UInt16(bytes[8 + 2 * index]) | UInt16(bytes[9 + 2 * index]) << 8)
        }
        return SpeechAudio(sampleRate: sampleRate, samples: samples)
    }

    /// Runs the helper with `input` on its standard input; its exit status, its output (at
    /// most `audioLimit` bytes) and the last line it wrote on standard error, escaped.
    private func runHelper(arguments: [String], input: Data) throws(SpeechError) -> (status: Int32, output: Data, said: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: helper)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        do {
            try process.run()
        } catch {
            throw .helperFailed("cannot run \(helper): \(error.localizedDescription)")
        }
        // A helper stuck past the deadline is killed, which ends its output; armed before the
        // text is written, which waits if the helper does not read it.
        let watchdog = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeoutSeconds, execute: watchdog)
        defer { watchdog.cancel() }
        // The helper reads all its input before it writes. One that exited first leaves a
        // broken pipe: an error here (clupd ignores SIGPIPE), its exit status said below.
        try? stdin.fileHandleForWriting.write(contentsOf: input)
        try? stdin.fileHandleForWriting.close()
        var output = Data()
        var tooLong = false
        while let chunk = try? stdout.fileHandleForReading.read(upToCount: 256 * 1024), !chunk.isEmpty {
            if output.count + chunk.count > Self.audioLimit {
                // Its output closed: the helper's next write fails and it exits (status 6).
                tooLong = true
                try? stdout.fileHandleForReading.close()
                break
            }
            output.append(chunk)
        }
        let errors = (try? stderr.fileHandleForReading.read(upToCount: 4096)) ?? Data()
        process.waitUntilExit()
        guard !tooLong else { throw .helperFailed("more than \(Self.audioLimit) bytes of audio") }
        if process.terminationReason == .uncaughtSignal {
            throw .helperFailed("\(helper) was stopped by signal \(process.terminationStatus)"
                + (process.terminationStatus == SIGKILL ? " (no speech within \(timeoutSeconds.formatted()) s)" : ""))
        }
        let said = String(decoding: errors, as: UTF8.self).split(separator: "\n").last
            .map { TypedText.escaped(String($0.prefix(300))) } ?? ""
        return (process.terminationStatus, output, said)
    }
}
