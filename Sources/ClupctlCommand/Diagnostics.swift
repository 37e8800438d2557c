import ArgumentParser
import CLupCore
import CLupProtocol
import Foundation

/// `clupctl diagnostics FILE`: one archive for the support desk. With clupd down it still
/// writes one, of what clupctl finds alone: why clupd did not answer, systemd's word on it,
/// and the recent log.
struct Diagnostics: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one archive (.tar.gz) for support: configuration without secrets, versions, recent logs, the database's integrity check, devices, printer, sync and the last 100 events.",
        discussion: "With clupd down, the archive holds what clupctl finds alone: why clupd does not answer, `systemctl status clupd` and the recent log.")
    @OptionGroup var connection: Connection
    @Argument(help: "The archive to write, e.g. /tmp/totem-7A.tar.gz.", completion: .file(extensions: ["gz", "tgz"])) var file: String

    func run() throws {
        // Refused before clupd spends two minutes on the report.
        try ExclusiveFile.refuseLink(file)
        var parts: [DiagnosticsReport.Part]
        do {
            parts = try connection.client(waiting: 150).send(Control.Diagnostics()).parts
        } catch let ControlClient.ConnectionError.daemonNotRunning(path, detail) {
            parts = [Self.clupdDown(socket: path, detail: detail)]
        }
        var template = Array((NSTemporaryDirectory() + "/clupctl-diagnostics.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CodedError(.internalError, "cannot make a temporary folder: \(String(cString: strerror(errno)))") }
        let folder = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: folder) }
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
        // tar writes to the descriptor of a file created here, never to a path someone else
        // may have planted a link at.
        try ExclusiveFile.write(file) { descriptor in
            let tar = Process()
            tar.executableURL = URL(fileURLWithPath: "/bin/tar")
            tar.arguments = ["-czf", "-", "-C", folder, "."]
            tar.standardOutput = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
            try tar.run()
            tar.waitUntilExit()
            guard tar.terminationStatus == 0 else {
                throw CodedError(.internalError, "tar could not write the archive (status \(tar.terminationStatus))")
            }
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        print("wrote \(shown(file)): \(parts.count) files, \(size) bytes (readable by you alone); it holds no secrets nor PINs")
    }

    /// With clupd down: why it did not answer, and what systemd says of it.
    static func clupdDown(socket: String, detail: String) -> DiagnosticsReport.Part {
        var text = "clupd did not answer on \(socket): \(detail)\nasked at \(Date().formatted(.iso8601))\n"
        var info = stat()
        text += lstat(socket, &info) != 0 ? "the socket does not exist\n"
            : "the socket exists: mode \(String(info.st_mode & 0o7777, radix: 8)), owner uid \(info.st_uid) gid \(info.st_gid)\n"
        if let status = output(of: "/usr/bin/systemctl", ["status", "clupd.service", "--no-pager", "--lines", "50"]), !status.isEmpty {
            text += "\nsystemctl status clupd.service:\n" + status
        }
        return .init(name: "clupd-down.txt", text: text)
    }

    /// The last 2000 lines of clupd's log, or why there are none.
    private func recentLogs() -> String {
        guard let source = try? Logs.source(connection, file: nil) else { return "(log source unknown)\n" }
        if let unit = source.journalUnit {
            return Self.output(of: "/usr/bin/journalctl", ["-u", unit, "-o", "short-iso", "--no-pager", "-n", "2000"])
                ?? "(journalctl could not run)\n"
        }
        guard let file = source.file else { return "(clupd's log goes to a terminal or a pipe)\n" }
        var reader = LogFileReader(path: file, client: connection.client)
        guard let lines = try? reader.readAll() else { return "(\(file) could not be read)\n" }
        return lines.suffix(2000).joined(separator: "\n") + "\n"
    }

    /// What a program prints on its standard output (its exit status and complaints aside,
    /// such as systemctl's on a machine without systemd); nil if it cannot run.
    private static func output(of program: String, _ arguments: [String]) -> String? {
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}

/// A file written as a whole and put in place by rename, without following a link anywhere:
/// clupctl often runs as root, in folders others can write (/tmp). The temporary file is
/// created beside the target under a fresh random name with O_CREAT|O_EXCL|O_NOFOLLOW, so a
/// link planted in advance makes the open fail rather than be written through; its mode is
/// set on the descriptor. A target that is itself a link is refused.
enum ExclusiveFile {
    static func refuseLink(_ path: String) throws {
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            throw ValidationError("\(quoted(path)) is a symbolic link: clupctl does not write through links; give the real path")
        }
    }

    /// Creates the temporary file, lets `body` fill it through its descriptor, and renames
    /// it onto `path` (readable by its owner alone). On failure nothing is left behind.
    static func write(_ path: String, mode: mode_t = 0o600, _ body: (Int32) throws -> ()) throws {
        try refuseLink(path)
        let (descriptor, temporary) = try create(beside: path, mode: mode)
        do {
            try body(descriptor)
            guard fsync(descriptor) == 0 else { throw CodedError(.internalError, "cannot write \(shown(temporary)): \(lastError)") }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let problem = lastError
            unlink(temporary)
            throw CodedError(.internalError, "cannot put the file at \(shown(path)): \(problem)")
        }
    }

    /// A new file beside `path`: `.NAME.XXXXXXXX.tmp`, created exclusively, its mode set on the descriptor.
    static func create(beside path: String, mode: mode_t) throws -> (Int32, String) {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        for _ in 0..<100 {
            let suffix = String(UInt32.random(in: .min ... .max), radix: 16)
            let candidate = (folder.isEmpty ? "" : folder + "/") + ".\(name).\(suffix).tmp"
            let descriptor = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if descriptor >= 0 {
                guard fchmod(descriptor, mode) == 0 else {
                    let problem = lastError
                    close(descriptor)
                    unlink(candidate)
                    throw CodedError(.internalError, "cannot set the mode of \(shown(candidate)): \(problem)")
                }
                return (descriptor, candidate)
            }
            guard errno == EEXIST else { throw CodedError(.internalError, "cannot create a file beside \(shown(path)): \(lastError)") }
        }
        throw CodedError(.internalError, "cannot create a file beside \(shown(path)): every name tried was taken")
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}
