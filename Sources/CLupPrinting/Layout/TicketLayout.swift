import CLupDrawing
import CLupQR
import Synchronization

/// Lays a ticket out on a paper roll and writes it as a one-page PDF for the printer.
public struct TicketLayout: Sendable {
    public let paper: PaperWidth

    public init(paper: PaperWidth) {
        self.paper = paper
    }

    var margin: Double { paper == .mm80 ? 14 : 8 }

    /// The QR code takes 60% of the printable width, quiet zone included.
    func qrSide(_ qr: QRCode) -> Double {
        (paper.points - 2 * margin) * 0.6
    }

    /// The ticket's texts broken into lines across the paper (where Unicode lets a line end;
    /// a word too wide is drawn smaller, down to three quarters of its size, then split).
    struct Lines {
        var store: [String]
        var wait: [String]
        var instructions: [[String]]
    }

    /// Texts already broken into lines, by text, size and width. Breaking was most of a
    /// ticket's layout (Pango measuring every candidate line), and the store's name and the
    /// instructions are the same on every ticket, the wait one of a few: each is broken once
    /// (on the first ticket after a start), not on every tap. Emptied when full.
    private static let broken = Mutex<[BrokenText: [String]]>([:])
    private static let brokenLimit = 512

    private struct BrokenText: Hashable {
        let text: String
        let size: Double
        let bold: Bool
        let width: Double
    }

    /// Sizes in points: the store's name, the wait, an instruction; each no smaller than
    /// three quarters of it.
    static let storeSize = 14.0, waitSize = 12.0, instructionSize = 9.0

    func lines(of content: TicketContent, measuring canvas: Canvas) -> Lines {
        let usable = paper.points - 2 * margin
        func lines(_ text: String, _ size: Double, bold: Bool) -> [String] {
            let key = BrokenText(text: text, size: size, bold: bold, width: usable)
            if let known = Self.broken.withLock({ $0[key] }) { return known }
            let lines = canvas.lines(of: text, size: size, bold: bold, width: usable, least: size * 0.75)
            Self.broken.withLock { broken in
                if broken.count >= Self.brokenLimit { broken.removeAll(keepingCapacity: true) }
                broken[key] = lines
            }
            return lines
        }
        return Lines(store: lines(content.storeName, Self.storeSize, bold: true),
                     wait: lines(content.estimatedWait, Self.waitSize, bold: true),
                     instructions: content.instructions.map { lines($0, Self.instructionSize, bold: false) })
    }

    /// The page height in points for a ticket carrying `qr` and `lines`.
    func height(for qr: QRCode, _ lines: Lines) -> Double {
        let extra = 17 * Double(max(0, lines.store.count - 1)) + 14 * Double(max(0, lines.wait.count - 1))
        return margin * 2 + 22 + 70 + 18 + 18 + 18 + 10 + qrSide(qr) + 16 + extra
            + 11 * Double(max(1, lines.instructions.joined().count)) + 3 * Double(max(0, lines.instructions.count - 1))
    }

    /// Writes the ticket to `path` as PDF.
    public func writePDF(_ content: TicketContent, to path: String) throws {
        let qr = try QRCode(encoding: content.code)
        let lines = lines(of: content, measuring: try Canvas(width: 1, height: 1))
        let canvas = try Canvas(pdfPath: path, width: paper.points, height: height(for: qr, lines))
        draw(content, lines, qr: qr, on: canvas)
        try canvas.finish()
    }

    func draw(_ content: TicketContent, _ lines: Lines, qr: QRCode, on canvas: Canvas) {
        let centre = canvas.width / 2
        let usable = canvas.width - 2 * margin
        func line(_ text: String, y: Double, size: Double, bold: Bool = false) {
            canvas.text(text, x: centre, y: y, size: canvas.fittedSize(of: text, size: size, least: size * 0.75, bold: bold, width: usable),
                        bold: bold, alignment: .center)
        }
        var y = margin + 16
        for (index, text) in lines.store.enumerated() {
            if index > 0 { y += 17 }
            line(text, y: y, size: Self.storeSize, bold: true)
        }
        y += 70
        // The number is one word: it is drawn as big as fits.
        canvas.text(content.number, x: centre, y: y, size: fitting(content.number, 56, usable, canvas, bold: true),
                    bold: true, alignment: .center)
        y += 22
        canvas.text(content.laneLabel, x: centre, y: y, size: 11, alignment: .center)
        y += 18
        for (index, text) in lines.wait.enumerated() {
            if index > 0 { y += 14 }
            line(text, y: y, size: Self.waitSize, bold: true)
        }
        y += 18
        canvas.text(content.issuedAt, x: centre, y: y, size: 9, alignment: .center)
        y += 10
        drawQR(qr, on: canvas, top: y)
        y += qrSide(qr) + 16
        for (index, instruction) in lines.instructions.enumerated() {
            if index > 0 { y += 3 }
            for text in instruction {
                line(text, y: y, size: Self.instructionSize)
                y += 11
            }
        }
    }

    /// Dark modules on white, with the four-module quiet zone the QR standard asks for.
    func drawQR(_ qr: QRCode, on canvas: Canvas, top: Double) {
        let side = qrSide(qr)
        let module = side / Double(qr.size + 8)
        let left = (canvas.width - side) / 2 + 4 * module
        let origin = top + 4 * module
        // One rectangle per horizontal run of dark modules: no hairline seams between
        // neighbours when the page is rasterised.
        for row in 0..<qr.size {
            var column = 0
            while column < qr.size {
                guard qr.isDark(row: row, column: column) else { column += 1; continue }
                let start = column
                while column < qr.size && qr.isDark(row: row, column: column) { column += 1 }
                canvas.fillRect(x: left + Double(start) * module, y: origin + Double(row) * module,
                                width: Double(column - start) * module, height: module, color: .black)
            }
        }
    }

    /// The largest size up to `size` at which `text` fits `width`.
    func fitting(_ text: String, _ size: Double, _ width: Double, _ canvas: Canvas, bold: Bool = false) -> Double {
        var fitted = size
        // Widths are not quite proportional to the size (glyph advances are rounded): measure again.
        for _ in 0..<8 {
            let natural = canvas.textWidth(text, size: fitted, bold: bold)
            guard natural > width else { break }
            fitted *= width / natural * 0.995
        }
        return fitted
    }
}
