import CLupCore
import CXKBCommon
import Foundation

/// A keyboard layout as xkb-data describes it, read through libxkbcommon: what each key of
/// a wedge scanner types, with Shift, with AltGr, and after a dead key. A scanner is set up
/// to type as a keyboard of the shop's layout would ("it", "fr", "es", "de", or a variant:
/// "fr(oss)"), so the door decodes with the same layout.
///
/// Immutable once made, and shared by the decoders that use it (libxkbcommon's keymaps are
/// read-only and safe to read from any thread); each decoder keeps its own `KeyboardState`.
public final class Keymap: @unchecked Sendable {
    /// The layout as configured: "it", "fr(oss)".
    public let name: String
    let keymap: OpaquePointer
    /// The keys and modifiers that type each character, for simulating a scanner.
    private let strokes: [Character: Keystroke]

    /// A key pressed with the modifier keys held around it (evdev codes).
    public struct Keystroke: Sendable, Equatable {
        public let key: UInt16
        public let modifiers: [UInt16]

        /// Keys of the main block (the rows from Esc to the space bar, and the ISO key beside
        /// the left Shift), not the keypad's.
        var isMainBlock: Bool { (key <= 58 && key != 55) || key == 86 }

        /// Which of two strokes typing one character a scanner uses: the main block's, then
        /// the one with fewer modifiers (the higher wins).
        var preference: (Int, Int) { (isMainBlock ? 1 : 0, -modifiers.count) }
    }

    /// Why a layout cannot be used.
    public struct LayoutError: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// The layout `name` names: "LAYOUT" or "LAYOUT(VARIANT)", in xkb's own words.
    public convenience init(_ name: String) throws(LayoutError) {
        guard let (layout, variant) = Self.parse(name) else {
            throw LayoutError(description: "\"\(TypedText.inMessage(name))\" is not a keyboard layout "
                + "(a layout of xkb-data, as \"it\", \"fr\", \"es\", \"de\", or with a variant, as \"fr(oss)\")")
        }
        try self.init(layout: layout, variant: variant, name: name)
    }

