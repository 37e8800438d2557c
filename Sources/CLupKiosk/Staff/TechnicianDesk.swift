import CLupCore
import CLupProtocol
import CLupStore
import Crypto
import Foundation
import Logging

/// Who is logged in on the control socket. A technician logs in with a name and a secret
/// (kept as a salted scrypt hash); the session is a random token the client sends with each
/// request, good for the same Unix user only, until `idleSeconds` pass without a command or
/// clupd stops. Five wrong secrets lock the name for `lockSeconds`, also across restarts.
final class TechnicianDesk {
    struct Session {
        let name: String
        let uid: UInt32
        /// Where the login came from (`ControlServer.Peer.origin`), for the logout's entry.
        let origin: String
        /// Monotonic seconds of the last command.
        var lastUsed: Double
    }

    /// At most this many secrets are checked at once (scrypt takes 32 MiB each).
    static let maximumChecks = 2
    /// At most this many names are tracked for wrong secrets; unlocked ones make room.
    static let maximumTrackedNames = 1000

    var idleSeconds: Double
    var lockSeconds: Double
    private let store: TotemStore
    private let runtime: KioskRuntime
    private var loop: EventLoop { runtime.loop }
    private var clock: any Clock { runtime.clock }
    private var logger: Logger { runtime.logger }
    /// Keeps audit entries (in the event log, synced to the hub).
    private let record: ([AuditEntry]) -> Void
    /// "14:30" on the store's clock.
    private let timeOfDay: (Date) -> String
    /// Sessions by the SHA-256 of their token: the token itself is not kept.
    private var sessions: [String: Session] = [:]
    /// Why recent sessions ended, so that their next request is told.
    private var ended: [String: String] = [:]
    private var locks: [String: FailureLock] = [:]
    private var checking = 0
    /// Ends the session that goes idle first, when it does.
    private var sweepTimer: EventLoop.TimerID?

    init(store: TotemStore, control: ControlSettings, runtime: KioskRuntime,
         timeOfDay: @escaping (Date) -> String, record: @escaping ([AuditEntry]) -> Void) {
        self.store = store
        self.timeOfDay = timeOfDay
        self.runtime = runtime
        self.record = record
        idleSeconds = control.sessionIdleSeconds
        lockSeconds = control.loginLockSeconds
        let now = clock.now()
        let trail = (try? Kiosk.auditTrail(in: store, since: now.addingTimeInterval(-Kiosk.lockReplaySeconds))) ?? []
        for (entry, at) in trail where entry.role == .technician {
            locks[entry.who, default: FailureLock(lockSeconds: lockSeconds)]
                .replay(entry.action, at: at, refused: .loginRefused, locked: .nameLocked)
        }
        locks = locks.filter { $0.value.failures > 0 || $0.value.isLocked(at: now) }
    }

    /// The technician the message's session belongs to, if it is still on; a command counts
    /// as use unless it is the shell's own (`quiet`).
    func technician(for request: RequestHeader, peer: ControlServer.Peer) -> String? {
        guard let token = request.session, let key = Self.key(token), var session = sessions[key], session.uid == peer.uid else {
            return nil
        }
        let now = clock.monotonic()
        if now - session.lastUsed > idleSeconds {
            end(key, why: "idle \(Self.seconds(idleSeconds))")
            return nil
        }
        if !request.quiet {
            session.lastUsed = now
            sessions[key] = session
        }
        return session.name
    }

    /// Why a request that needs a technician has none: the session ended, or nobody logged in.
    func missingTechnician(for request: RequestHeader, summary: String) -> CodedError {
        if let token = request.session, let key = Self.key(token), let why = ended[key] {
            return CodedError(.sessionEnded, "your session ended (\(why)); log in again")
        }
        if request.session != nil {
            return CodedError(.sessionEnded, "your session is not known to this clupd (it restarted, or the session is another user's); log in again")
        }
        return CodedError(.loginRequired, "\(summary.split(separator: " ").first ?? "this") changes the totem: log in first (clupctl login NAME)")
    }

    /// Checks `secret` for `name` on a worker; the reply is the session's token.
    func login(name: String, secret: String, peer: ControlServer.Peer) throws -> PendingReply<LoginReply> {
        let now = clock.now()
        let name = String(name.prefix(TechnicianSecret.maximumName + 1))
        if let lock = locks[name], lock.isLocked(at: now), let until = lock.lockedUntil {
            record([AuditEntry(role: .technician, who: name, action: .loginRefused, result: "name locked until \(timeOfDay(until))",
                               uid: peer.uid, from: peer.origin)])
            throw CodedError(.nameLocked, "\(TypedText.inMessage(name)) is locked after \(FailureLock.maximumFailures) wrong secrets, until \(timeOfDay(until))")
        }
        guard checking < Self.maximumChecks else {
            throw CodedError(.tooManyConnections, "clupd is checking other logins; try again in a second")
        }
        let record = TechnicianSecret.problem(name: name) == nil ? try store.technician(name) : nil
        let hash = record.map { PinHash(kdf: $0.kdf, salt: $0.salt, hash: $0.secretHash) }
        let pending = PendingReply<LoginReply>("the login", seconds: 30)
        checking += 1
        loop.background({ () -> Bool in
            guard let hash else {
                PinHash.decoy(secret)   // the same work for a name nobody has
                return false
            }
            return hash.matches(secret)
        }) { [unowned self] right in
            checking -= 1
            pending.finish(Result { try checked(name: name, right: right, peer: peer) })
        }
        return pending
    }

