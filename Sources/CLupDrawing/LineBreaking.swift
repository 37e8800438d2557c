/// Text broken into lines for a width, as the screens and the tickets break it: at the places
/// Unicode lets a line end (UAX #14, `Canvas.breakablePieces(of:)`), a word too wide for a
/// line by itself drawn smaller down to a floor, and split with a hyphen only below it.
public enum LineBreaking {
    /// Text broken into lines no wider than `limit` as `width` measures them, at the places
    /// a line may end (`pieces`, each with its trailing spaces, which a line's end drops). A
    /// piece wider than a line by itself stays whole if `narrowest` (its width at the smallest
    /// size it may take) fits; else it is split, a hyphen ending each part but the last, each
    /// part fitting at that size.
    public static func lines(of pieces: [String], limit: Double, width: (String) -> Double,
                             narrowest: (String) -> Double) -> [String] {
        func trimmed(_ text: String) -> String {
            guard let last = text.lastIndex(where: { $0 != " " }) else { return "" }
            return String(text[...last])
        }
        var lines: [String] = []
        var current = ""
        for piece in pieces {
            if !current.isEmpty, width(trimmed(current + piece)) <= limit {
                current += piece
                continue
            }
            if !current.isEmpty { lines.append(trimmed(current)) }
            var rest = piece
            while narrowest(trimmed(rest)) > limit, trimmed(rest).count > 1 {
                // The longest head that fits with its hyphen (at least one letter).
                var cut = trimmed(rest).count - 1
                while cut > 1, narrowest(String(rest.prefix(cut)) + "-") > limit { cut -= 1 }
                lines.append(String(rest.prefix(cut)) + "-")
                rest = String(rest.dropFirst(cut))
            }
            current = rest
        }
        if !current.isEmpty || lines.isEmpty { lines.append(trimmed(current)) }
        return lines
    }

    /// `text` in pieces that end after each space, where no canvas is at hand to find
    /// Unicode's break places.
    public static func pieces(splittingAtSpaces text: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        for character in text {
            if character != " ", current.last == " " {
                pieces.append(current)
                current = ""
            }
            current.append(character)
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }
}

extension Canvas {
    /// `text` in lines no wider than `width` at `size` (`LineBreaking`): a word too wide for
    /// a line by itself stays whole if it fits at `least`, else it is split with hyphens.
    public func lines(of text: String, size: Double, bold: Bool = false, width: Double, least: Double) -> [String] {
        LineBreaking.lines(of: breakablePieces(of: text), limit: width,
                           width: { textWidth($0, size: size, bold: bold) }, narrowest: { textWidth($0, size: least, bold: bold) })
    }

    /// A line of `lines` drawn at `size`, or smaller (down to `least`) if it is wider than
    /// `width`: the size it is drawn at.
    public func fittedSize(of line: String, size: Double, least: Double, bold: Bool = false, width: Double) -> Double {
        var fitted = size
        // Widths are not quite proportional to the size (glyph advances are rounded): measure again.
        for _ in 0..<8 {
            let natural = textWidth(line, size: fitted, bold: bold)
            guard natural > width, fitted > least else { break }
            fitted = max(least, fitted * width / natural * 0.995)
        }
        return fitted
    }
}
