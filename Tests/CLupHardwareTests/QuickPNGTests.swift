import CCairo
import CLupDrawing
import Foundation
import XCTest

/// The simulated display's PNG files, read back through libpng (cairo's reader): the same
/// pixels, whatever the rows hold.
final class QuickPNGTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try temporaryFolder("clup-png")
    }

    func test_aScreenReadsBackPixelForPixel() throws {
        // An odd width (rows not a multiple of anything), flat areas, rounded corners
        // (antialiased edges), text, and colours whose bytes wrap round in the "Sub" filter.
        let canvas = try Canvas(width: 333, height: 201)
        canvas.fill(Color(red: 0.07, green: 0.2, blue: 0.33))
        canvas.fillRect(x: 10, y: 10, width: 150, height: 90, color: .white, radius: 18)
        canvas.fillRect(x: 170, y: 5, width: 1, height: 190, color: Color(red: 1, green: 0, blue: 0.5))
        canvas.fillRect(x: 171, y: 5, width: 1, height: 190, color: Color(red: 0, green: 1, blue: 0.01))
        canvas.text("Prenda el número 42 — ¡gracias!", x: 20, y: 150, size: 22, bold: true, color: .white)
        let path = folder.appendingPathComponent("screen.png").path
        try canvas.writePNG(to: path)
        XCTAssertEqual(try decodedPixels(path), pixels(of: canvas))
    }

    func test_everyByteValueOnARowReadsBack() throws {
        // Each pixel a different colour, so the filter sees every difference, 0 to 255.
        let canvas = try Canvas(width: 256, height: 3)
        for x in 0..<256 {
            let value = Double(x) / 255
            canvas.fillRect(x: Double(x), y: 0, width: 1, height: 3,
                            color: Color(red: value, green: 1 - value, blue: Double((x * 7) % 256) / 255))
        }
        let path = folder.appendingPathComponent("ramp.png").path
        try canvas.writePNG(to: path)
        XCTAssertEqual(try decodedPixels(path), pixels(of: canvas))
    }

    func test_aDocumentOrAFolderThatIsNotThereIsAClearError() throws {
        let document = try Canvas(pdfPath: folder.appendingPathComponent("page.pdf").path, width: 100, height: 100)
        XCTAssertThrowsError(try document.writePNG(to: folder.appendingPathComponent("page.png").path)) { error in
            XCTAssertTrue("\(error)".contains("only an opaque image canvas"), "\(error)")
        }
        let missing = folder.appendingPathComponent("gone/screen.png").path
        XCTAssertThrowsError(try Canvas(width: 4, height: 4).writePNG(to: missing)) { error in
            XCTAssertTrue("\(error)".contains("No such file or directory"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
    }

    /// The canvas's pixels as 0xRRGGBB, row by row.
    private func pixels(of canvas: Canvas) -> [UInt32] {
        canvas.withPixels { pixels, stride in
            let width = Int(canvas.width), height = Int(canvas.height)
            return (0..<height).flatMap { y in (0..<width).map { x in pixels[y * stride + x] & 0xFF_FFFF } }
        }
    }

    /// The PNG file's pixels as 0xRRGGBB, decoded by libpng through cairo.
    private func decodedPixels(_ path: String) throws -> [UInt32] {
        let surface = try XCTUnwrap(cairo_image_surface_create_from_png(path))
        defer { cairo_surface_destroy(surface) }
        XCTAssertEqual(cairo_surface_status(surface), CAIRO_STATUS_SUCCESS, "libpng could not read \(path)")
        cairo_surface_flush(surface)
        let width = Int(cairo_image_surface_get_width(surface)), height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface)) / 4
        let data = try XCTUnwrap(cairo_image_surface_get_data(surface))
        let words = UnsafeRawPointer(data).assumingMemoryBound(to: UInt32.self)
        return (0..<height).flatMap { y in (0..<width).map { x in words[y * stride + x] & 0xFF_FFFF } }
    }
}