    private init(layout: String, variant: String, name: String) throws(LayoutError) {
        // The environment (XKB_DEFAULT_LAYOUT and the like) never changes what a scanner types.
        guard let context = xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES) else {
            throw LayoutError(description: "libxkbcommon could not start")
        }
        defer { xkb_context_unref(context) }
        // What is wrong is said by the error thrown, not by libxkbcommon on stderr.
        xkb_context_set_log_level(context, XKB_LOG_LEVEL_CRITICAL)
        let made: OpaquePointer? = "evdev".withCString { rules in
            "pc105".withCString { model in
                layout.withCString { layout in
                    variant.withCString { variant in
                        var names = xkb_rule_names(rules: rules, model: model, layout: layout, variant: variant, options: nil)
                        return xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS)
                    }
                }
            }
        }
        // An unknown layout or variant compiles to nothing (libxkbcommon does not fall back).
        guard let made else {
            throw LayoutError(description: "xkb-data has no keyboard layout \"\(name)\" (is the xkb-data package installed?)")
        }
        self.name = name
        keymap = made
        strokes = Self.strokes(of: made)
    }

    deinit {
        xkb_keymap_unref(keymap)
    }

    /// The keymap `name` names, or nil (`init(_:)` says why).
    public static func named(_ name: String) -> Keymap? {
        try? Keymap(name)
    }

    /// "fr(oss)" as ("fr", "oss"); nil unless both are short words of letters, digits, _ and -.
    static func parse(_ name: String) -> (layout: String, variant: String)? {
        func isWord(_ text: Substring) -> Bool {
            (1...32).contains(text.count) && text.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_" || $0 == "-") }
        }
        if let open = name.firstIndex(of: "("), name.hasSuffix(")") {
            let layout = name[..<open], variant = name[name.index(after: open)..<name.index(before: name.endIndex)]
            return isWord(layout) && isWord(variant) ? (String(layout), String(variant)) : nil
        }
        return isWord(name[...]) ? (name, "") : nil
    }

    // MARK: Simulating a scanner

    /// The key and modifiers that type `character` on this layout (the fewest modifiers).
    public func keystroke(for character: Character) -> Keystroke? {
        strokes[character]
    }

    /// The key events a wedge scanner set to this layout sends for `text` and Enter: press
    /// and release of each key, Shift or AltGr held around it where the layout needs them,
    /// `step` seconds apart. A character the layout cannot type is sent as `untypeable` (a
    /// key with no character), or makes the result nil when `untypeable` is nil.
    public func scannerEvents(typing text: String, startingAt start: Double, step: Double = 0.004,
                              untypeable: UInt16? = nil) -> [InputEvent]? {
        var events: [InputEvent] = []
        var time = start
        func press(_ key: UInt16, _ value: Int32) {
            events.append(InputEvent(time: time, type: EventCode.key, code: key, value: value))
            events.append(InputEvent(time: time, type: EventCode.synchronization, code: EventCode.report, value: 0))
            time += step
        }
        for character in text {
            guard let stroke = keystroke(for: character) ?? untypeable.map({ Keystroke(key: $0, modifiers: []) }) else { return nil }
            for modifier in stroke.modifiers { press(modifier, 1) }
            press(stroke.key, 1)
            press(stroke.key, 0)
            for modifier in stroke.modifiers.reversed() { press(modifier, 0) }
        }
        press(WedgeDecoder.enter, 1)
        press(WedgeDecoder.enter, 0)
        return events
    }

    /// Evdev codes of the modifier keys a simulated scanner holds.
    static let leftShift: UInt16 = 42, rightAlt: UInt16 = 100

    /// Every character a key types at some level reachable with Shift and AltGr alone.
    private static func strokes(of keymap: OpaquePointer) -> [Character: Keystroke] {
        let shift = xkb_keymap_mod_get_index(keymap, XKB_MOD_NAME_SHIFT)
        // AltGr is ISO_Level3_Shift, which the evdev rules put on Mod5.
        let levelThree = xkb_keymap_mod_get_index(keymap, "Mod5")
        func bit(_ index: xkb_mod_index_t) -> xkb_mod_mask_t {
            index == XKB_MOD_INVALID || index >= 32 ? 0 : 1 << index
        }
        let (shiftBit, levelThreeBit) = (bit(shift), bit(levelThree))
        var strokes: [Character: Keystroke] = [:]
        let first = xkb_keymap_min_keycode(keymap), last = xkb_keymap_max_keycode(keymap)
        guard first >= 8, last >= first else { return [:] }
        for keycode in first...last {
            let levels = xkb_keymap_num_levels_for_key(keymap, keycode, 0)
            guard levels > 0 else { continue }
            for level in 0..<levels {
                var symbols: UnsafePointer<xkb_keysym_t>?
                guard xkb_keymap_key_get_syms_by_level(keymap, keycode, 0, level, &symbols) == 1, let symbols else { continue }
                let scalarValue = xkb_keysym_to_utf32(symbols[0])
                guard scalarValue >= 0x20, scalarValue != 0x7F, let scalar = Unicode.Scalar(scalarValue) else { continue }
                var masks = [xkb_mod_mask_t](repeating: 0, count: 8)
                let count = xkb_keymap_key_get_mods_for_level(keymap, keycode, 0, level, &masks, masks.count)
                // The smallest set of modifiers, among Shift and AltGr, that reaches the level.
                let usable = masks.prefix(count).filter { $0 & ~(shiftBit | levelThreeBit) == 0 }
                guard let mask = usable.min(by: { $0.nonzeroBitCount < $1.nonzeroBitCount }) else { continue }
                var modifiers: [UInt16] = []
                if mask & shiftBit != 0, shiftBit != 0 { modifiers.append(leftShift) }
                if mask & levelThreeBit != 0, levelThreeBit != 0 { modifiers.append(rightAlt) }
                let stroke = Keystroke(key: UInt16(keycode - 8), modifiers: modifiers)
                // A scanner is a USB keyboard: it has no key beyond the HID keyboard page
                // (xkb's KEY_DOLLAR and the like), and it types on the main block, the keypad
                // only for what the main block lacks.
                guard stroke.key < 0x100 else { continue }
                let character = Character(scalar)
                if let known = strokes[character], known.preference >= stroke.preference { continue }
                strokes[character] = stroke
            }
        }
        return strokes
    }
}

