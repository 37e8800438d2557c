import ArgumentParser
import CLupCore
import CLupProtocol
import Foundation

/// `clupctl diagnostics FILE`: one archive for the support desk.
struct Diagnostics: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one archive (.tar.gz) for support: configuration without secrets, versions, recent logs, the database's integrity check, devices, printer, sync and the last 100 events.")
    @OptionGroup var connection: Connection
    @Argument(help: "The archive to write, e.g. /tmp/totem-7A.tar.gz.", completion: .file(extensions: ["gz", "tgz"])) var file: String

    func run() throws {
        let report = try connection.client(waiting: 150).send(.diagnostics, expecting: DiagnosticsReport.self)
        var template = Array((NSTemporaryDirectory() + "/clupctl-diagnostics.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CodedError(.internalError, "cannot make a temporary folder: \(String(cString: strerror(errno)))") }
        let folder = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var parts = report.parts
        parts.append(.init(name: "clupctl.txt", text: "clupctl \(ClupVersion.current)\n"))
        parts.append(.init(name: "logs.txt", text: recentLogs()))
        for part in parts {
            // Names come from clupd: a plain file name, nothing else.
            guard !part.name.contains("/"), !part.name.hasPrefix(".") else { continue }
            let path = folder + "/" + part.name
            guard FileManager.default.createFile(atPath: path, contents: Data(part.text.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw CodedError(.internalError, "cannot write \(path)")
            }
        }
        let temporary = file + ".tmp"
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/bin/tar")
        tar.arguments = ["-czf", temporary, "-C", folder, "."]
        try tar.run()
        tar.waitUntilExit()
        guard tar.terminationStatus == 0 else {
            unlink(temporary)
            throw CodedError(.internalError, "tar could not write \(temporary) (status \(tar.terminationStatus))")
        }
        chmod(temporary, 0o600)
        guard rename(temporary, file) == 0 else {
            let problem = String(cString: strerror(errno))
            unlink(temporary)
            throw CodedError(.internalError, "cannot put the archive at \(file): \(problem)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        print("wrote \(file): \(parts.count) files, \(size) bytes (readable by you alone); it holds no secrets nor PINs")
    }

    /// The last 2000 lines of clupd's log, or why there are none.
    private func recentLogs() -> String {
        guard let source = try? connection.client.send(.logSource, expecting: LogSourceReply.self) else { return "(log source unknown)\n" }
        if let unit = source.journalUnit {
            let process = Process()
            let pipe = Pipe()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/journalctl")
            process.arguments = ["-u", unit, "-o", "short-iso", "--no-pager", "-n", "2000"]
            process.standardOutput = pipe
            guard (try? process.run()) != nil else { return "(journalctl could not run)\n" }
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
        guard let file = source.file else { return "(clupd's log goes to a terminal or a pipe)\n" }
        var reader = LogFileReader(path: file, client: connection.client)
        guard let lines = try? reader.readAll() else { return "(\(file) could not be read)\n" }
        return lines.suffix(2000).joined(separator: "\n") + "\n"
    }
}
