import Foundation
import Logging

/// The log handler of clupd and clup-hub: swift-log's stream format on standard error,
/// with the message and every metadata value escaped (`TypedText`), so a name, a reason or
/// a scanned code typed with a newline or an escape sequence in it stays inside its own
/// line: no logged field can start a line that passes for ours, nor act on the terminal
/// of whoever reads the log.
///
/// Under systemd, standard error is the journal (`journal`): each line then starts with
/// its syslog priority (`<4>` for a warning, sd-daemon(3)), which journald takes as the
/// entry's PRIORITY, so `journalctl -p warning` finds the warnings; the line carries no
/// time stamp of its own there (the journal stamps every entry).
public struct LineSafeLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String
    private let journal: Bool
    private let sink: @Sendable (String) -> Void

    /// Writes to `sink` (standard error by default); `journal` adds priorities.
    public init(label: String, journal: Bool = Journal.isStandardError(),
                sink: @escaping @Sendable (String) -> Void = LineSafeLogHandler.standardError) {
        self.label = label
        self.journal = journal
        self.sink = sink
    }

    /// Makes this handler swift-log's global one, which every `Logger(label:)` of the
    /// process (a library's too) writes through; once per process, however often called.
    public static func bootstrap() { _ = bootstrapped }
    private static let bootstrapped: Void = LoggingSystem.bootstrap { LineSafeLogHandler(label: $0) }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: TypedText.escaped(event.message.description))
        let merged = metadata.merging(event.metadata ?? [:]) { _, explicit in explicit }
        event.metadata = merged.isEmpty ? nil : Self.escaped(merged)
        if let error = event.error {
            event.metadata = (event.metadata ?? [:]).merging(["error": .string(TypedText.escaped("\(error)"))]) { _, error in error }
            event.error = nil
        }
        let line = Line(priority: journal ? Self.priority(of: event.level) : nil, sink: sink)
        var stream = StreamLogHandler(label: label, stream: line, metadataProvider: nil)
        stream.logLevel = logLevel
        stream.log(event: event)
    }

    /// syslog's priority of a level (sd-daemon.h: SD_CRIT 2 … SD_DEBUG 7).
    public static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// `value` with every string in it escaped.
    static func escaped(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case let .string(text): .string(TypedText.escaped(text))
        case let .stringConvertible(item): .string(TypedText.escaped(item.description))
        case let .dictionary(values): .dictionary(escaped(values))
        case let .array(values): .array(values.map(escaped))
        }
    }

    /// `metadata` with every key and value escaped (two keys that escape alike are one).
    static func escaped(_ metadata: Logger.Metadata) -> Logger.Metadata {
        Dictionary(metadata.map { (TypedText.escaped($0.key), escaped($0.value)) }) { first, _ in first }
    }

    /// One line to standard error in one write(2), so lines of two threads never interleave.
    public static let standardError: @Sendable (String) -> Void = { line in
        var bytes = Array(line.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeMutableBytes { Foundation.write(STDERR_FILENO, $0.baseAddress! + written, $0.count - written) }
            if result > 0 { written += result } else if result < 0, errno == EINTR { continue } else { return }
        }
    }

    /// The stream one event is formatted into: under the journal, swift-log's time stamp
    /// (the line's first word) is replaced by the priority.
    private struct Line: TextOutputStream, Sendable {
        let priority: Int?
        let sink: @Sendable (String) -> Void

        mutating func write(_ text: String) {
            guard let priority else { return sink(text) }
            let unstamped = text.firstIndex(of: " ").map { text[text.index(after: $0)...] } ?? Substring(text)
            sink("<\(priority)>" + unstamped)
        }
    }
}

/// Whether standard error is systemd's journal.
public enum Journal {
    /// True when systemd connected standard error to the journal: `JOURNAL_STREAM` names
    /// that very stream as `DEVICE:INODE` (systemd.exec(5)); a child whose standard error
    /// was redirected elsewhere inherits the variable but not the stream.
    public static func isStandardError(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        var info = stat()
        guard let stream = environment["JOURNAL_STREAM"], fstat(STDERR_FILENO, &info) == 0 else { return false }
        return stream == "\(info.st_dev):\(info.st_ino)"
    }
}
