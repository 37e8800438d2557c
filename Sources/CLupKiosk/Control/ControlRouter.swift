import CLupCore
import CLupProtocol
import Foundation
import Logging

/// Routes each control command to its handler, the way Hummingbird routes a path: a feature
/// registers `router.on(Control.Queue.self) { command, context in … }` and its handler must
/// return that command's `Reply`, which is what clupctl's `send` returns.
///
/// The router applies the rules every command shares, before and after its handler: a
/// command that changes the totem needs a logged-in technician; what is not a routine read
/// goes into the audit trail with its outcome; clupd's log names every command but the
/// shell's own (never with a secret: it logs the summary).
final class ControlRouter {
    /// Who asked, as a handler sees it.
    struct Context {
        /// The technician logged in on the request's session, if any.
        let technician: String?
        /// The process at the other end, as the kernel vouches for it.
        let peer: ControlServer.Peer
        /// The request's session token and whether it is the shell's own.
        let header: RequestHeader

        /// Whom a change is recorded under: the technician, else the Unix user.
        var who: String { technician ?? peer.userName }
    }

    /// A handler's answer: the reply now, or later when slow work is done.
    enum Answer<Reply: Encodable> {
        case now(Reply)
        case later(PendingReply<Reply>)
    }

    /// How the router learns who is logged in and keeps the trail; the daemon's technician
    /// desk and audit trail stand behind it.
    struct Policy {
        /// The technician on `header`'s session (a use of it unless the request is quiet).
        var technician: (RequestHeader, ControlServer.Peer) -> String?
        /// Why a command that needs a technician has none (`summary`: the command).
        var missingTechnician: (RequestHeader, _ summary: String) -> CodedError
        /// Whether `peer` may send the command `name` with nobody logged in: root adds the
        /// first technician before there is anyone to log in.
        var bootstrap: (_ name: String, ControlServer.Peer) -> Bool
        /// Keeps a command in the trail: its summary, who, and the outcome (or the error).
        var audit: (_ summary: String, _ technician: String?, ControlServer.Peer, Result<String, Error>) -> Void
    }

    private typealias Route = (Data, RequestHeader, ControlServer.Peer) throws -> ControlAnswer
    private var routes: [String: Route] = [:]
    private let policy: Policy
    private let logger: Logger

    init(policy: Policy, logger: Logger) {
        self.policy = policy
        self.logger = logger
    }

    /// The names of the commands routed, for the test that every command has a handler.
    var routedNames: Set<String> { Set(routes.keys) }

    /// Routes `Command` to `handler`, answered at once.
    func on<Command: ControlCommand>(_ type: Command.Type, _ handler: @escaping (Command, Context) throws -> Command.Reply) {
        later(type) { command, context in .now(try handler(command, context)) }
    }

    /// Routes `Command` to `handler`, which may answer later (a device waited for).
    func later<Command: ControlCommand>(_ type: Command.Type, _ handler: @escaping (Command, Context) throws -> Answer<Command.Reply>) {
        precondition(routes[Command.wireName] == nil, "\(Command.wireName) is routed twice")
        routes[Command.wireName] = { [unowned self] data, header, peer in
            try answer(try header.command(Command.self, in: data), header: header, peer: peer, handler: handler)
        }
    }

    /// Answers one request's bytes from `peer`: the reply's line, now or later.
    func answer(_ body: Data, from connected: ControlServer.Peer) -> ControlAnswer {
        let refusal = ControlCoding.failure(CodedError(.requestNotUnderstood, "not a control request this clupd understands"))
        guard let header = try? RequestHeader.read(body), let route = routes[header.name] else { return .now(refusal) }
        var peer = connected
        peer.claim = header.caller
        do {
            return try route(body, header, peer)
        } catch is DecodingError {
            return .now(refusal)
        } catch {
            return .now(ControlCoding.failure(CodedError(describing: error)))
        }
    }

    private func answer<Command: ControlCommand>(_ command: Command, header: RequestHeader, peer: ControlServer.Peer,
                                                 handler: (Command, Context) throws -> Answer<Command.Reply>) throws -> ControlAnswer {
        let summary = command.summary
        if !header.quiet {
            logger.info("control: \(summary)", metadata: ["uid": "\(peer.uid)", "pid": "\(peer.pid)"])
        }
        let context = Context(technician: policy.technician(header, peer), peer: peer, header: header)
        // Routine reads and the shell's own requests leave no trace; logins and logouts are
        // kept where they are decided.
        let audited = Command.trail == .kept && !(header.quiet && !Command.needsTechnician)
        let audit = { [policy] (outcome: Result<String, Error>) in
            if audited { policy.audit(summary, context.technician, peer, outcome) }
        }
        let answer: Answer<Command.Reply>
        do {
            if Command.needsTechnician, context.technician == nil, !policy.bootstrap(Command.wireName, peer) {
                throw policy.missingTechnician(header, summary)
            }
            answer = try handler(command, context)
        } catch {
            audit(.failure(error))
            throw error
        }
        switch answer {
        case let .now(reply):
            audit(.success(Command.auditOutcome(of: reply)))
            return .now(try ControlCoding.success(reply))
        case let .later(pending):
            pending.observe { audit($0.map(Command.auditOutcome)) }
            return .later(pending)
        }
    }
}

/// The callers refused for want of permission and when each was last kept in the trail:
/// once a minute per Unix user at most, so a loop of refused calls does not flood the log.
final class RefusedCallers {
    private var lastKept: [UInt32: Double] = [:]

    /// Whether the refusal of `uid` at `now` (monotonic seconds) goes into the trail.
    func due(_ uid: UInt32, now: Double) -> Bool {
        if let last = lastKept[uid], now - last < 60 { return false }
        if lastKept.count > 100 { lastKept.removeAll() }
        lastKept[uid] = now
        return true
    }
}

extension KioskOutcome {
    /// As the control socket answers it: the refusal thrown, else what it did, the ticket,
    /// and the screen now showing.
    func reply(screen: String) throws -> SimulationReply {
        if let refusal { throw refusal }
        return SimulationReply(outcome: sentence, screen: screen, ticket: ticket?.description)
    }
}
