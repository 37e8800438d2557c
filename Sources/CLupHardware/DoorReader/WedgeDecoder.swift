/// Decodes a keyboard-wedge scanner's key presses into codes: keys typed with the layout's
/// keymap, Shift held for capitals and symbols, Enter ending a code.
///
/// A code cut off mid-way (no key for `interKeyTimeout` seconds before Enter) is refused,
/// as is one with keys the layout has no character for, or one longer than `maximumLength`.
public struct WedgeDecoder: Sendable {
    /// What the scanner delivered.
    public enum Output: Equatable, Sendable {
        case code(String)
        case refused(String)
    }

    public static let leftShift: UInt16 = 42, rightShift: UInt16 = 54, enter: UInt16 = 28, keypadEnter: UInt16 = 96

    public let keymap: Keymap
    public let interKeyTimeout: Double
    public let maximumLength: Int
    private var buffer = ""
    private var problem: String?
    private var shiftKeys: Set<UInt16> = []
    private var lastKey: Double?

    public init(keymap: Keymap, interKeyTimeout: Double = 0.5, maximumLength: Int = 512) {
        self.keymap = keymap
        self.interKeyTimeout = interKeyTimeout
        self.maximumLength = maximumLength
    }

    /// Whether part of a code is waiting for more keys.
    public var isPartial: Bool { !buffer.isEmpty || problem != nil }

    /// Feeds one event; returns the codes (or refusals) it completed.
    public mutating func feed(_ event: InputEvent) -> [Output] {
        guard event.type == EventCode.key else { return [] }
        if event.code == Self.leftShift || event.code == Self.rightShift {
            if event.value == 0 { shiftKeys.remove(event.code) } else { shiftKeys.insert(event.code) }
            return []
        }
        // Releases and auto-repeat carry no character; a scanner does not repeat.
        guard event.value == 1 else { return [] }
        var outputs = expire(at: event.time)
        lastKey = event.time
        if event.code == Self.enter || event.code == Self.keypadEnter {
            if let completed = complete() { outputs.append(completed) }
            return outputs
        }
        guard problem == nil else { return outputs }
        guard let character = keymap.character(event.code, shift: !shiftKeys.isEmpty) else {
            problem = "key \(event.code) has no character in the \(keymap.name) layout"
            return outputs
        }
        guard buffer.count < maximumLength else {
            problem = "longer than \(maximumLength) characters"
            return outputs
        }
        buffer.append(character)
        return outputs
    }

    /// Refuses a partial code whose next key is overdue at `time` (call it from a timer).
    public mutating func expire(at time: Double) -> [Output] {
        guard isPartial, let lastKey, time - lastKey > interKeyTimeout else { return [] }
        let partial = buffer.count
        reset()
        return [.refused("a code cut off after \(partial) characters (no Enter)")]
    }

    private mutating func complete() -> Output? {
        defer { reset() }
        if let problem { return .refused(problem) }
        return buffer.isEmpty ? nil : .code(buffer)
    }

    private mutating func reset() {
        buffer = ""
        problem = nil
    }
}
