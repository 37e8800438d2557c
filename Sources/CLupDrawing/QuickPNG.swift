import CCairo
import CZlib
#if canImport(Glibc)
import Glibc
#endif

extension Canvas {
    /// Writes the image as a PNG file made for speed rather than size, as the simulated
    /// display writes every frame it shows: each row filtered "Sub" (a flat run becomes
    /// zeros) and deflated with zlib's run-length strategy at its fastest level. Cairo's
    /// own writer (`pngData`) tries every filter on every row and deflates at zlib's default
    /// level: on a 720×1280 screen that took most of the simulated totem's CPU.
    public func writePNG(to path: String) throws {
        let png = try withPixels { pixels, stride in
            guard cairo_image_surface_get_format(surface) == CAIRO_FORMAT_RGB24 else {
                throw DrawingError.png(path: path, reason: "only an opaque image canvas is written as PNG")
            }
            return try QuickPNG.encode(pixels, stride: stride, width: Int(cairo_image_surface_get_width(surface)),
                                       height: Int(cairo_image_surface_get_height(surface)), path: path)
        }
        guard let file = fopen(path, "wbe") else {
            throw DrawingError.png(path: path, reason: String(cString: strerror(errno)))
        }
        let written = png.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let failure = written == png.count ? nil : errno
        guard fclose(file) == 0, failure == nil else {
            throw DrawingError.png(path: path, reason: String(cString: strerror(failure ?? errno)))
        }
    }
}

/// The PNG encoder behind `Canvas.writePNG`: 8-bit RGB, no interlace, one IDAT chunk.
enum QuickPNG {
    static func encode(_ pixels: UnsafeBufferPointer<UInt32>, stride: Int, width: Int, height: Int,
                       path: String) throws -> [UInt8] {
        guard width > 0, height > 0, stride >= width, pixels.count >= stride * height,
              let width32 = UInt32(exactly: width), let height32 = UInt32(exactly: height) else {
            throw DrawingError.png(path: path, reason: "no image of \(width)x\(height) pixels to write")
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        // Width, height, 8 bits per sample, colour type 2 (RGB), deflate, adaptive filters, no interlace.
        appendChunk("IHDR", bigEndian(width32) + bigEndian(height32) + [8, 2, 0, 0, 0], to: &png)
        let rows = try deflateRows(pixels, stride: stride, width: width, height: height, path: path)
        guard rows.count <= Int32.max else {
            throw DrawingError.png(path: path, reason: "\(width)x\(height) pixels do not fit one PNG chunk")
        }
        appendChunk("IDAT", rows, to: &png)
        appendChunk("IEND", [], to: &png)
        return png
    }

    /// The rows, each a filter byte (1, "Sub") and each byte less the same byte of the pixel
    /// to its left, as one zlib stream.
    private static func deflateRows(_ pixels: UnsafeBufferPointer<UInt32>, stride: Int, width: Int, height: Int,
                                    path: String) throws -> [UInt8] {
        // zlib keeps the stream's address (it checks it at each call): one place, not a Swift variable.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard clup_deflate_init(stream, Z_BEST_SPEED, Z_RLE) == Z_OK else {
            throw DrawingError.png(path: path, reason: "zlib could not start")
        }
        defer { deflateEnd(stream) }
        var row = [UInt8](repeating: 1, count: 1 + 3 * width)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var compressed: [UInt8] = []
        for y in 0..<height {
            row.withUnsafeMutableBufferPointer { row in
                var (red, green, blue): (UInt8, UInt8, UInt8) = (0, 0, 0)
                for x in 0..<width {
                    let pixel = pixels[y * stride + x]
                    let (r, g, b) = (UInt8(truncatingIfNeeded: pixel >> 16), UInt8(truncatingIfNeeded: pixel >> 8),
                                     UInt8(truncatingIfNeeded: pixel))
                    row[1 + 3 * x] = r &- red
                    row[2 + 3 * x] = g &- green
                    row[3 + 3 * x] = b &- blue
                    (red, green, blue) = (r, g, b)
                }
            }
            let last = y == height - 1
            try row.withUnsafeMutableBufferPointer { row in
                stream.pointee.next_in = row.baseAddress
                stream.pointee.avail_in = UInt32(row.count)
                var status = Z_OK
                repeat {
                    let produced = chunk.withUnsafeMutableBufferPointer { chunk in
                        stream.pointee.next_out = chunk.baseAddress
                        stream.pointee.avail_out = UInt32(chunk.count)
                        status = deflate(stream, last ? Z_FINISH : Z_NO_FLUSH)
                        return chunk.count - Int(stream.pointee.avail_out)
                    }
                    guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                        throw DrawingError.png(path: path, reason: "zlib failed (\(status))")
                    }
                    compressed.append(contentsOf: chunk.prefix(produced))
                } while stream.pointee.avail_out == 0 || (last && status != Z_STREAM_END)
            }
        }
        return compressed
    }

    private static func appendChunk(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        var crc = typeBytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, 4) }
        // zlib's crc32 of no bytes at a null pointer is 0, not the running value: IEND has none.
        if !data.isEmpty { crc = data.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, UInt32($0.count)) } }
        png += bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(UInt32(truncatingIfNeeded: crc))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
         UInt8(truncatingIfNeeded: value)]
    }
}
