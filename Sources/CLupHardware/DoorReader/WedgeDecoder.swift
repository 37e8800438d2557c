/// Decodes a keyboard-wedge scanner's key presses into codes: keys typed as the layout's
/// keymap says (Shift, AltGr and dead keys as a keyboard of that layout has them, through
/// libxkbcommon), Enter ending a code.
///
/// A code cut off mid-way (no key for `interKeyTimeout` seconds before Enter) is refused,
/// as is one with keys the layout has no character for, or one longer than `maximumLength`.
public struct WedgeDecoder: Sendable {
    /// What the scanner delivered.
    public enum Output: Equatable, Sendable {
        case code(String)
        case refused(String)
    }

    public static let enter: UInt16 = 28, keypadEnter: UInt16 = 96

    public let keymap: Keymap
    public let interKeyTimeout: Double
    public let maximumLength: Int
    private var buffer = ""
    private var problem: String?
    /// The modifiers held and a dead key pressed; a copy of the decoder shares it, so one
    /// reader uses one decoder.
    private let keyboard: KeyboardState
    private var lastKey: Double?

    public init(keymap: Keymap, interKeyTimeout: Double = 0.5, maximumLength: Int = 512) {
        self.keymap = keymap
        self.interKeyTimeout = interKeyTimeout
        self.maximumLength = maximumLength
        keyboard = KeyboardState(keymap)
    }

    /// Whether part of a code is waiting for more keys.
    public var isPartial: Bool { !buffer.isEmpty || problem != nil }

    /// Feeds one event; returns the codes (or refusals) it completed.
    public mutating func feed(_ event: InputEvent) -> [Output] {
        guard event.type == EventCode.key else { return [] }
        // Auto-repeat carries no character; a scanner does not repeat. A release only lets a
        // modifier go.
        guard event.value == 1 else {
            if event.value == 0 { _ = keyboard.key(event.code, down: false) }
            return []
        }
        var outputs = expire(at: event.time)
        lastKey = event.time
        if event.code == Self.enter || event.code == Self.keypadEnter {
            if let completed = complete() { outputs.append(completed) }
            return outputs
        }
        let typed = keyboard.key(event.code, down: true)
        guard problem == nil else { return outputs }
        switch typed {
        case .nothing:
            return outputs
        case .untypeable:
            problem = "key \(event.code) has no character in the \(keymap.name) layout"
            return outputs
        case .uncombined:
            problem = "a dead key and key \(event.code) make no character in the \(keymap.name) layout"
            return outputs
        case let .text(text):
            guard buffer.count + text.count <= maximumLength else {
                problem = "longer than \(maximumLength) characters"
                return outputs
            }
            buffer += text
            return outputs
        }
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
        keyboard.forgetDeadKey()
    }
}
