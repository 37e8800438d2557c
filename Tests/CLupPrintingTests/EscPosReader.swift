import Foundation

/// A test-side reader of the ESC/POS bytes the project sends to thermal printers: it walks
/// the command stream as a printer would and keeps what would appear on paper.
struct EscPosReader {
    /// A `GS v 0` bitmap: 1 bits are black dots, rows of `bytesPerRow` bytes.
    struct Raster {
        let bytesPerRow: Int
        let height: Int
        let bits: [UInt8]

        /// The bitmap as a binary PBM image (the same bit layout), with a white border.
        func pbm(border: Int = 16) -> Data {
            let width = bytesPerRow * 8 + 2 * border
            let rowBytes = (width + 7) / 8
            var image = [UInt8](repeating: 0, count: rowBytes * (height + 2 * border))
            for y in 0..<height {
                for x in 0..<(bytesPerRow * 8) where bits[y * bytesPerRow + x / 8] & (0x80 >> UInt8(x % 8)) != 0 {
                    let px = x + border, py = y + border
                    image[py * rowBytes + px / 8] |= 0x80 >> UInt8(px % 8)
                }
            }
            return Data("P4\n\(width) \(height + 2 * border)\n".utf8) + Data(image)
        }
    }

    struct Line {
        let text: String
        let scale: Int
        let bold: Bool
    }

    enum ReadError: Error { case truncated(at: Int), unknownCommand(at: Int, bytes: [UInt8]) }

    private(set) var lines: [Line] = []
    private(set) var rasters: [Raster] = []
    /// Data stored with the printer's own QR command (`GS ( k` function 80).
    private(set) var qrData: [String] = []
    private(set) var qrPrinted = 0
    private(set) var cut = false
    private(set) var initialised = false

    init(_ bytes: [UInt8]) throws {
        var i = 0
        var scale = 1, bold = false, text: [UInt8] = []
        func need(_ count: Int) throws { if i + count > bytes.count { throw ReadError.truncated(at: i) } }
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case 0x1B:
                try need(2)
                switch bytes[i + 1] {
                case 0x40: initialised = true; i += 2
                case 0x61, 0x64: try need(3); i += 3
                case 0x45: try need(3); bold = bytes[i + 2] != 0; i += 3
                default: throw ReadError.unknownCommand(at: i, bytes: Array(bytes[i..<min(bytes.count, i + 4)]))
                }
            case 0x1D:
                try need(2)
                switch bytes[i + 1] {
                case 0x21: try need(3); scale = Int(bytes[i + 2] & 0x0F) + 1; i += 3
                case 0x56: try need(4); cut = true; i += 4
                case 0x76:
                    try need(8)
                    let xBytes = Int(bytes[i + 4]) | Int(bytes[i + 5]) << 8
                    let height = Int(bytes[i + 6]) | Int(bytes[i + 7]) << 8
                    try need(8 + xBytes * height)
                    rasters.append(Raster(bytesPerRow: xBytes, height: height, bits: Array(bytes[(i + 8)..<(i + 8 + xBytes * height)])))
                    i += 8 + xBytes * height
                case 0x28:
                    try need(5)
                    let length = Int(bytes[i + 3]) | Int(bytes[i + 4]) << 8
                    try need(5 + length)
                    let body = Array(bytes[(i + 5)..<(i + 5 + length)])
                    if body.count >= 3, body[0] == 0x31, body[1] == 0x50 { qrData.append(String(decoding: body[3...], as: UTF8.self)) }
                    if body.count >= 2, body[0] == 0x31, body[1] == 0x51 { qrPrinted += 1 }
                    i += 5 + length
                default: throw ReadError.unknownCommand(at: i, bytes: Array(bytes[i..<min(bytes.count, i + 4)]))
                }
            case 0x0A:
                if !text.isEmpty { lines.append(Line(text: String(decoding: text, as: UTF8.self), scale: scale, bold: bold)) }
                text = []
                i += 1
            default:
                text.append(byte)
                i += 1
            }
        }
    }
}
