import CLupCore
import CLupDrawing
import CLupHardware
import Foundation
import XCTest

/// Frames into framebuffer memory, read back pixel by pixel: the layouts real panels use,
/// and the display over a file standing in for /dev/fb0 (there is none on this machine).
final class FramebufferTests: XCTestCase {
    /// A canvas with a few known colours: white background, a red, a green and a blue band.
    func testCard(width: Int, height: Int) throws -> Canvas {
        let canvas = try Canvas(width: width, height: height)
        canvas.fillRect(x: 0, y: 0, width: Double(width) / 4, height: Double(height), color: Color(red: 1, green: 0, blue: 0))
        canvas.fillRect(x: Double(width) / 4, y: 0, width: Double(width) / 4, height: Double(height), color: Color(red: 0, green: 1, blue: 0))
        canvas.fillRect(x: Double(width) / 2, y: 0, width: Double(width) / 4, height: Double(height),
                        color: Color(red: 0.2, green: 0.4, blue: 0.8))
        return canvas
    }

    /// The canvas's pixel at (x, y), keeping the bits a channel of `length` bits holds.
    func expected(_ canvas: Canvas, _ x: Int, _ y: Int, bits: (Int, Int, Int)) -> UInt32 {
        canvas.withPixels { pixels, stride in
            let rgb = pixels[y * stride + x]
            func keep(_ component: UInt32, _ length: Int) -> UInt32 { component & ~((1 << UInt32(8 - length)) - 1) & 0xFF }
            return keep(rgb >> 16 & 0xFF, bits.0) << 16 | keep(rgb >> 8 & 0xFF, bits.1) << 8 | keep(rgb & 0xFF, bits.2)
        }
    }

    func assertRoundTrip(_ format: FramebufferFormat, bits: (Int, Int, Int), file: StaticString = #filePath, line: UInt = #line) throws {
        let canvas = try testCard(width: format.width, height: format.height)
        var memory = [UInt8](repeating: 0xAA, count: format.byteCount)
        memory.withUnsafeMutableBytes { format.draw(canvas, into: $0.baseAddress!) }
        var mismatches = 0
        memory.withUnsafeBytes { bytes in
            for y in stride(from: 0, to: format.height, by: 7) {
                for x in 0..<format.width where format.color(atX: x, y: y, in: bytes) != expected(canvas, x, y, bits: bits) {
                    mismatches += 1
                }
            }
        }
        XCTAssertEqual(mismatches, 0, "\(format)", file: file, line: line)
        memory.withUnsafeBytes { bytes in
            XCTAssertEqual(format.color(atX: 0, y: 0, in: bytes), expected(canvas, 0, 0, bits: bits), file: file, line: line)
            XCTAssertNotEqual(format.color(atX: 0, y: 0, in: bytes), 0, "the red band is not black", file: file, line: line)
            XCTAssertEqual(format.color(atX: format.width - 1, y: format.height - 1, in: bytes), expected(canvas, format.width - 1, format.height - 1, bits: bits),
                           file: file, line: line)
        }
    }

    func test_xrgb8888PixelsAreTheCanvasPixels() throws {
        try assertRoundTrip(.xrgb8888(width: 120, height: 90), bits: (8, 8, 8))
    }

    func test_rgb565KeepsTheHighBitsOfEachColour() throws {
        try assertRoundTrip(.rgb565(width: 120, height: 90), bits: (5, 6, 5))
    }

    func test_paddedRowsAndABGRLayoutsAreWrittenWhereTheDriverSays() throws {
        // A driver that pads rows to 512 bytes and puts blue in the high byte (BGR order).
        let bgr = FramebufferFormat(width: 100, height: 40, bitsPerPixel: 32, lineLength: 512,
                                    red: .init(offset: 0, length: 8), green: .init(offset: 8, length: 8),
                                    blue: .init(offset: 16, length: 8))
        try assertRoundTrip(bgr, bits: (8, 8, 8))
        let packed24 = FramebufferFormat(width: 100, height: 40, bitsPerPixel: 24, lineLength: 300,
                                         red: .init(offset: 16, length: 8), green: .init(offset: 8, length: 8),
                                         blue: .init(offset: 0, length: 8))
        try assertRoundTrip(packed24, bits: (8, 8, 8))
    }

