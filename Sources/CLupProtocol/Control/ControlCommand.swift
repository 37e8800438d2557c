import CLupCore
import Foundation

/// A request clupctl sends to clupd over the control socket, and the type of its reply.
///
/// clupctl and clupd share these types: `ControlClient.send(_:)` returns `Reply`, and clupd's
/// router takes a handler that must return `Reply`, so the two cannot disagree on a reply's
/// shape without the build failing. Each command decides its own policy (who may send it,
/// whether the audit trail keeps it) with no default, so a new command cannot slip through.
public protocol ControlCommand: Codable, Sendable {
    associatedtype Reply: Codable & Sendable

    /// The command's name on the wire: the message's `request` is `{"<name>": {fields}}`.
    static var wireName: String { get }
    /// Whether the command changes the totem, so that a technician must be logged in for it.
    /// `sim` commands stand for a customer, not a technician: a real device refuses them.
    static var needsTechnician: Bool { get }
    /// What the audit trail keeps of the command.
    static var trail: AuditTrail { get }
    /// The command as a technician would have typed it, for the audit trail and clupd's log:
    /// never a secret nor a hash.
    var summary: String { get }
    /// What the audit trail keeps of a reply (a self-test keeps its verdict); "ok" by default.
    static func auditOutcome(of reply: Reply) -> String
}

extension ControlCommand {
    public static func auditOutcome(of reply: Reply) -> String { "ok" }
}

/// What the audit trail keeps of a command.
public enum AuditTrail: Sendable, Equatable {
    /// Nothing: a routine read. A monitoring loop on `status` or a Prometheus scrape would
    /// otherwise add an event a second to the log the hub keeps.
    case routineRead
    /// The command, who sent it and its outcome: what changes the totem or drives its
    /// simulated devices, and what a person takes away on purpose (the diagnostics archive).
    case kept
    /// Logins (refused ones too) and logouts, kept where they are decided (`TechnicianDesk`).
    case keptWhereDecided
}

/// How requests and replies are written on the socket: JSON, dates in ISO 8601.
public enum ControlCoding {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// One request as it crosses the socket: `{"request":{"<name>":{…}},"session":…,"quiet":…,
    /// "caller":…}`. `quiet`: the shell's own request (its prompt, its completion), which is not
    /// audited; `caller`: what the caller says of itself, for the audit (`CallerClaim`).
    public static func request<Command: ControlCommand>(_ command: Command, session: String?, quiet: Bool,
                                                        caller: CallerClaim? = nil) throws -> Data {
        try encoder().encode(RequestEnvelope(request: [Command.wireName: command], session: session, quiet: quiet ? true : nil,
                                             caller: caller))
    }

    /// A reply: `{"ok":true,"result":…}`, one line.
    public static func success<Reply: Encodable>(_ result: Reply) throws -> Data {
        try encoder().encode(ReplyEnvelope(ok: true, result: result, error: nil)) + Data("\n".utf8)
    }

    /// A refusal: `{"ok":false,"error":{"code":…,"message":…,"action":…}}`, one line.
    public static func failure(_ error: CodedError) -> Data {
        let envelope = ReplyEnvelope<MessageReply>(ok: false, result: nil, error: error)
        return ((try? encoder().encode(envelope)) ?? Data(#"{"ok":false}"#.utf8)) + Data("\n".utf8)
    }
}

/// The envelope of a request; `request` holds exactly one command under its name.
public struct RequestEnvelope<Command: ControlCommand>: Codable {
    public var request: [String: Command]
    public var session: String?
    public var quiet: Bool?
    public var caller: CallerClaim?
}

/// The envelope of every reply: the result, or the error's code, message and what to do.
public struct ReplyEnvelope<Result> {
    public let ok: Bool
    public let result: Result?
    public let error: CodedError?
}

extension ReplyEnvelope: Encodable where Result: Encodable {}
extension ReplyEnvelope: Decodable where Result: Decodable {}

/// What clupd reads of a request before it knows the command: its name, the session and
/// whether it is the shell's own. A bare `{"<name>":{…}}`, as clupctl sent before sessions
/// existed, is read too.
public struct RequestHeader: Sendable, Equatable {
    public let name: String
    public let session: String?
    public let quiet: Bool
    /// What the caller says of itself, bounded and escaped; nil when it says nothing.
    public let caller: CallerClaim?
    /// Whether the command sits under `request` (false: a bare command).
    public let enveloped: Bool

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private struct Envelope: Decodable {
        let request: Named?
        let session: String?
        let quiet: Bool?
        let caller: CallerClaim?
    }

    /// The one key of an object.
    private struct Named: Decodable {
        let name: String
        init(from decoder: Decoder) throws {
            let keys = try decoder.container(keyedBy: AnyKey.self).allKeys
            guard keys.count == 1 else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a request names one command"))
            }
            name = keys[0].stringValue
        }
    }

    public static func read(_ data: Data) throws -> RequestHeader {
        let decoder = ControlCoding.decoder()
        let envelope = try decoder.decode(Envelope.self, from: data)
        if let request = envelope.request {
            return RequestHeader(name: request.name, session: envelope.session, quiet: envelope.quiet == true,
                                 caller: envelope.caller?.bounded(), enveloped: true)
        }
        return RequestHeader(name: try decoder.decode(Named.self, from: data).name, session: nil, quiet: false, caller: nil, enveloped: false)
    }

    /// The command itself, once the name said which type it is.
    public func command<Command: ControlCommand>(_ type: Command.Type, in data: Data) throws -> Command {
        let decoder = ControlCoding.decoder()
        let commands = enveloped ? try decoder.decode(RequestEnvelope<Command>.self, from: data).request
            : try decoder.decode([String: Command].self, from: data)
        guard let command = commands[Command.wireName] else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no \(Command.wireName) in the request"))
        }
        return command
    }
}

/// Text from outside shown in a summary: bounded, and nothing that could start a new line.
enum Summary {
    /// A word, with anything but letters, digits and `-_.` shown as `?`.
    static func word(_ text: String) -> String {
        String(text.prefix(40).map { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) ? $0 : "?" })
    }

    static func quoted(_ text: String) -> String {
        "\"" + String(text.prefix(60).map { $0 == "\"" || $0.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) ? "?" : $0 }) + "\""
    }
}