/// What one decoder knows of the keys held and the dead key pressed: libxkbcommon's
/// keyboard state and, for dead keys, its compose state over the system's table (X11's
/// en_US.UTF-8 Compose file, from libx11-data). Used by one decoder at a time.
final class KeyboardState: @unchecked Sendable {
    private let state: OpaquePointer
    private let compose: OpaquePointer?

    /// What a key press typed.
    enum Typed: Equatable {
        /// Text: the character the key typed, or the one a dead key and it make.
        case text(String)
        /// Nothing yet: a modifier, or a dead key waiting for its letter.
        case nothing
        /// A key with no character in this layout.
        case untypeable
        /// A dead key, then a key it does not combine with: neither types anything.
        case uncombined
    }

    init(_ keymap: Keymap) {
        state = xkb_state_new(keymap.keymap)
        compose = Self.composeTable.flatMap { xkb_compose_state_new($0, XKB_COMPOSE_STATE_NO_FLAGS) }
    }

    deinit {
        xkb_state_unref(state)
        if let compose { xkb_compose_state_unref(compose) }
    }

    /// Where dead keys are looked up: the system's compose table, read once, without the
    /// user's own (~/.XCompose and the environment change nothing).
    static let composePath = "/usr/share/X11/locale/en_US.UTF-8/Compose"
    private nonisolated(unsafe) static let composeTable: OpaquePointer? = {
        guard let context = xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES) else { return nil }
        defer { xkb_context_unref(context) }
        xkb_context_set_log_level(context, XKB_LOG_LEVEL_CRITICAL)
        guard let file = fopen(composePath, "r") else { return nil }
        defer { fclose(file) }
        return xkb_compose_table_new_from_file(context, file, "en_US.UTF-8", XKB_COMPOSE_FORMAT_TEXT_V1,
                                               XKB_COMPOSE_COMPILE_NO_FLAGS)
    }()

    /// A key (evdev code) pressed (`down`) or released; what a press typed.
    func key(_ code: UInt16, down: Bool) -> Typed {
        let keycode = xkb_keycode_t(code) + 8
        defer { xkb_state_update_key(state, keycode, down ? XKB_KEY_DOWN : XKB_KEY_UP) }
        guard down else { return .nothing }
        let symbol = xkb_state_key_get_one_sym(state, keycode)
        if let compose, xkb_compose_state_feed(compose, symbol) == XKB_COMPOSE_FEED_ACCEPTED {
            switch xkb_compose_state_get_status(compose) {
            case XKB_COMPOSE_COMPOSING:
                return .nothing
            case XKB_COMPOSE_COMPOSED:
                defer { xkb_compose_state_reset(compose) }
                return Self.checked(Self.utf8 { xkb_compose_state_get_utf8(compose, $0, $1) })
            case XKB_COMPOSE_CANCELLED:
                xkb_compose_state_reset(compose)
                return .uncombined
            default:
                break
            }
        }
        if Self.isModifier(symbol) { return .nothing }
        return Self.checked(Self.utf8 { xkb_state_key_get_utf8(state, keycode, $0, $1) })
    }

    /// Forgets a dead key pressed (a code ended or was cut off after it).
    func forgetDeadKey() {
        if let compose { xkb_compose_state_reset(compose) }
    }

    private static func isModifier(_ symbol: xkb_keysym_t) -> Bool {
        // XKB_KEY_Shift_L ... XKB_KEY_Hyper_R, and ISO_Level3_Shift and its kin.
        (0xFFE1...0xFFEE).contains(symbol) || (0xFE01...0xFE13).contains(symbol)
    }

    /// A character typed, or untypeable when the key types nothing printable.
    private static func checked(_ text: String) -> Typed {
        guard !text.isEmpty, text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else { return .untypeable }
        return .text(text)
    }

    private static func utf8(_ read: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let length = buffer.withUnsafeMutableBufferPointer { read($0.baseAddress!, $0.count) }
        guard length > 0, Int(length) < buffer.count else { return "" }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
