import CLupCore
import CQRencode

/// A QR symbol as a square of dark and light modules, encoded by libqrencode.
public struct QRCode: Sendable, Equatable {
    /// The QR version (1...40); the symbol is `17 + 4 × version` modules wide.
    public let version: Int
    /// Modules per side, without the quiet zone.
    public let size: Int
    /// Row-major; true is a dark module.
    public let modules: [Bool]

    /// Why a text could not be encoded.
    public enum EncodingError: Error, CodedErrorConvertible, Equatable {
        case tooLong(count: Int)

        public var coded: CodedError {
            switch self {
            case let .tooLong(count): CodedError(.codeTooLongForQR, "\(count) characters do not fit a QR code")
            }
        }
    }

    /// Encodes `text` at error-correction level M in the smallest version it fits.
    /// `QRcode_encodeString` splits the text into segments and picks each one's mode (the
    /// `QR_MODE_8` hint only says how to treat Kanji), so Base45 text is encoded in
    /// alphanumeric mode.
    public init(encoding text: String) throws(EncodingError) {
        guard let symbol = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else {
            throw .tooLong(count: text.utf8.count)
        }
        defer { QRcode_free(symbol) }
        let width = Int(symbol.pointee.width)
        version = Int(symbol.pointee.version)
        size = width
        // Bit 0 of each byte is the module's colour; the other bits are libqrencode's own.
        modules = (0..<(width * width)).map { symbol.pointee.data[$0] & 1 == 1 }
    }

    public func isDark(row: Int, column: Int) -> Bool {
        modules[row * size + column]
    }
}
