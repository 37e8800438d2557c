import ArgumentParser
import CLupCore
import CLupProtocol
import Foundation

/// `clupctl logs`: clupd's log, from the journal under systemd (through journalctl), else
/// from the file clupd writes it to (read directly, or through clupd when this user cannot).
/// With clupd down it still reads: the file given with `--file`, the one the shell learnt
/// while clupd was up, or the journal on a machine run by systemd.
struct Logs: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show clupd's log: from the journal, or from clupd's own log file where there is no journal.",
        discussion: "Works with clupd down too: give its log file with --file, or the journal of clupd.service is read.")
    @OptionGroup var connection: Connection
    @Flag(name: .shortAndLong, help: "Keep showing new lines as they come (Ctrl-C stops).") var follow = false
    @Option(help: "Only lines matching this regular expression.") var grep: String?
    @Option(help: "Only the last so long: 30m, 2h, 7d; or from an ISO 8601 instant.") var since: String?
    @Option(name: .shortAndLong, help: "At most this many lines (the newest).") var lines = 200
    @Option(help: "Read this log file directly, without asking clupd (what its standard error was written to).",
            completion: .file()) var file: String?
    @Flag(help: "Print JSON, one object per line.") var json = false

    func run() throws {
        guard (1...100_000).contains(lines) else { throw ValidationError("--lines is 1 to 100000") }
        let from = try since.map(Audit.instant)
        let pattern = try grep.map(LogPattern.init)
        let source = try Self.source(connection, file: file)
        if let unit = source.journalUnit { return try journal(unit, from: from) }
        guard let path = source.file else {
            throw CodedError(.requestNotUnderstood, "clupd's log goes to a terminal or a pipe, not to the journal nor a file: "
                + "there is nothing to read back (run clupd under systemd, or with its standard error in a file)")
        }
        // A file named here is read here alone; clupd would read its own log instead.
        var reader = LogFileReader(path: path, client: file == nil ? connection.client : nil)
        let filter = LineFilter(since: from, pattern: pattern)
        let kept = Array(try reader.readAll().filter(filter.keeps).suffix(lines))
        for line in kept { emit(line) }
        guard follow else { return }
        Interrupt.reset()
        while !Interrupt.requested {
            for line in try reader.readNew() where try filter.keeps(line) { emit(line) }
            fflush(nil)
            usleep(500_000)
        }
        print("")
    }

    /// Where the log is: `--file`, else as clupd says; with clupd down, as the shell learnt
    /// it while clupd was up, else the journal where systemd runs the machine.
    static func source(_ connection: Connection, file: String?) throws -> LogSourceReply {
        if let file {
            guard access(file, R_OK) == 0 else { throw ValidationError("--file: cannot read \(quoted(file)): \(String(cString: strerror(errno)))") }
            return LogSourceReply(journalUnit: nil, file: file, size: nil)
        }
        do {
            return try connection.client.send(Control.LogSource())
        } catch ControlClient.ConnectionError.daemonNotRunning(let path, let detail) {
            if let known = ShellContext.current?.logSource { return known }
            if FileManager.default.fileExists(atPath: "/run/systemd/system") {
                return LogSourceReply(journalUnit: "clupd.service", file: nil, size: nil)
            }
            throw CodedError(.daemonNotRunning, "clupd is not running (no answer on \(path): \(detail)), and where it "
                + "logged is not known here: give its log file with --file PATH")
        }
    }

    /// A line as printed: escaped, so that nothing written into the log can act on the
    /// terminal or pass for another line; as JSON, encoded (which escapes it too).
    private func emit(_ line: String) {
        guard json else { return print(shown(line)) }
        let object = ["line": line]
        if let data = try? JSONEncoder().encode(object) { print(String(decoding: data, as: UTF8.self)) }
    }

    /// journalctl reads the journal; it needs root or the systemd-journal (or adm) group.
    /// `--grep` is journalctl's own (PCRE2, whose match limit bounds the work). Its output is
    /// read here and printed line by line, escaped like the file's.
    private func journal(_ unit: String, from: Date?) throws {
        var arguments = ["-u", unit, "-o", json ? "json" : "short-iso", "--no-pager", "-n", "\(lines)"]
        if let from {
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
            arguments += ["--since", formatter.string(from: from)]
        }
        if let grep { arguments += ["-g", grep] }
        if follow { arguments.append("-f") }
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/journalctl")
        process.arguments = arguments
        process.standardOutput = pipe
        do {
            try process.run()
        } catch {
            throw CodedError(.requestNotUnderstood, "journalctl could not run (\(error)); install systemd's journalctl")
        }
        var pending = Data()
        while case let data = pipe.fileHandleForReading.availableData, !data.isEmpty {
            pending.append(data)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                print(json ? line : shown(line))
                pending.removeSubrange(pending.startIndex...newline)
            }
            fflush(nil)
        }
        if !pending.isEmpty { print(shown(String(decoding: pending, as: UTF8.self))) }
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            throw CodedError(.permissionDenied, "journalctl failed (status \(process.terminationStatus)): reading clupd's journal "
                + "needs root or the systemd-journal group")
        }
    }
}

