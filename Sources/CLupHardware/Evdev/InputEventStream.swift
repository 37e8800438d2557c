/// Cuts the bytes read from an evdev node (or a pipe standing in for one) into
/// `struct input_event` records: 24 bytes on 64-bit Linux (timeval of two 64-bit fields,
/// then u16 type, u16 code, s32 value), in the machine's byte order.
///
/// Keeps a partial record until the rest arrives; never traps on short input.
public struct InputEventStream: Sendable {
    public static let recordSize = 24
    private var pending: [UInt8] = []

    public init() {}

    /// Appends `bytes` and returns the whole records now available.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [InputEvent] {
        pending.append(contentsOf: bytes)
        let whole = pending.count / Self.recordSize
        var events: [InputEvent] = []
        events.reserveCapacity(whole)
        for index in 0..<whole {
            let base = index * Self.recordSize
            let seconds = Int64(littleEndian: load(Int64.self, at: base))
            let microseconds = Int64(littleEndian: load(Int64.self, at: base + 8))
            events.append(InputEvent(time: Double(seconds) + Double(microseconds) / 1_000_000,
                                     type: UInt16(littleEndian: load(UInt16.self, at: base + 16)),
                                     code: UInt16(littleEndian: load(UInt16.self, at: base + 18)),
                                     value: Int32(littleEndian: load(Int32.self, at: base + 20))))
        }
        pending.removeFirst(whole * Self.recordSize)
        return events
    }

    /// Bytes of an incomplete record still waiting for the rest.
    public var bufferedByteCount: Int { pending.count }

    private func load<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        var value: T = 0
        withUnsafeMutableBytes(of: &value) { destination in
            for byte in 0..<MemoryLayout<T>.size { destination[byte] = pending[offset + byte] }
        }
        return value
    }

    /// `event` as the kernel would write it, for tests and replays into a pipe.
    public static func encode(_ event: InputEvent) -> [UInt8] {
        let seconds = Int64(event.time.rounded(.down))
        let microseconds = Int64(((event.time - Double(seconds)) * 1_000_000).rounded())
        var bytes: [UInt8] = []
        withUnsafeBytes(of: seconds.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: microseconds.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: event.type.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: event.code.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: event.value.littleEndian) { bytes += $0 }
        return bytes
    }
}
