import CLupDrawing

/// Lays a ticket out on a paper roll and writes it as a one-page PDF for the printer.
public struct TicketLayout: Sendable {
    public let paper: PaperWidth

    public init(paper: PaperWidth) {
        self.paper = paper
    }

    /// The page height in points for a ticket carrying `qr`.
    func height(for qr: QRCode, instructions: Int) -> Double {
        margin * 2 + 22 + 70 + 18 + 18 + 18 + 10 + qrSide(qr) + 16 + 12 * Double(max(1, instructions))
    }

    var margin: Double { paper == .mm80 ? 14 : 8 }

    /// The QR code takes 60% of the printable width, quiet zone included.
    func qrSide(_ qr: QRCode) -> Double {
        (paper.points - 2 * margin) * 0.6
    }

    /// Writes the ticket to `path` as PDF.
    public func writePDF(_ content: TicketContent, to path: String) throws {
        let qr = try QRCode(encoding: content.code)
        let canvas = try Canvas(pdfPath: path, width: paper.points, height: height(for: qr, instructions: content.instructions.count))
        draw(content, qr: qr, on: canvas)
        try canvas.finish()
    }

    func draw(_ content: TicketContent, qr: QRCode, on canvas: Canvas) {
        let centre = canvas.width / 2
        let usable = canvas.width - 2 * margin
        var y = margin + 16
        canvas.text(content.storeName, x: centre, y: y, size: fitting(content.storeName, 14, usable, canvas, bold: true),
                    bold: true, alignment: .center)
        y += 70
        canvas.text(content.number, x: centre, y: y, size: fitting(content.number, 56, usable, canvas, bold: true),
                    bold: true, alignment: .center)
        y += 22
        canvas.text(content.laneLabel, x: centre, y: y, size: 11, alignment: .center)
        y += 18
        canvas.text(content.estimatedWait, x: centre, y: y,
                    size: fitting(content.estimatedWait, 12, usable, canvas, bold: true), bold: true, alignment: .center)
        y += 18
        canvas.text(content.issuedAt, x: centre, y: y, size: 9, alignment: .center)
        y += 10
        drawQR(qr, on: canvas, top: y)
        y += qrSide(qr) + 16
        for instruction in content.instructions {
            canvas.text(instruction, x: centre, y: y, size: fitting(instruction, 9, usable, canvas), alignment: .center)
            y += 12
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
        let natural = canvas.textWidth(text, size: size, bold: bold)
        return natural <= width ? size : size * width / natural
    }
}