/// `--grep`'s regular expression, with a bound on the work one line may take. The matcher
/// (ICU's, behind NSRegularExpression) backtracks: `(a+)+b` on a line of 40 a's would take
/// minutes. Matching reports its progress, and a line still unmatched after
/// `secondsPerLine` stops the command with a message that says why.
struct LogPattern {
    let expression: NSRegularExpression
    let text: String
    let secondsPerLine: Double

    init(_ text: String) throws {
        try self.init(text, secondsPerLine: 0.25)
    }

    init(_ text: String, secondsPerLine: Double) throws {
        do {
            expression = try NSRegularExpression(pattern: text)
        } catch {
            throw ValidationError("--grep: not a regular expression: \(quoted(text))")
        }
        self.text = text
        self.secondsPerLine = secondsPerLine
    }

    /// Whether `line` has a match; throws when finding out takes too long.
    func matches(_ line: String) throws -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(secondsPerLine * 1e9)
        var found = false
        var gaveUp = false
        expression.enumerateMatches(in: line, options: [.reportProgress], range: NSRange(line.startIndex..., in: line)) { match, _, stop in
            if match != nil {
                found = true
                stop.pointee = true
            } else if DispatchTime.now().uptimeNanoseconds > deadline {
                gaveUp = true
                stop.pointee = true
            }
        }
        if gaveUp {
            throw ValidationError("--grep: \(quoted(text)) takes too long on a line of \(line.utf8.count) bytes (it backtracks: "
                + "a repetition inside a repetition, like (a+)+, or alternatives that overlap); write it without nesting")
        }
        return found
    }
}

/// Which log lines to show: from an instant (a line starts with its ISO 8601 time), matching a pattern.
struct LineFilter {
    let since: Date?
    let pattern: LogPattern?

    func keeps(_ line: String) throws -> Bool {
        if let pattern, try !pattern.matches(line) { return false }
        if let since, let stamp = line.split(separator: " ", maxSplits: 1).first, let at = Self.instant(String(stamp)), at < since {
            return false
        }
        return true
    }

    /// swift-log's stamp, `2026-11-23T07:57:10+0000`.
    static func instant(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssZ"
        return formatter.date(from: text)
    }
}

/// Reads clupd's log file: directly where this user may, else through clupd (when there is a
/// `client`; without one an unreadable file is an error of its own). Remembers how
/// far it read, and starts again from the top when the file shrank (it was rotated).
struct LogFileReader {
    let path: String
    let client: ControlClient?
    private(set) var offset = 0
    private var partial = ""

    init(path: String, client: ControlClient?) {
        self.path = path
        self.client = client
    }

    mutating func readAll() throws -> [String] {
        offset = 0
        partial = ""
        return try readNew()
    }

    /// The complete lines added since the last read.
    mutating func readNew() throws -> [String] {
        var text = ""
        while true {
            let (chunk, size) = try read(from: offset)
            if size < offset {   // rotated or truncated
                offset = 0
                partial = ""
                continue
            }
            offset += chunk.utf8.count
            text += chunk
            if chunk.utf8.count < LogChunk.maximumBytes { break }
        }
        let all = partial + text
        var lines = all.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        partial = lines.popLast() ?? ""
        return lines
    }

    private func read(from offset: Int) throws -> (String, Int) {
        if let file = FileHandle(forReadingAtPath: path) {
            defer { try? file.close() }
            let size = Int(try file.seekToEnd())
            guard offset <= size else { return ("", size) }
            try file.seek(toOffset: UInt64(offset))
            let data = try file.read(upToCount: LogChunk.maximumBytes) ?? Data()
            return (String(decoding: data, as: UTF8.self), size)
        }
        guard let client else { throw CodedError(.internalError, "cannot read \(shown(path)): \(String(cString: strerror(errno)))") }
        let chunk = try client.send(Control.LogRead(offset: offset, maxBytes: LogChunk.maximumBytes))
        return (chunk.offset == offset ? chunk.text : "", chunk.offset == offset ? chunk.size : 0)
    }
}

