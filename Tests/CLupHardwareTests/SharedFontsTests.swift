import CLupDrawing
import Foundation
import Synchronization
import XCTest

/// Text drawn from several threads at once, as clupd draws it (a screen on the drawing
/// worker, tickets on the others): every canvas the same as one drawn alone, and each font
/// file mapped by one font map, not once more for each thread that drew (issue 45: four
/// threads kept four sets of faces of DejaVu Sans, 0.9 MB more resident).
final class SharedFontsTests: XCTestCase {
    private static func draw(_ index: Int) throws -> [UInt32] {
        let canvas = try Canvas(width: 240, height: 60)
        canvas.text("Number A-\(100 + index % 7) — ¡gracias! Ελληνικά", x: 4, y: 40, size: 18, bold: index % 2 == 0)
        _ = canvas.breakablePieces(of: "Please go to the door, number \(index)")
        return canvas.withPixels { pixels, _ in Array(pixels) }
    }

    func test_textDrawnOnFourThreadsAtOnceIsAsDrawnAloneAndEachFontIsMappedByOneFontMap() throws {
        let alone = try (0..<8).map(Self.draw)
        let results = Mutex<[Int: [UInt32]]>([:])
        let failures = Mutex<[String]>([])
        // The threads live on until the maps are read, as clupd's workers do (a thread's
        // own font map, Pango's default, goes when the thread ends).
        let group = DispatchGroup(), release = DispatchSemaphore(value: 0)
        for thread in 0..<4 {
            group.enter()
            Thread {
                defer { release.wait() }
                defer { group.leave() }
                for round in 0..<25 {
                    let index = (thread * 25 + round) % 8
                    do {
                        let pixels = try Self.draw(index)
                        results.withLock { $0[index] = pixels }
                        if pixels != alone[index] { failures.withLock { $0.append("thread \(thread), round \(round)") } }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }.start()
        }
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success, "the threads finished")
        XCTAssertEqual(failures.withLock { $0 }, [], "canvases that differ from the same text drawn alone")
        XCTAssertEqual(results.withLock { $0.count }, 8)
        // Each font file: mapped by FreeType (cairo's face) and by HarfBuzz (the font map's),
        // whatever the number of threads that drew.
        let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8).split(separator: "\n")
        var mappings: [String: Int] = [:]
        for line in maps where line.hasSuffix(".ttf") || line.hasSuffix(".otf") {
            mappings[String(line.split(separator: " ").last!), default: 0] += 1
        }
        XCTAssertFalse(mappings.isEmpty, "no font file is mapped: \(maps.count) mappings")
        for (font, count) in mappings { XCTAssertLessThanOrEqual(count, 2, "\(font) mapped \(count) times") }
        for _ in 0..<4 { release.signal() }
    }
}
