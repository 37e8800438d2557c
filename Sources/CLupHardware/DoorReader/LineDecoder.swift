/// Decodes a serial scanner's bytes into codes: one code per line, ended by CR, LF or
/// CR LF. Refuses a line that is not printable ASCII or is too long; a line cut off
/// mid-way is refused by `expire` once no byte came for `interByteTimeout` seconds.
public struct LineDecoder: Sendable {
    public let interByteTimeout: Double
    public let maximumLength: Int
    private var buffer: [UInt8] = []
    private var overflowed = false
    private var lastByte: Double?

    public init(interByteTimeout: Double = 0.5, maximumLength: Int = 512) {
        self.interByteTimeout = interByteTimeout
        self.maximumLength = maximumLength
    }

    public var isPartial: Bool { !buffer.isEmpty || overflowed }

    /// Feeds bytes read at `time`; returns the codes (or refusals) completed.
    public mutating func feed(_ bytes: some Collection<UInt8>, at time: Double) -> [WedgeDecoder.Output] {
        var outputs = expire(at: time)
        if !bytes.isEmpty { lastByte = time }
        for byte in bytes {
            if byte == 0x0D || byte == 0x0A {
                if let line = completeLine() { outputs.append(line) }
            } else if buffer.count < maximumLength {
                buffer.append(byte)
            } else {
                overflowed = true
            }
        }
        return outputs
    }

    /// Refuses a partial line whose next byte is overdue at `time`.
    public mutating func expire(at time: Double) -> [WedgeDecoder.Output] {
        guard isPartial, let lastByte, time - lastByte > interByteTimeout else { return [] }
        let count = buffer.count
        buffer = []
        overflowed = false
        return [.refused("a code cut off after \(count) bytes (no end of line)")]
    }

    private mutating func completeLine() -> WedgeDecoder.Output? {
        defer { buffer = []; overflowed = false }
        if overflowed { return .refused("longer than \(maximumLength) characters") }
        guard !buffer.isEmpty else { return nil }   // the LF of a CR LF
        guard buffer.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            return .refused("\(buffer.count) bytes that are not printable ASCII")
        }
        return .code(String(decoding: buffer, as: UTF8.self))
    }
}
