import CLupCore
import Foundation

extension EventBatch {
    /// The batch in `body` read with `JSONScanner` (each event's four fields by hand; the door
    /// report and the health, once per batch, by `JSONDecoder`), exactly as `JSONDecoder`
    /// reads it; nil when the scanner gives up, and the caller decodes with `JSONDecoder`.
    public static func scanned(_ body: UnsafeBufferPointer<UInt8>) -> EventBatch? {
        JSONScanner.scan(body) { scanner throws(JSONScanner.GaveUp) in
            var events: [UploadedEvent]?
            var outboxDepth: Int64?
            var clockOffset: Double?
            var door: DoorReport?
            var health: TotemHealth?
            var seen = SeenKeys()
            try scanner.members { scanner, key throws(JSONScanner.GaveUp) in
                switch key {
                case "events":
                    try seen.note(0)
                    var read: [UploadedEvent] = []
                    try scanner.elements { scanner throws(JSONScanner.GaveUp) in read.append(try uploadedEvent(&scanner)) }
                    events = read
                case "outboxDepth":
                    try seen.note(1)
                    outboxDepth = try scanner.int64()
                case "clockOffset":
                    try seen.note(2)
                    if try !scanner.null() { clockOffset = try scanner.double() }
                case "door":
                    try seen.note(3)
                    if try !scanner.null() { door = try decoded(DoorReport.self, try scanner.skip()) }
                case "health":
                    try seen.note(4)
                    if try !scanner.null() { health = try decoded(TotemHealth.self, try scanner.skip()) }
                default: _ = try scanner.skip()
                }
            }
            guard let events, let outboxDepth else { throw JSONScanner.GaveUp() }
            return EventBatch(events: events, outboxDepth: outboxDepth, clockOffset: clockOffset, door: door, health: health)
        }
    }

    private static func uploadedEvent(_ scanner: inout JSONScanner) throws(JSONScanner.GaveUp) -> UploadedEvent {
        var seq: Int64?
        var wallTime: Double?
        var type: String?
        var payload: String?
        var seen = SeenKeys()
        try scanner.members { scanner, key throws(JSONScanner.GaveUp) in
            switch key {
            case "seq":
                try seen.note(0)
                seq = try scanner.int64()
            case "wallTime":
                try seen.note(1)
                wallTime = try scanner.double()
            case "type":
                try seen.note(2)
                type = try scanner.string()
            case "payload":
                try seen.note(3)
                payload = try scanner.string()
            default: _ = try scanner.skip()
            }
        }
        guard let seq, let wallTime, let type, let payload else { throw JSONScanner.GaveUp() }
        return UploadedEvent(seq: seq, wallTime: wallTime, type: type, payload: payload)
    }

    private static func decoded<T: Decodable>(_ type: T.Type, _ json: UnsafeBufferPointer<UInt8>) throws(JSONScanner.GaveUp) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(json))
        } catch {
            throw JSONScanner.GaveUp()
        }
    }
}
