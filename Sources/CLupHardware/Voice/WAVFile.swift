import CLupCore
import Foundation

/// RIFF/WAVE files of 16-bit mono PCM: how the simulated voice shows what it said, and how
/// tests read back what ALSA's `file` plugin wrote.
public enum WAVFile {
    /// Why bytes are not a 16-bit mono PCM WAV.
    public struct FormatError: Error, Equatable, CodedErrorConvertible {
        public let reason: String
        public var coded: CodedError { CodedError(.notAWAVFile, "not a 16-bit mono PCM WAV: \(reason)") }
    }

    /// A canonical WAV (44-byte header, then the samples little-endian).
    public static func encode(_ audio: SpeechAudio) -> [UInt8] {
        let dataSize = UInt32(clamping: audio.samples.count * 2)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(44 + Int(dataSize))
        func append(_ tag: String) { bytes += Array(tag.utf8) }
        func append16(_ value: UInt16) {
            bytes.append(UInt8(truncatingIfNeeded: value))
            bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        }
        func append32(_ value: UInt32) {
            append16(UInt16(truncatingIfNeeded: value))
            append16(UInt16(truncatingIfNeeded: value >> 16))
        }
        append("RIFF"); append32(36 &+ dataSize); append("WAVE")
        append("fmt "); append32(16)
        append16(1)                                  // PCM
        append16(1)                                  // mono
        append32(UInt32(audio.sampleRate))
        append32(UInt32(audio.sampleRate * 2))       // bytes per second
        append16(2)                                  // bytes per frame
        append16(16)                                 // bits per sample
        append("data"); append32(dataSize)
        for sample in audio.samples { append16(UInt16(bitPattern: sample)) }
        return bytes
    }

    /// Reads a WAV, skipping chunks it does not need (`LIST`, `fact`, …). A `data` chunk
    /// longer than the bytes there (a file still being written) is read as far as it goes.
    public static func decode(_ bytes: [UInt8]) throws(FormatError) -> SpeechAudio {
        func tag(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }

        guard bytes.count >= 12, tag(0) == "RIFF", tag(8) == "WAVE" else {
            throw FormatError(reason: "no RIFF/WAVE header")
        }
        var sampleRate: Int?
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = u32(offset + 4)
            let body = offset + 8
            let end = min(body + size, bytes.count)
            switch tag(offset) {
            case "fmt ":
                guard end - body >= 16 else { throw FormatError(reason: "fmt chunk of \(size) bytes") }
                let (format, channels, bits) = (u16(body), u16(body + 2), u16(body + 14))
                guard format == 1, channels == 1, bits == 16 else {
                    throw FormatError(reason: "format \(format), \(channels) channels, \(bits) bits")
                }
                sampleRate = u32(body + 4)
            case "data":
                guard let sampleRate, sampleRate > 0 else { throw FormatError(reason: "data before fmt") }
                let samples = stride(from: body, to: end - 1, by: 2).map { Int16(bitPattern: UInt16(u16($0))) }
                return SpeechAudio(sampleRate: sampleRate, samples: samples)
            default:
                break
            }
            offset = body + size + size % 2    // chunks are padded to an even length
        }
        throw FormatError(reason: "no data chunk")
    }

    /// Writes atomically (Foundation writes a temporary file and renames it over `path`), so a
    /// reader never sees half a file.
    public static func write(_ audio: SpeechAudio, to path: String) throws {
        try Data(encode(audio)).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    public static func read(contentsOf path: String) throws -> SpeechAudio {
        try decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
    }
}
