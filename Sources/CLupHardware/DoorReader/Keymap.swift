/// Which character a key of a keyboard-wedge scanner types, plain and with Shift, for one
/// keyboard layout (the scanner is set up to type as a keyboard of that layout would).
public struct Keymap: Sendable {
    public let name: String
    let keys: [UInt16: (plain: Character, shifted: Character)]

    /// The key and Shift state that type `character`, to simulate a scanner.
    public func keystroke(for character: Character) -> (code: UInt16, shift: Bool)? {
        for (code, pair) in keys {
            if pair.plain == character { return (code, false) }
            if pair.shifted == character { return (code, true) }
        }
        return nil
    }

    /// The key events a wedge scanner set to this layout sends for `text` and Enter: press
    /// and release of each key, Shift around capitals and symbols, `step` seconds apart.
    /// A character the layout cannot type is sent as `untypeable` (a key with no character),
    /// or makes the result nil when `untypeable` is nil.
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
            guard let (key, shift) = keystroke(for: character) ?? untypeable.map({ ($0, false) }) else { return nil }
            if shift { press(WedgeDecoder.leftShift, 1) }
            press(key, 1)
            press(key, 0)
            if shift { press(WedgeDecoder.leftShift, 0) }
        }
        press(WedgeDecoder.enter, 1)
        press(WedgeDecoder.enter, 0)
        return events
    }

    func character(_ code: UInt16, shift: Bool) -> Character? {
        keys[code].map { shift ? $0.shifted : $0.plain }
    }

    public static func named(_ name: String) -> Keymap? {
        switch name {
        case "us": .us
        case "de": .de
        default: nil
        }
    }

    static let letters: [(UInt16, Character)] = [
        (16, "q"), (17, "w"), (18, "e"), (19, "r"), (20, "t"), (21, "y"), (22, "u"), (23, "i"), (24, "o"), (25, "p"),
        (30, "a"), (31, "s"), (32, "d"), (33, "f"), (34, "g"), (35, "h"), (36, "j"), (37, "k"), (38, "l"),
        (44, "z"), (45, "x"), (46, "c"), (47, "v"), (48, "b"), (49, "n"), (50, "m"),
    ]

    static func table(_ pairs: [(UInt16, Character, Character)]) -> [UInt16: (plain: Character, shifted: Character)] {
        var keys: [UInt16: (plain: Character, shifted: Character)] = [:]
        for (code, letter) in letters { keys[code] = (letter, Character(letter.uppercased())) }
        keys[57] = (" ", " ")
        for (code, plain, shifted) in pairs { keys[code] = (plain, shifted) }
        return keys
    }

    /// US English.
    public static let us = Keymap(name: "us", keys: table([
        (2, "1", "!"), (3, "2", "@"), (4, "3", "#"), (5, "4", "$"), (6, "5", "%"), (7, "6", "^"), (8, "7", "&"),
        (9, "8", "*"), (10, "9", "("), (11, "0", ")"), (12, "-", "_"), (13, "=", "+"), (26, "[", "{"), (27, "]", "}"),
        (39, ";", ":"), (40, "'", "\""), (41, "`", "~"), (43, "\\", "|"), (51, ",", "<"), (52, ".", ">"), (53, "/", "?"),
    ]))

    /// German (QWERTZ): Y and Z swapped, symbols where a German keyboard has them.
    public static let de = Keymap(name: "de", keys: {
        var keys = table([
            (2, "1", "!"), (3, "2", "\""), (4, "3", "§"), (5, "4", "$"), (6, "5", "%"), (7, "6", "&"), (8, "7", "/"),
            (9, "8", "("), (10, "9", ")"), (11, "0", "="), (12, "ß", "?"), (13, "´", "`"), (26, "ü", "Ü"), (27, "+", "*"),
            (39, "ö", "Ö"), (40, "ä", "Ä"), (41, "^", "°"), (43, "#", "'"), (51, ",", ";"), (52, ".", ":"), (53, "-", "_"),
        ])
        keys[21] = ("z", "Z")
        keys[44] = ("y", "Y")
        return keys
    }())
}
