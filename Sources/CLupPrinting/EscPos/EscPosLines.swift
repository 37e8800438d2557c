import CLupDrawing
import Foundation

/// Lines of text on an ESC/POS printer, as a person reading the ticket expects them: every
/// accent and the € as themselves, and each line broken between words where the paper ends.
///
/// A line goes out in the first of the profile's code pages that holds all of it, staying on
/// the page already selected while that one does (`ESC t n` only when it changes). Where no
/// page holds it, typographic punctuation is tried in its plain form (– as -, ’ as '); and a
/// line no page holds even so (a store name in another script) is drawn and sent as a
/// picture, never as `?`. Lines are wrapped by us to the characters the paper holds at
/// their size (font A: 12 dots a character), so the printer never breaks a word.
struct EscPosLines {
    let profile: PrinterProfile
    private let pages: [(page: CodePage, select: UInt8)]
    /// The bytes written so far.
    var bytes: [UInt8] = []
    /// Which of `pages` the printer has selected (nil: none yet, the printer's default).
    private var selected: Int?

    init(profile: PrinterProfile) {
        self.profile = profile
        pages = profile.pages
    }

    /// How many characters a line holds at `scale` × the normal size.
    func charactersPerLine(scale: Int) -> Int {
        max(1, profile.dotsPerLine / (EscPosTicket.characterDots * max(1, scale)))
    }

    /// Prints `text` centred at `scale` × the normal size (1...8), wrapped to the paper.
    mutating func print(_ text: String, scale: Int, bold: Bool = false) {
        let scale = min(max(scale, 1), 8)
        let size = UInt8((scale - 1) << 4 | (scale - 1))
        bytes += [EscPosTicket.gs, 0x21, size, EscPosTicket.esc, 0x45, bold ? 1 : 0]   // GS ! n, ESC E n
        for line in Self.wrap(Self.normalized(text), width: charactersPerLine(scale: scale)) {
            if let (index, encoded) = encoded(line) {
                // ASCII is the same on every page: only a line beyond it selects one.
                if selected != index, encoded.contains(where: { $0 >= 0x80 }) {
                    bytes += [EscPosTicket.esc, 0x74, pages[index].select]              // ESC t n
                    selected = index
                }
                bytes += encoded + [0x0A]
            } else {
                bytes += picture(of: line, scale: scale, bold: bold)
            }
        }
        bytes += [EscPosTicket.gs, 0x21, 0, EscPosTicket.esc, 0x45, 0]
    }

    /// `line` in the selected page if it holds it, else in the first page that does (the
    /// index is that page's; an ASCII line is in every page and selects none); the
    /// same with plain punctuation; nil if no page holds it.
    private func encoded(_ line: String) -> (Int, [UInt8])? {
        let order = (selected.map { [$0] } ?? []) + pages.indices.filter { $0 != selected }
        for text in [line, Self.plainPunctuation(line)] {
            for index in order {
                if let bytes = pages[index].page.encode(text) { return (index, bytes) }
            }
        }
        return nil
    }

    /// Text as one scalar per letter (é, not e + ◌́), without control characters, and with
    /// any run of spaces (no-break ones too) as one space.
    static func normalized(_ text: String) -> String {
        let composed = text.precomposedStringWithCanonicalMapping
        var out = String.UnicodeScalarView()
        for scalar in composed.unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar.properties.isWhitespace {
                if out.last != " " { out.append(" ") }
            } else if scalar.properties.generalCategory != .format {
                out.append(scalar)
            }
        }
        return String(out).trimmingCharacters(in: .whitespaces)
    }

    /// Typographic punctuation in the plain form every page has.
    static func plainPunctuation(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\u{2010}", "\u{2011}", "\u{2012}", "\u{2013}", "\u{2014}", "\u{2212}": out.append("-")
            case "\u{2018}", "\u{2019}", "\u{201A}", "\u{2032}": out.append("'")
            case "\u{201C}", "\u{201D}", "\u{201E}", "\u{2033}": out.append("\"")
            case "\u{2026}": out.append(contentsOf: "...".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// `text` broken into lines of at most `width` characters, between words; a word longer
    /// than a line is split with a hyphen at the end of each piece.
    static func wrap(_ text: String, width: Int) -> [String] {
        let width = max(2, width)
        var lines: [String] = []
        var current: [Unicode.Scalar] = []
        for word in text.split(separator: " ") {
            var word = Array(word.unicodeScalars)
            if !current.isEmpty, current.count + 1 + word.count <= width {
                current += [" "] + word
                continue
            }
            if !current.isEmpty { lines.append(String(String.UnicodeScalarView(current))) }
            while word.count > width {
                lines.append(String(String.UnicodeScalarView(word.prefix(width - 1) + ["-"])))
                word.removeFirst(width - 1)
            }
            current = word
        }
        if !current.isEmpty || lines.isEmpty { lines.append(String(String.UnicodeScalarView(current))) }
        return lines
    }

    /// `line` drawn centred across the paper as a `GS v 0` bitmap, as tall as a line of
    /// text at `scale`; made smaller if it would not fit the width.
    private func picture(of line: String, scale: Int, bold: Bool) -> [UInt8] {
        let width = profile.dotsPerLine
        let height = EscPosTicket.characterHeight * scale + 4
        guard let canvas = try? Canvas(width: width, height: height) else {
            // cairo could not even make a small image: the line in the first page, so that
            // the ticket still says something where it cannot say everything.
            let fallback = line.unicodeScalars.map { pages.first?.page.byte(for: $0) ?? 0x3F }
            return fallback + [0x0A]
        }
        var size = Double(EscPosTicket.characterHeight * scale) * 0.8
        let measured = canvas.textWidth(line, size: size, bold: bold)
        if measured > Double(width) { size *= Double(width) / measured }
        canvas.text(line, x: Double(width) / 2, y: Double(height) * 0.78, size: size, bold: bold, alignment: .center)
        let bytesPerRow = width / 8
        var bitmap = [UInt8](repeating: 0, count: bytesPerRow * height)
        canvas.withPixels { pixels, stride in
            for y in 0..<height {
                for x in 0..<width {
                    let pixel = pixels[y * stride + x]
                    let light = (pixel >> 16 & 0xFF) + (pixel >> 8 & 0xFF) + (pixel & 0xFF)
                    if light < 3 * 128 { bitmap[y * bytesPerRow + x / 8] |= 0x80 >> UInt8(x % 8) }
                }
            }
        }
        return [EscPosTicket.gs, 0x76, 0x30, 0,
                UInt8(bytesPerRow & 0xFF), UInt8(bytesPerRow >> 8), UInt8(height & 0xFF), UInt8(height >> 8)]
            + bitmap + [0x0A]
    }
}
