import CLupCore
import Logging

/// clupd's log handler: swift-log's stream handler on standard error (the journal, or the
/// file `clupctl logs` reads), with the message and every metadata value escaped
/// (`TypedText`). A name, a reason or a scanned code typed with a newline or an escape
/// sequence in it then stays inside its own line: no logged field can start a line that
/// passes for clupd's, nor act on the terminal of whoever reads the log.
public struct LineSafeLogHandler: LogHandler {
    private var stream: StreamLogHandler
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    /// Writes through `stream` (clupd's: `StreamLogHandler.standardError`).
    public init(_ stream: StreamLogHandler) {
        self.stream = stream
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: TypedText.escaped(event.message.description))
        let merged = metadata.merging(event.metadata ?? [:]) { _, explicit in explicit }
        event.metadata = merged.isEmpty ? nil : merged.mapValues(Self.escaped)
        if let error = event.error {
            event.metadata = (event.metadata ?? [:]).merging(["error": .string(TypedText.escaped("\(error)"))]) { _, error in error }
            event.error = nil
        }
        stream.log(event: event)
    }

    /// `value` with every string in it escaped.
    static func escaped(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case let .string(text): .string(TypedText.escaped(text))
        case let .stringConvertible(item): .string(TypedText.escaped(item.description))
        case let .dictionary(values): .dictionary(values.mapValues(escaped))
        case let .array(values): .array(values.map(escaped))
        }
    }
}
