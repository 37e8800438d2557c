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

    /// A ticket as a worker lays one out: a PDF page, written when finished (its fonts
    /// embedded then, after the text was drawn).
    private static func ticket(_ index: Int, in folder: URL) throws -> Int {
        let path = folder.appendingPathComponent("ticket-\(index)-\(UInt32.random(in: 0...UInt32.max)).pdf").path
        let canvas = try Canvas(pdfPath: path, width: 204, height: 300)
        canvas.text("A-\(100 + index)", x: 102, y: 90, size: 64, bold: true, alignment: .center)
        canvas.text("Wait about \(index % 20) minutes — Attente \(index % 20) min", x: 8, y: 140, size: 11)
        try canvas.finish()
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try Data(contentsOf: URL(fileURLWithPath: path)).count
    }

    func test_textDrawnOnFourThreadsAtOnceIsAsDrawnAloneAndEachFontIsMappedByOneFontMap() throws {
        let alone = try (0..<8).map(Self.draw)
        let results = Mutex<[Int: [UInt32]]>([:])
        let failures = Mutex<[String]>([])
        // The threads live on until the maps are read, as clupd's workers do (a thread's
        // own font map, Pango's default, goes when the thread ends).
        let folder = try temporaryFolder("clup-fonts")
        let group = DispatchGroup(), release = DispatchSemaphore(value: 0)
        defer { for _ in 0..<4 { release.signal() } }
        // Two threads draw screens, two lay out tickets, as the drawing worker and the workers do.
        for thread in 0..<4 {
            group.enter()
            Thread {
                defer { release.wait() }
                defer { group.leave() }
                for round in 0..<25 {
                    let index = (thread * 25 + round) % 8
                    do {
                        if thread % 2 == 1 {
                            let bytes = try Self.ticket(index, in: folder)
                            if bytes < 1000 { failures.withLock { $0.append("thread \(thread), round \(round): a PDF of \(bytes) bytes") } }
                            continue
                        }
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
        XCTAssertEqual(results.withLock { $0.count }, 8, "every screen drawn")
        // Each font file: mapped by FreeType (cairo's face) and by HarfBuzz (the font map's),
        // whatever the number of threads that drew.
        // Read to its end: /proc gives its files a size of 0, and a read by that size can stop
        // at the first page (76 lines on a fresh machine, no font among them).
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/maps"))
        defer { try? handle.close() }
        let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        var mappings: [String: Int] = [:]
        for line in maps where [".ttf", ".otf", ".ttc"].contains(where: { line.hasSuffix($0) }) {
            mappings[String(line.split(separator: " ").last!), default: 0] += 1
        }
        XCTAssertFalse(mappings.isEmpty, "no font file is mapped: \(maps.count) mappings")
        for (font, count) in mappings { XCTAssertLessThanOrEqual(count, 2, "\(font) mapped \(count) times") }
    }
}
