import CLupCore
import Foundation
import CCairo

/// An RGB colour with components in 0...1.
public struct Color: Hashable, Sendable {
    public let red, green, blue: Double

    public init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public static let black = Color(red: 0, green: 0, blue: 0)
    public static let white = Color(red: 1, green: 1, blue: 1)
}

/// How a line of text sits on its anchor point.
public enum TextAlignment: Sendable {
    case left, center
}

/// Why drawing failed.
public enum DrawingError: Error, CodedErrorConvertible, Equatable {
    case cairo(operation: String, status: String)
    case png(path: String, reason: String)

    public var coded: CodedError {
        switch self {
        case let .cairo(operation, status): CodedError(.drawingFailed, "\(operation) failed: \(status)")
        case let .png(path, reason): CodedError(.drawingFailed, "writing \(path) failed: \(reason)")
        }
    }
}

/// A drawing surface (an in-memory image or a PDF page) with the few operations screens
/// and tickets need. Units are pixels for images and points (1/72 in) for PDF.
public final class Canvas {
    public let width: Double
    public let height: Double
    let surface: OpaquePointer
    let cairo: OpaquePointer
    /// Every line of text drawn, where and how big, so that a test can check that nothing
    /// runs off its box.
    public private(set) var drawnTexts: [DrawnText] = []

    /// A line of text as drawn: its box (x, width; baseline y) and font size, in pixels.
    public struct DrawnText: Sendable, Equatable {
        public let text: String
        public let x: Double
        public let y: Double
        public let width: Double
        public let size: Double
        /// The height of a capital H at this size, in pixels.
        public let capHeight: Double
    }

    /// An opaque image of `width` × `height` pixels, filled white.
    public convenience init(width: Int, height: Int) throws {
        let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height))!
        try self.init(surface: surface, width: Double(width), height: Double(height), what: "image surface")
        fill(.white)
    }

    /// A one-page PDF at `path`, `width` × `height` points; call `finish()` to write it.
    public convenience init(pdfPath path: String, width: Double, height: Double) throws {
        let surface = cairo_pdf_surface_create(path, width, height)!
        try self.init(surface: surface, width: width, height: height, what: "PDF surface \(path)")
    }

    private init(surface: OpaquePointer, width: Double, height: Double, what: String) throws {
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw DrawingError.cairo(operation: "creating \(what)", status: Self.describe(status))
        }
        self.surface = surface
        self.cairo = cairo_create(surface)
        self.width = width
        self.height = height
    }

    deinit {
        cairo_destroy(cairo)
        cairo_surface_destroy(surface)
    }

    /// Reads an image canvas's pixels: rows of `stride` 32-bit words, each `0x00RRGGBB`.
    public func withPixels<R>(_ body: (_ pixels: UnsafeBufferPointer<UInt32>, _ stride: Int) throws -> R) rethrows -> R {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface)) / 4
        let rows = Int(cairo_image_surface_get_height(surface))
        let data = cairo_image_surface_get_data(surface).map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt32.self) }
        return try body(UnsafeBufferPointer(start: data, count: data == nil ? 0 : stride * rows), stride)
    }

    /// Paints the whole canvas.
    public func fill(_ color: Color) {
        setColor(color)
        cairo_paint(cairo)
    }

    /// Fills a rectangle, with rounded corners when `radius` > 0.
    public func fillRect(x: Double, y: Double, width: Double, height: Double, color: Color,
                         radius: Double = 0) {
        setColor(color)
        if radius > 0 {
            let r = min(radius, width / 2, height / 2)
            cairo_new_sub_path(cairo)
            cairo_arc(cairo, x + width - r, y + r, r, -.pi / 2, 0)
            cairo_arc(cairo, x + width - r, y + height - r, r, 0, .pi / 2)
            cairo_arc(cairo, x + r, y + height - r, r, .pi / 2, .pi)
            cairo_arc(cairo, x + r, y + r, r, .pi, 3 * .pi / 2)
            cairo_close_path(cairo)
        } else {
            cairo_rectangle(cairo, x, y, width, height)
        }
        cairo_fill(cairo)
    }

    /// Draws one line of text with its baseline at `y`; returns its width. Laid out by Pango:
    /// shaped, in DejaVu Sans or, for a character it lacks, the font fontconfig finds for it.
    @discardableResult
    public func text(_ string: String, x: Double, y: Double, size: Double, bold: Bool = false,
                     color: Color = .black, alignment: TextAlignment = .left) -> Double {
        let capHeight = capHeight(size: size, bold: bold)
        return Fonts.shared.with { fonts in
            let line = TextLine(string, size: size, bold: bold, on: cairo, fonts: fonts)
            let left = alignment == .center ? x - line.width / 2 : x
            drawnTexts.append(DrawnText(text: string, x: left, y: y, width: line.width, size: size, capHeight: capHeight))
            unknownGlyphs += line.unknownGlyphs
            setColor(color)
            cairo_move_to(cairo, left, y - line.baseline)
            pango_cairo_show_layout(cairo, line.layout)
            return line.width
        }
    }

    /// Characters drawn so far that no installed font has (drawn as boxes): 0 on a canvas
    /// whose every text could be drawn.
    public private(set) var unknownGlyphs = 0

    /// The height of a capital H at `size`, in pixels (about 0.73 of the size in DejaVu Sans).
    public func capHeight(size: Double, bold: Bool = false) -> Double {
        if let known = capHeights[CapHeightKey(size: size, bold: bold)] { return known }
        let height = Fonts.shared.with { TextLine("H", size: size, bold: bold, on: cairo, fonts: $0).inkHeight }
        capHeights[CapHeightKey(size: size, bold: bold)] = height
        return height
    }

    /// Cap heights measured on this canvas: a screen draws many texts at a few sizes.
    private var capHeights: [CapHeightKey: Double] = [:]
    private struct CapHeightKey: Hashable {
        let size: Double
        let bold: Bool
    }

    /// The width `string` would take at `size`.
    public func textWidth(_ string: String, size: Double, bold: Bool = false) -> Double {
        Fonts.shared.with { TextLine(string, size: size, bold: bold, on: cairo, fonts: $0).width }
    }

    /// `string` in the pieces a line may end after (Unicode's line breaking rules, UAX #14, as
    /// Pango applies them: after a space, after a dash, between ideographs), each piece with
    /// the spaces that follow it. Joined, the pieces are `string`.
    public func breakablePieces(of string: String) -> [String] {
        guard string.unicodeScalars.count > 1 else { return string.isEmpty ? [] : [string] }
        return Fonts.shared.with { fonts in
            let line = TextLine(string, size: 20, bold: false, on: cairo, fonts: fonts)
            // The attributes are the layout's: it lives until they are read.
            return withExtendedLifetime(line) {
                var count: Int32 = 0
                guard let attributes = pango_layout_get_log_attrs_readonly(line.layout, &count) else { return [string] }
                let scalars = Array(string.unicodeScalars)
                var pieces: [String] = []
                var start = 0
                // One attribute per character and one after the last; a break "before" character i.
                for index in 1..<min(scalars.count, Int(count)) where attributes[index].is_line_break != 0 {
                    pieces.append(String(String.UnicodeScalarView(scalars[start..<index])))
                    start = index
                }
                if start < scalars.count { pieces.append(String(String.UnicodeScalarView(scalars[start...]))) }
                return pieces
            }
        }
    }

    /// How many characters of `string` no installed font has.
    public func unknownGlyphs(in string: String, bold: Bool = false) -> Int {
        Fonts.shared.with { TextLine(string, size: 20, bold: bold, on: cairo, fonts: $0).unknownGlyphs }
    }

    /// The image as PNG bytes, as small as cairo makes them (what is sent to the hub; the
    /// simulated display writes its files with `writePNG`, made for speed).
    public func pngData() throws -> [UInt8] {
        cairo_surface_flush(surface)
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        let status = cairo_surface_write_to_png_stream(surface, { closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
            let sink = Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue()
            sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
            return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(sink).toOpaque())
        guard status == CAIRO_STATUS_SUCCESS else {
            throw DrawingError.cairo(operation: "encoding PNG", status: Self.describe(status))
        }
        return sink.bytes
    }

    /// Completes the document (PDF) so the file is whole on disk.
    public func finish() throws {
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw DrawingError.cairo(operation: "finishing document", status: Self.describe(status))
        }
    }

    private func setColor(_ color: Color) {
        cairo_set_source_rgb(cairo, color.red, color.green, color.blue)
    }

    private static func describe(_ status: cairo_status_t) -> String {
        String(cString: cairo_status_to_string(status))
    }
}

