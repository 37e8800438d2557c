import ArgumentParser
import CLupCore
import CLupProtocol
import Foundation

/// `clupctl logs`: clupd's log, from the journal under systemd (through journalctl), else
/// from the file clupd writes it to (read directly, or through clupd when this user cannot).
struct Logs: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show clupd's log: from the journal, or from clupd's own log file where there is no journal.")
    @OptionGroup var connection: Connection
    @Flag(name: .shortAndLong, help: "Keep showing new lines as they come (Ctrl-C stops).") var follow = false
    @Option(help: "Only lines matching this regular expression.") var grep: String?
    @Option(help: "Only the last so long: 30m, 2h, 7d; or from an ISO 8601 instant.") var since: String?
    @Option(name: .shortAndLong, help: "At most this many lines (the newest).") var lines = 200
    @Flag(help: "Print JSON, one object per line.") var json = false

    func run() throws {
        guard (1...100_000).contains(lines) else { throw ValidationError("--lines is 1 to 100000") }
        let from = try since.map(Audit.instant)
        let pattern = try grep.map { text -> NSRegularExpression in
            do { return try NSRegularExpression(pattern: text) } catch { throw ValidationError("--grep: not a regular expression: \(text.prefix(60))") }
        }
        let source = try connection.client.send(.logSource, expecting: LogSourceReply.self)
        if let unit = source.journalUnit { return try journal(unit, from: from) }
        guard let file = source.file else {
            throw CodedError(.requestNotUnderstood, "clupd's log goes to a terminal or a pipe, not to the journal nor a file: "
                + "there is nothing to read back (run clupd under systemd, or with its standard error in a file)")
        }
        var reader = LogFileReader(path: file, client: connection.client)
        let filter = LineFilter(since: from, pattern: pattern)
        let kept = Array(try reader.readAll().filter(filter.keeps).suffix(lines))
        for line in kept { emit(line) }
        guard follow else { return }
        Interrupt.reset()
        while !Interrupt.requested {
            for line in try reader.readNew() where filter.keeps(line) { emit(line) }
            fflush(nil)
            usleep(500_000)
        }
        print("")
    }

    private func emit(_ line: String) {
        guard json else { return print(line) }
        let object = ["line": line]
        if let data = try? JSONEncoder().encode(object) { print(String(decoding: data, as: UTF8.self)) }
    }

    /// journalctl reads the journal; it needs root or the systemd-journal (or adm) group.
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
        process.executableURL = URL(fileURLWithPath: "/usr/bin/journalctl")
        process.arguments = arguments
        do {
            try process.run()
        } catch {
            throw CodedError(.requestNotUnderstood, "journalctl could not run (\(error)); install systemd's journalctl")
        }
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            throw CodedError(.permissionDenied, "journalctl failed (status \(process.terminationStatus)): reading clupd's journal "
                + "needs root or the systemd-journal group")
        }
    }
}

/// Which log lines to show: from an instant (a line starts with its ISO 8601 time), matching a pattern.
struct LineFilter {
    let since: Date?
    let pattern: NSRegularExpression?

    func keeps(_ line: String) -> Bool {
        if let pattern, pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) == nil { return false }
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

/// Reads clupd's log file: directly where this user may, else through clupd. Remembers how
/// far it read, and starts again from the top when the file shrank (it was rotated).
struct LogFileReader {
    let path: String
    let client: ControlClient
    private(set) var offset = 0
    private var partial = ""

    init(path: String, client: ControlClient) {
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
        let chunk = try client.send(.logRead(offset: offset, maxBytes: LogChunk.maximumBytes), expecting: LogChunk.self)
        return (chunk.offset == offset ? chunk.text : "", chunk.offset == offset ? chunk.size : 0)
    }
}

