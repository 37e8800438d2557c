import Foundation
import XCTest

/// A private cupsd for the test process, started with the project's `scripts/private-cupsd`
/// (own ServerRoot, Unix socket only, a backend that captures each job to a file).
///
/// One for all test classes: libcups remembers the server per thread, so a second cupsd
/// on another socket would not be reached from the same thread.
final class PrivateCUPS: Sendable {
    /// Started on first use, stopped when the test process exits.
    static let shared: PrivateCUPS? = {
        let cups = try? PrivateCUPS()
        atexit { PrivateCUPS.shared?.stop() }
        return cups
    }()

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    let directory: URL

    init() throws {
        directory = URL(fileURLWithPath: "/tmp/clup-cups-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        try run("start")
        // libcups reads CUPS_SERVER when a thread first talks to a server.
        setenv("CUPS_SERVER", directory.appendingPathComponent("cups.sock").path, 1)
    }

    func stop() {
        try? run("stop")
        try? FileManager.default.removeItem(at: directory)
    }

    /// The captured bytes of job `id`.
    func capturedJob(_ id: Int) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent("jobs/job-\(id).prn"))
    }

    private func run(_ verb: String) throws {
        let process = Process()
        process.executableURL = Self.repositoryRoot.appendingPathComponent("scripts/private-cupsd")
        process.arguments = [verb, directory.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(domain: "PrivateCUPS", code: Int(process.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "scripts/private-cupsd \(verb) failed"])
        }
    }
}

/// Runs a command line tool and returns its standard output.
@discardableResult
func runTool(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Rasterises a PDF at `dpi` like a thermal printer would and decodes its QR code with zbarimg.
func decodeQR(inPDF pdf: URL, dpi: Int = 203) throws -> String {
    let base = pdf.deletingPathExtension().path
    let render = try runTool("pdftoppm", ["-r", "\(dpi)", "-gray", "-singlefile", "-png", pdf.path, base])
    XCTAssertEqual(render.status, 0, "pdftoppm failed")
    let decoded = try runTool("zbarimg", ["--quiet", "--raw", base + ".png"])
    XCTAssertEqual(decoded.status, 0, "zbarimg found no code")
    return decoded.output.hasSuffix("\n") ? String(decoded.output.dropLast()) : decoded.output
}