/// Pango's font map, one for the process, and the lock every use of it holds (making a
/// layout, measuring and drawing it, letting it go). Pango's default is a font map per
/// thread: each thread that drew text (the drawing worker, each worker that laid out a
/// ticket, the loop at start) kept faces of the same fonts, each file mapped again, and caches
/// of its own (issue 45). A font map is not safe to share unlocked. Not reentrant: a body
/// measures or draws through `TextLine`, never through another `with`.
final class Fonts: @unchecked Sendable {
    /// The font map, for whoever holds the lock.
    struct Map { let map: UnsafeMutablePointer<PangoFontMap> }

    static let shared = Fonts()
    private let lock = NSLock()
    private let map = Map(map: pango_cairo_font_map_new())

    func with<R>(_ body: (Map) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(map)
    }
}

/// One line of text laid out by Pango for a cairo context: its logical width, where its
/// baseline sits under its top, the height of its ink, and the characters no font has.
private final class TextLine {
    let layout: OpaquePointer
    let width: Double
    let baseline: Double
    let inkHeight: Double
    let unknownGlyphs: Int

    /// Laid out with `fonts`, whose lock the caller holds for as long as the line lives.
    init(_ string: String, size: Double, bold: Bool, on cairo: OpaquePointer, fonts: Fonts.Map) {
        let context = pango_font_map_create_context(fonts.map)
        pango_cairo_update_context(cairo, context)
        layout = pango_layout_new(context)
        g_object_unref(UnsafeMutableRawPointer(context))
        let font = pango_font_description_new()
        pango_font_description_set_family(font, "DejaVu Sans")
        pango_font_description_set_weight(font, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL)
        pango_font_description_set_absolute_size(font, max(0, size) * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, font)
        pango_font_description_free(font)
        // One line: a line break in the text (there should be none) is drawn as a space.
        pango_layout_set_single_paragraph_mode(layout, 1)
        pango_layout_set_text(layout, string, -1)
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_extents(layout, &ink, &logical)
        width = Double(logical.width) / Double(PANGO_SCALE)
        inkHeight = Double(ink.height) / Double(PANGO_SCALE)
        baseline = Double(pango_layout_get_baseline(layout)) / Double(PANGO_SCALE)
        unknownGlyphs = Int(pango_layout_get_unknown_glyphs_count(layout))
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(layout))
    }
}
