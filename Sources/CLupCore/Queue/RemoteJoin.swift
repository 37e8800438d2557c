import Foundation

/// A place in a door's line taken from a phone, as the hub hands it to the door's totem:
/// its number (`AR-004`), when the hub took it, and its code (signed by the hub, admitted
/// at the door like a printed ticket's).
public struct RemoteJoin: Codable, Hashable, Sendable {
    public var number: TicketNumber
    /// When the hub took it, in Unix seconds to the millisecond (its code keeps whole
    /// seconds; a hub before issue 40 sent whole seconds here too): its place in the line.
    public var joinedAt: Double
    public var code: String
    /// The language its holder chose (ISO 639-1), if the app or the website said: the door
    /// speaks to them in it (nil from a hub before issue 40, or when not said).
    public var language: String?

    public init(number: TicketNumber, joinedAt: Double, code: String, language: String? = nil) {
        self.number = number
        self.joinedAt = joinedAt
        self.code = code
        self.language = language
    }

    public var joined: Date { Date(timeIntervalSince1970: joinedAt) }

    /// What is wrong with it, if anything.
    var problem: String? {
        guard number.lane == .remote, number.totem != TicketPayload.hubLetter else {
            return "\(number) is not a place in a door's line taken from a phone"
        }
        guard (0...Double(UInt32.max)).contains(joinedAt) else { return "remote ticket \(number) has no time" }
        guard (1...TicketCode.maximumLength).contains(code.utf8.count) else { return "remote ticket \(number)'s code is not a ticket code" }
        if let language, !(language.utf8.count == 2 && language.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) })) {
            return "remote ticket \(number)'s language is not a language code"
        }
        return nil
    }
}
