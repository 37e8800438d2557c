import Foundation

/// How a domain event is written: in the totem's event log, in an upload, and as the hub
/// reads it. One coding for all three, because a stored event is read again for years, by
/// this clupd and the next, and by hubs older and newer than the totem that wrote it.
///
/// The payload is the JSON of `DomainEvent` with its keys sorted: an object with one key, the
/// event's case (`"ticketCalled"`), holding its fields by label, or `_0`, `_1` … for the
/// unlabelled ones. Dates are JSON numbers: seconds since 2001-01-01T00:00:00Z (what
/// Foundation writes for a `Date`, stated here so that no default can change it). A reader
/// also takes an ISO 8601 string for a date (`2026-11-24T10:15:00Z`, fractions allowed), so
/// that a later writer may move to strings once every hub reads them.
///
/// The rules that keep stored events readable (DESIGN.md, "The event schema"): an event only
/// gains optional fields; a field is never renamed, retyped or removed; a new meaning is a new
/// case with a new `type`. `Tests/CLupCoreTests/Golden/events/` holds one payload per event
/// type and version, and a test fails when one of them no longer decodes to what it meant.
public enum EventCoding {
    /// The payload of `event`, as stored and uploaded.
    public static func payload(_ event: DomainEvent) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.timeIntervalSinceReferenceDate)
        }
        return String(decoding: try encoder.encode(event), as: UTF8.self)
    }

    /// The event a payload holds, whichever version of clupd wrote it. The commonest events
    /// are read by `CommonEventReader` (the same answer, at a fraction of the cost); the
    /// others, and anything it gives up on, by `JSONDecoder`.
    public static func event(from payload: String) throws -> DomainEvent {
        if let event = scanned(payload) { return event }
        return try decodedByFoundation(payload)
    }

    /// The event a payload holds as `CommonEventReader` reads it, or nil where it gives up
    /// (for the tests and the fuzzer, which check it against `decodedByFoundation`).
    public static func scanned(_ payload: String) -> DomainEvent? {
        JSONScanner.scan(payload, CommonEventReader.read)
    }

    /// The event a payload holds, as `JSONDecoder` reads it.
    public static func decodedByFoundation(_ payload: String) throws -> DomainEvent {
        try decoder.decode(DomainEvent.self, from: Data(payload.utf8))
    }

    /// A reader for the payloads: `JSONDecoder` is a class, but one configured and never
    /// changed again is safe to share between threads.
    nonisolated(unsafe) private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Double.self) {
                guard seconds.isFinite, abs(seconds) < maximumSeconds else {
                    throw DecodingError.dataCorruptedError(in: container, debugDescription: "a date \(seconds) s from 2001")
                }
                return Date(timeIntervalSinceReferenceDate: seconds)
            }
            let text = try container.decode(String.self)
            guard text.utf8.count <= 40, let date = isoDate(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text.prefix(40))")
            }
            return date
        }
        return decoder
    }()

    /// About 10,000 years either side of 2001: a date beyond is no event's.
    static let maximumSeconds = 3.2e11

    private static func isoDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
