import CLupDrawing
import Foundation

/// How a framebuffer lays out its pixels: size, bytes per row, and where red, green and
/// blue sit in each pixel (as the kernel's `fb_var_screeninfo` says). Turns a canvas into
/// the bytes of such a framebuffer.
public struct FramebufferFormat: Sendable, Equatable, CustomStringConvertible {
    public struct Channel: Sendable, Equatable {
        public let offset: Int
        public let length: Int

        public init(offset: Int, length: Int) {
            self.offset = offset
            self.length = length
        }
    }

    public let width: Int
    public let height: Int
    public let bitsPerPixel: Int
    public let lineLength: Int
    public let red: Channel
    public let green: Channel
    public let blue: Channel

    public init(width: Int, height: Int, bitsPerPixel: Int, lineLength: Int, red: Channel, green: Channel, blue: Channel) {
        self.width = width
        self.height = height
        self.bitsPerPixel = bitsPerPixel
        self.lineLength = lineLength
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// 32 bits per pixel, `0x00RRGGBB` (most HDMI and DSI panels through fbdev emulation).
    public static func xrgb8888(width: Int, height: Int) -> FramebufferFormat {
        FramebufferFormat(width: width, height: height, bitsPerPixel: 32, lineLength: width * 4,
                          red: Channel(offset: 16, length: 8), green: Channel(offset: 8, length: 8),
                          blue: Channel(offset: 0, length: 8))
    }

    /// 16 bits per pixel, 5-6-5 (small SPI panels, e.g. on a Raspberry Pi).
    public static func rgb565(width: Int, height: Int) -> FramebufferFormat {
        FramebufferFormat(width: width, height: height, bitsPerPixel: 16, lineLength: width * 2,
                          red: Channel(offset: 11, length: 5), green: Channel(offset: 5, length: 6),
                          blue: Channel(offset: 0, length: 5))
    }

    /// Parses `WIDTHxHEIGHT FORMAT`, e.g. `800x480 xrgb8888` or `480x320 rgb565`.
    public init?(parsing text: String) {
        let parts = text.split(separator: " ")
        let size = parts.first?.split(separator: "x") ?? []
        guard parts.count == 2, size.count == 2, let width = Int(size[0]), let height = Int(size[1]),
              (1...8192).contains(width), (1...8192).contains(height) else { return nil }
        switch parts[1] {
        case "xrgb8888": self = .xrgb8888(width: width, height: height)
        case "rgb565": self = .rgb565(width: width, height: height)
        default: return nil
        }
    }

    /// As `parsing` reads it, for the layouts it knows.
    public var configValue: String? {
        if self == .xrgb8888(width: width, height: height) { return "\(width)x\(height) xrgb8888" }
        if self == .rgb565(width: width, height: height) { return "\(width)x\(height) rgb565" }
        return nil
    }

    /// Bytes the framebuffer's visible screen takes.
    public var byteCount: Int { lineLength * height }

    /// Why a framebuffer cannot be drawn on.
    public var unsupportedReason: String? {
        guard [16, 24, 32].contains(bitsPerPixel) else { return "\(bitsPerPixel) bits per pixel is not supported" }
        guard width > 0, height > 0, lineLength >= width * bitsPerPixel / 8 else { return "a row of \(lineLength) bytes is too short" }
        for channel in [red, green, blue] where channel.length < 1 || channel.length > 8 || channel.offset + channel.length > bitsPerPixel {
            return "a colour of \(channel.length) bits at bit \(channel.offset) does not fit a \(bitsPerPixel)-bit pixel"
        }
        return nil
    }

    public var description: String {
        "\(width)x\(height), \(bitsPerPixel) bpp (R \(red.length)@\(red.offset) G \(green.length)@\(green.offset) B \(blue.length)@\(blue.offset))"
    }

    /// Writes `canvas` into `destination` (at least `byteCount` bytes): the part of the
    /// canvas that fits, black where the canvas does not reach. Turned by `rotation`, the
    /// canvas is drawn at the turned size (`rotation.drawnSize`) and turned as it is copied.
    public func draw(_ canvas: Canvas, into destination: UnsafeMutableRawPointer, rotation: DisplayRotation = .none) {
        let bytesPerPixel = bitsPerPixel / 8
        // cairo's pixels are already this framebuffer's (little-endian 0x00RRGGBB): rows are copied.
        let sameLayout = self == .xrgb8888(width: width, height: height).with(lineLength: lineLength)
        canvas.withPixels { pixels, stride in
            let rows = stride == 0 ? 0 : pixels.count / stride
            let columns = min(Int(canvas.width), stride)
            guard let base = pixels.baseAddress, rows > 0 else {
                for y in 0..<height { memset(destination + y * lineLength, 0, width * bytesPerPixel) }
                return
            }
            if rotation != .none {
                for y in 0..<height {
                    let row = destination + y * lineLength
                    for x in 0..<width {
                        let (sx, sy) = rotation.source(x: x, y: y, width: columns, height: rows)
                        let rgb: UInt32 = sx >= 0 && sx < columns && sy >= 0 && sy < rows ? base[sy * stride + sx] : 0
                        store(sameLayout ? rgb : pack(rgb), at: row, x: x, bytesPerPixel: bytesPerPixel)
                    }
                }
                return
            }
            let visible = min(width, columns)
            for y in 0..<height {
                let row = destination + y * lineLength
                guard y < rows else {
                    memset(row, 0, width * bytesPerPixel)
                    continue
                }
                let source = base + y * stride
                if sameLayout {
                    memcpy(row, source, visible * 4)
                } else {
                    for x in 0..<visible { store(pack(source[x]), at: row, x: x, bytesPerPixel: bytesPerPixel) }
                }
                if visible < width { memset(row + visible * bytesPerPixel, 0, (width - visible) * bytesPerPixel) }
            }
        }
    }

    /// Stores one pixel's value at column `x` of `row`.
    @inline(__always)
    private func store(_ value: UInt32, at row: UnsafeMutableRawPointer, x: Int, bytesPerPixel: Int) {
        switch bytesPerPixel {
        case 2: row.storeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian, toByteOffset: x * 2, as: UInt16.self)
        case 4: row.storeBytes(of: value.littleEndian, toByteOffset: x * 4, as: UInt32.self)
        default:
            for byte in 0..<bytesPerPixel {
                row.storeBytes(of: UInt8(truncatingIfNeeded: value >> (8 * byte)), toByteOffset: x * bytesPerPixel + byte, as: UInt8.self)
            }
        }
    }