    private func checked(name: String, right: Bool, peer: ControlServer.Peer) throws -> LoginReply {
        let now = clock.now()
        guard right else {
            var lock = locks[name] ?? FailureLock(lockSeconds: lockSeconds)
            var entries = [AuditEntry(role: .technician, who: name, action: .loginRefused, result: "wrong name or secret", uid: peer.uid,
                                      from: peer.origin)]
            let locked = lock.failed(at: now)
            if locked, let until = lock.lockedUntil {
                entries.append(AuditEntry(role: .technician, who: name, action: .nameLocked,
                                          result: "\(FailureLock.maximumFailures) wrong secrets; locked until \(timeOfDay(until))",
                                          uid: peer.uid, from: peer.origin))
                logger.warning("a technician name is locked after wrong secrets", metadata: ["name": "\(name)", "until": "\(timeOfDay(until))"])
            }
            if locks.count >= Self.maximumTrackedNames { locks = locks.filter { $0.value.isLocked(at: now) } }
            locks[name] = lock
            record(entries)
            if locked, let until = lock.lockedUntil {
                throw CodedError(.nameLocked, "wrong name or secret; \(TypedText.inMessage(name)) is now locked until \(timeOfDay(until))")
            }
            throw CodedError(.wrongSecret, "wrong name or secret (\(lock.failures) of \(FailureLock.maximumFailures) before the name is locked)")
        }
        locks[name] = nil
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        let token = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        guard let key = Self.key(token) else { throw CodedError(.internalError, "could not make a session") }
        sessions[key] = Session(name: name, uid: peer.uid, origin: peer.origin, lastUsed: clock.monotonic())
        armSweep()
        record([AuditEntry(role: .technician, who: name, action: .login, result: "ok", uid: peer.uid, from: peer.origin)])
        logger.notice("technician logged in", metadata: ["name": "\(name)", "uid": "\(peer.uid)"])
        return LoginReply(name: name, token: token, idleSeconds: Int(idleSeconds))
    }

    /// Ends the message's session, if it has one.
    func logout(_ request: RequestHeader, peer: ControlServer.Peer) -> String? {
        guard let token = request.session, let key = Self.key(token), let session = sessions[key], session.uid == peer.uid else { return nil }
        end(key, why: "logged out")
        return session.name
    }

    /// Ends the sessions idle too long, as they go idle (so the trail says when).
    private func sweep() {
        let now = clock.monotonic()
        for (key, session) in sessions where now - session.lastUsed > idleSeconds {
            _ = session
            end(key, why: "idle \(Self.seconds(idleSeconds))")
        }
        armSweep()
    }

    /// Sweeps again when the session used longest ago will have gone idle (if it is used
    /// meanwhile, the sweep ends nobody and waits for the next).
    private func armSweep() {
        loop.cancel(sweepTimer)
        let now = clock.monotonic()
        sweepTimer = sessions.values.map(\.lastUsed).min().map { lastUsed in
            // A millisecond past it: idle means longer than `idleSeconds`.
            loop.schedule(after: max(0, lastUsed + idleSeconds - now) + 0.001) { [unowned self] in sweep() }
        }
    }

    /// Ends every session of `name` (removed, or given a new secret).
    func endSessions(of name: String, why: String) {
        for (key, session) in sessions where session.name == name { end(key, why: why) }
    }

    private func end(_ key: String, why: String) {
        guard let session = sessions.removeValue(forKey: key) else { return }
        if ended.count > 100 { ended.removeAll() }
        ended[key] = why
        record([AuditEntry(role: .technician, who: session.name, action: .logout, result: why, uid: session.uid,
                           from: session.origin)])
    }

    func lockedUntil(_ name: String) -> Date? {
        locks[name].flatMap { $0.isLocked(at: clock.now()) ? $0.lockedUntil : nil }
    }

    func isLoggedIn(_ name: String) -> Bool { sessions.values.contains { $0.name == name } }

    private static func key(_ token: String) -> String? {
        guard (20...100).contains(token.utf8.count) else { return nil }
        return SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    private static func seconds(_ value: Double) -> String {
        value >= 120 && value.truncatingRemainder(dividingBy: 60) == 0 ? "\(Int(value / 60)) min" : "\(Int(value)) s"
    }
}
