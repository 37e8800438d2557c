/// Text a person typed (a name, a reason, a ticket number, a grep pattern), or that came
/// from a device or a peer, treated as data: shown escaped so that it can never start a new
/// line in a log or a trail, move a terminal's cursor, retitle its window or hide behind a
/// right-to-left override; and bounded before it is kept.
public enum TypedText {
    /// `text` with every character that could act on a reader written as a visible escape:
    /// C0 and C1 controls, DEL, line and paragraph separators, and the bidirectional
    /// controls. `\n`, `\r`, `\t` and `\\` keep their familiar spellings; the rest become
    /// `\u{1B}`. A backslash is doubled, so an escape typed by hand cannot pass for one.
    public static func escaped(_ text: String) -> String { escaping(text, backslashes: true) }

    /// Text kept escaped where it was stored (an audit entry's fields), shown again: what
    /// acts on a reader is escaped, as `escaped` does, in case it was stored by an older
    /// release; backslashes stay single, so `\n` reads as it was stored.
    public static func shown(_ text: String) -> String { escaping(text, backslashes: false) }

    private static func escaping(_ text: String, backslashes: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += backslashes ? "\\\\" : "\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if actsOnReader(scalar) {
                    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// Whether `text` holds a character `escaped` would rewrite (a backslash aside).
    public static func hasControls(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 == "\n" || $0 == "\r" || $0 == "\t" || actsOnReader($0) }
    }

    /// At most `maximum` characters of `text`, escaped: what a trail or a log keeps of a
    /// field that came from outside, counted in Unicode scalars. The bound applies before escaping, so an escaped field
    /// may be longer than `maximum`, never unbounded.
    public static func kept(_ text: String, maximum: Int) -> String {
        escaped(prefix(text, maximum))
    }

    /// At most `maximum` Unicode scalars of `text`. Scalars, not characters: one letter with
    /// sixty thousand combining marks is one character.
    public static func prefix(_ text: String, _ maximum: Int) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(max(0, maximum))))
    }

    /// The longest piece of typed text a message quotes.
    public static let maximumQuoted = 32

    /// Typed text (a ticket number, a name, a scanned code) as an error message or a log
    /// line quotes it: escaped and bounded, `…` marking a cut, so that what a person typed
    /// can neither give the message a second line nor make it long.
    public static func inMessage(_ text: String, maximum: Int = maximumQuoted) -> String {
        kept(text, maximum: maximum) + (text.unicodeScalars.count > maximum ? "…" : "")
    }

    /// A character that changes how what follows it is shown rather than showing itself.
    static func actsOnReader(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true          // C0, DEL, C1 (ESC, CSI, OSC, NUL …)
        case 0x2028, 0x2029: return true                    // line and paragraph separators
        case 0x200E, 0x200F, 0x061C: return true            // LRM, RLM, ALM
        case 0x202A...0x202E, 0x2066...0x2069: return true  // embeddings, overrides, isolates
        case 0xFEFF: return true                            // a BOM in mid-text hides itself
        default: return false
        }
    }
}
