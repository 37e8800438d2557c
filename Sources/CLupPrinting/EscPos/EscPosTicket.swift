import Foundation
import CLupQR

/// A ticket as ESC/POS bytes for a thermal printer: initialise, centred text in a few
/// sizes (in the printer's code pages, wrapped by us: `EscPosLines`), the QR code (as a
/// bitmap or with the printer's own command), feed and cut.
public struct EscPosTicket: Sendable {
    public let profile: PrinterProfile

    public init(profile: PrinterProfile) {
        self.profile = profile
    }

    static let esc: UInt8 = 0x1B
    static let gs: UInt8 = 0x1D
    /// Font A is 12 dots wide and 24 high.
    static let characterDots = 12
    static let characterHeight = 24

    /// The bytes to send to the printer.
    public func encode(_ content: TicketContent) throws(QRCode.EncodingError) -> [UInt8] {
        let qr = try QRCode(encoding: content.code)
        var paper = EscPosLines(profile: profile)
        paper.bytes = [Self.esc, 0x40]                          // ESC @: initialise
        paper.bytes += [Self.esc, 0x61, 1]                      // ESC a 1: centre
        paper.print(content.storeName, scale: 2, bold: true)
        paper.print(content.number, scale: scale(for: content.number, maximum: 6), bold: true)
        paper.print(content.laneLabel, scale: 1)
        paper.print(content.estimatedWait, scale: 1, bold: true)
        paper.print(content.issuedAt, scale: 1)
        switch profile.qr {
        case .raster: paper.bytes += raster(qr)
        case .native: paper.bytes += nativeQR(content.code, moduleDots: moduleDots(qr))
        }
        for instruction in content.instructions { paper.print(instruction, scale: 1) }
        paper.bytes += [Self.esc, 0x64, 4]                      // ESC d 4: feed 4 lines
        if profile.cutter { paper.bytes += [Self.gs, 0x56, 66, 0] } // GS V 66 0: feed to the cutter, cut
        return paper.bytes
    }

    /// The largest character scale (1...maximum) at which `text` fits one line.
    func scale(for text: String, maximum: Int) -> Int {
        let width = max(1, text.count) * Self.characterDots
        return max(1, min(maximum, profile.dotsPerLine / width))
    }

    /// Dots per QR module: about 60% of the line for the symbol and its quiet zone.
    func moduleDots(_ qr: QRCode) -> Int {
        max(2, min(8, profile.dotsPerLine * 6 / 10 / (qr.size + 8)))
    }

    /// The QR symbol with its four-module quiet zone as a `GS v 0` bitmap.
    func raster(_ qr: QRCode) -> [UInt8] {
        let dots = moduleDots(qr)
        let side = (qr.size + 8) * dots
        let bytesPerRow = (side + 7) / 8
        var bitmap = [UInt8](repeating: 0, count: bytesPerRow * side)
        for y in 0..<side {
            let row = y / dots - 4
            for x in 0..<side {
                let column = x / dots - 4
                guard (0..<qr.size).contains(row), (0..<qr.size).contains(column),
                      qr.isDark(row: row, column: column) else { continue }
                bitmap[y * bytesPerRow + x / 8] |= 0x80 >> UInt8(x % 8)
            }
        }
        return [Self.gs, 0x76, 0x30, 0,
                UInt8(bytesPerRow & 0xFF), UInt8(bytesPerRow >> 8), UInt8(side & 0xFF), UInt8(side >> 8)]
            + bitmap + [0x0A]
    }

    /// The printer's own QR command (`GS ( k`, model 2, level M): store the data, print it.
    func nativeQR(_ text: String, moduleDots: Int) -> [UInt8] {
        let data = Array(text.utf8)
        let stored = data.count + 3
        return [Self.gs, 0x28, 0x6B, 4, 0, 0x31, 0x41, 0x32, 0]                        // model 2
            + [Self.gs, 0x28, 0x6B, 3, 0, 0x31, 0x43, UInt8(min(16, moduleDots))]       // module size
            + [Self.gs, 0x28, 0x6B, 3, 0, 0x31, 0x45, 0x31]                             // level M
            + [Self.gs, 0x28, 0x6B, UInt8(stored & 0xFF), UInt8(stored >> 8), 0x31, 0x50, 0x30] + data
            + [Self.gs, 0x28, 0x6B, 3, 0, 0x31, 0x51, 0x30]                             // print
            + [0x0A]
    }
}