    /// The same layout with another row length (drivers pad rows).
    func with(lineLength: Int) -> FramebufferFormat {
        FramebufferFormat(width: width, height: height, bitsPerPixel: bitsPerPixel, lineLength: lineLength,
                          red: red, green: green, blue: blue)
    }

    /// A `0x00RRGGBB` colour as this framebuffer's pixel value.
    func pack(_ rgb: UInt32) -> UInt32 {
        func place(_ component: UInt32, _ channel: Channel) -> UInt32 {
            (component >> UInt32(8 - channel.length)) << UInt32(channel.offset)
        }
        return place((rgb >> 16) & 0xFF, red) | place((rgb >> 8) & 0xFF, green) | place(rgb & 0xFF, blue)
    }

    /// The colour of the pixel at (x, y) in framebuffer bytes, as `0x00RRGGBB` (each
    /// component's missing low bits zero): for reading a framebuffer back.
    public func color(atX x: Int, y: Int, in bytes: UnsafeRawBufferPointer) -> UInt32 {
        let bytesPerPixel = bitsPerPixel / 8
        var value: UInt32 = 0
        for byte in 0..<bytesPerPixel {
            value |= UInt32(bytes[y * lineLength + x * bytesPerPixel + byte]) << (8 * byte)
        }
        func take(_ channel: Channel) -> UInt32 {
            ((value >> UInt32(channel.offset)) & ((1 << UInt32(channel.length)) - 1)) << UInt32(8 - channel.length)
        }
        return take(red) << 16 | take(green) << 8 | take(blue)
    }
}