    func test_aFramebufferLargerThanTheFrameIsBlackBeyondIt() throws {
        let format = FramebufferFormat.xrgb8888(width: 60, height: 50)
        let canvas = try Canvas(width: 40, height: 30)   // white
        var memory = [UInt8](repeating: 0xAA, count: format.byteCount)
        memory.withUnsafeMutableBytes { format.draw(canvas, into: $0.baseAddress!) }
        memory.withUnsafeBytes { bytes in
            XCTAssertEqual(format.color(atX: 39, y: 29, in: bytes), 0xFFFFFF)
            XCTAssertEqual(format.color(atX: 40, y: 0, in: bytes), 0)
            XCTAssertEqual(format.color(atX: 0, y: 30, in: bytes), 0)
            XCTAssertEqual(format.color(atX: 59, y: 49, in: bytes), 0)
        }
    }

    /// A landscape panel mounted upright: the screen is drawn 40 wide and 60 high, the panel
    /// is 60 wide and 40 high. Each corner of the picture lands where the turn puts it.
    func test_aPictureTurnedAQuarterLandsOnThePanelTurned() throws {
        let panel = FramebufferFormat.xrgb8888(width: 60, height: 40)
        XCTAssertTrue(DisplayRotation.quarter.drawnSize(width: 60, height: 40) == (40, 60))
        XCTAssertTrue(DisplayRotation.half.drawnSize(width: 60, height: 40) == (60, 40))
        let picture = try Canvas(width: 40, height: 60)
        picture.fill(.black)
        picture.fillRect(x: 0, y: 0, width: 1, height: 1, color: Color(red: 1, green: 0, blue: 0))     // top left: red
        picture.fillRect(x: 39, y: 0, width: 1, height: 1, color: Color(red: 0, green: 1, blue: 0))    // top right: green
        picture.fillRect(x: 0, y: 59, width: 1, height: 1, color: Color(red: 0, green: 0, blue: 1))    // bottom left: blue
        var memory = [UInt8](repeating: 0xAA, count: panel.byteCount)
        // Turned 90° clockwise: the top left goes to the top right, the top right to the
        // bottom right, the bottom left to the top left.
        memory.withUnsafeMutableBytes { panel.draw(picture, into: $0.baseAddress!, rotation: .quarter) }
        memory.withUnsafeBytes { bytes in
            XCTAssertEqual(panel.color(atX: 59, y: 0, in: bytes), 0xFF0000)
            XCTAssertEqual(panel.color(atX: 59, y: 39, in: bytes), 0x00FF00)
            XCTAssertEqual(panel.color(atX: 0, y: 0, in: bytes), 0x0000FF)
            XCTAssertEqual(panel.color(atX: 30, y: 20, in: bytes), 0)
        }
        // Three quarters: the top left goes to the bottom left.
        memory.withUnsafeMutableBytes { panel.draw(picture, into: $0.baseAddress!, rotation: .threeQuarters) }
        memory.withUnsafeBytes { bytes in
            XCTAssertEqual(panel.color(atX: 0, y: 39, in: bytes), 0xFF0000)
            XCTAssertEqual(panel.color(atX: 0, y: 0, in: bytes), 0x00FF00)
            XCTAssertEqual(panel.color(atX: 59, y: 39, in: bytes), 0x0000FF)
        }
        // Half, on a 16-bit panel of the picture's own size: the top left goes to the bottom right.
        let small = FramebufferFormat.rgb565(width: 40, height: 60)
        var small16 = [UInt8](repeating: 0xAA, count: small.byteCount)
        small16.withUnsafeMutableBytes { small.draw(picture, into: $0.baseAddress!, rotation: .half) }
        small16.withUnsafeBytes { bytes in
            XCTAssertEqual(small.color(atX: 39, y: 59, in: bytes), 0xF80000)
            XCTAssertEqual(small.color(atX: 0, y: 59, in: bytes), 0x00FC00)
        }
    }

