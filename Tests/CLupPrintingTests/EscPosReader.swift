import Foundation
#if canImport(Glibc)
import Glibc
#endif

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
        /// `n` of the `ESC t n` in force when it was printed (0, the printer's default, before any).
        let codePage: Int
    }

    enum ReadError: Error {
        case truncated(at: Int), unknownCommand(at: Int, bytes: [UInt8]), unknownCodePage(Int), undecodable(String)
    }

    private(set) var lines: [Line] = []
    private(set) var rasters: [Raster] = []
    /// Data stored with the printer's own QR command (`GS ( k` function 80).
    private(set) var qrData: [String] = []
    private(set) var qrPrinted = 0
    private(set) var cut = false
    private(set) var initialised = false

    /// Reads `bytes`; `codePages` says which character set each `ESC t n` selects, by its
    /// iconv name ("CP858"): the text is decoded by glibc's tables, not the project's.
    init(_ bytes: [UInt8], codePages: [Int: String] = [0: "CP437"]) throws {
        var i = 0
        var scale = 1, bold = false, text: [UInt8] = [], page = 0
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
                case 0x74: try need(3); page = Int(bytes[i + 2]); i += 3
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
                if !text.isEmpty {
                    guard let name = codePages[page] else { throw ReadError.unknownCodePage(page) }
                    lines.append(Line(text: try Self.decode(text, from: name), scale: scale, bold: bold, codePage: page))
                }
                text = []
                i += 1
            default:
                text.append(byte)
                i += 1
            }
        }
    }

    /// `bytes` in the character set iconv calls `name`.
    static func decode(_ bytes: [UInt8], from name: String) throws -> String {
        guard let converter = Optional(iconv_open("UTF-8", name)), converter != iconv_t(bitPattern: -1) else {
            throw ReadError.undecodable("iconv has no \(name)")
        }
        defer { iconv_close(converter) }
        var input = bytes.map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: bytes.count * 4 + 4)
        let written = input.withUnsafeMutableBufferPointer { input -> Int? in
            output.withUnsafeMutableBufferPointer { output -> Int? in
                var inPointer: UnsafeMutablePointer<CChar>? = input.baseAddress
                var outPointer: UnsafeMutablePointer<CChar>? = output.baseAddress
                var inLeft = input.count, outLeft = output.count
                guard iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft) != -1 else { return nil }
                return output.count - outLeft
            }
        }
        guard let written else { throw ReadError.undecodable("\(bytes) is not \(name)") }
        return String(decoding: output.prefix(written).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