    func test_aTurnedFramebufferDisplayLaysTheScreensOutUpright() throws {
        let path = "/tmp/clup-fb-turned-\(getpid())"
        defer { unlink(path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        let display = FramebufferDisplay(path: path, fallbackWidth: 1, fallbackHeight: 1,
                                         assumedFormat: .xrgb8888(width: 64, height: 48), rotation: .threeQuarters)
        XCTAssertEqual([display.width, display.height], [48, 64])
        XCTAssertThrowsError(try display.show(try Canvas(width: 64, height: 48)), "a frame of the panel's own size is refused")
        try display.show(try testCard(width: 48, height: 64))
        XCTAssertEqual(display.health.state, .ok, display.health.detail)
    }

    func test_theDisplayWritesFramesIntoAFileStandingInForTheFramebuffer() throws {
        let path = "/tmp/clup-fb-\(getpid())"
        defer { unlink(path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        let format = FramebufferFormat.rgb565(width: 64, height: 48)
        let display = FramebufferDisplay(path: path, fallbackWidth: 720, fallbackHeight: 1280, assumedFormat: format)
        XCTAssertEqual([display.width, display.height], [64, 48], "screens are drawn at the framebuffer's size")
        XCTAssertEqual(display.health.state, .ok, display.health.detail)
        let canvas = try testCard(width: 64, height: 48)
        try display.show(canvas)
        XCTAssertTrue(display.isAwake)
        var written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(written.count, format.byteCount)
        written.withUnsafeBytes { bytes in
            XCTAssertEqual(format.color(atX: 5, y: 5, in: bytes), 0xF80000, "red, as 5 bits")
            XCTAssertEqual(format.color(atX: 20, y: 5, in: bytes), 0x00FC00, "green, as 6 bits")
            XCTAssertEqual(format.color(atX: 60, y: 40, in: bytes), 0xF8FCF8, "white")
        }
        try display.sleep()
        written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertTrue(written.allSatisfy { $0 == 0 }, "asleep is black")
        XCTAssertFalse(display.isAwake)
        XCTAssertTrue(display.health.detail.contains("64x48, 16 bpp"), display.health.detail)
    }

    func test_aMissingFramebufferIsReportedAndFoundWhenItAppears() throws {
        let path = "/tmp/clup-fb-late-\(getpid())"
        defer { unlink(path) }
        let display = FramebufferDisplay(path: path, fallbackWidth: 72, fallbackHeight: 128,
                                         assumedFormat: .xrgb8888(width: 72, height: 128))
        XCTAssertEqual(display.health.state, .missing)
        XCTAssertEqual(display.health.detail, "\(path): No such file or directory")
        XCTAssertEqual([display.width, display.height], [72, 128], "the configured screen size until then")
        XCTAssertThrowsError(try display.show(try Canvas(width: 72, height: 128))) { error in
            XCTAssertEqual("\(error)", "E-HW-030 the display: No such file or directory")
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        try display.show(try Canvas(width: 72, height: 128))
        XCTAssertEqual(display.health.state, .ok, display.health.detail)
    }

    func test_aFileThatIsNotAFramebufferAndUnsupportedLayoutsAreRefused() throws {
        let path = "/tmp/clup-fb-plain-\(getpid())"
        defer { unlink(path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data([1, 2, 3])))
        let plain = FramebufferDisplay(path: path, fallbackWidth: 72, fallbackHeight: 128)
        XCTAssertEqual(plain.health.detail, "\(path): not a framebuffer")
        let palette = FramebufferFormat(width: 72, height: 128, bitsPerPixel: 8, lineLength: 72,
                                        red: .init(offset: 0, length: 8), green: .init(offset: 0, length: 8),
                                        blue: .init(offset: 0, length: 8))
        let eightBit = FramebufferDisplay(path: path, fallbackWidth: 72, fallbackHeight: 128, assumedFormat: palette)
        XCTAssertTrue(eightBit.health.detail.hasSuffix("8 bits per pixel is not supported"), eightBit.health.detail)
        XCTAssertEqual(FramebufferFormat(parsing: "800x480 xrgb8888"), .xrgb8888(width: 800, height: 480))
        XCTAssertEqual(FramebufferFormat(parsing: "480x320 rgb565")?.configValue, "480x320 rgb565")
        for bad in ["800x480", "800x480 rgb888", "0x480 rgb565", "800*480 rgb565"] {
            XCTAssertNil(FramebufferFormat(parsing: bad), bad)
        }
    }
}
