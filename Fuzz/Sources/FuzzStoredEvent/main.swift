import CFuzzDriver
import CLupCore
import Crypto
import Foundation

/// Whatever bytes sit in an event row's payload, decoded as clupd decodes a stored event,
/// applied to a day with tickets in every state, and every figure and rule run on the
/// result: no stored event may stop clupd from starting (an earlier version stored a
/// correction of 2^63 - 1, and every start then trapped).
enum Fixture {
    // libFuzzer calls the target from one thread, so these are never shared across threads.
    nonisolated(unsafe) static let key = try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 9, count: 32))
    static let day = BusinessDay("2026-11-21")
    static let policy = QueuePolicy(capacity: 5, priorityShare: 0.2)
    static let now = Moment(wall: Date(timeIntervalSinceReferenceDate: 815_000_000), steady: SteadyTime(boot: "fuzz", seconds: 50))

    /// A day with tickets printing, waiting, called, admitted and entered.
    static let busy: DayState = {
        let issuer = TicketIssuer(store: 1, totem: "A", validMinutes: 240, key: key)
        let keyring = TicketKeyring(store: 1, keys: ["A": key.publicKey], ownTotem: "A")
        var state = DayState(businessDay: day)
        for _ in 0..<6 { _ = try? state.issue(.regular, issuer: issuer, at: now, policy: policy) }
        for ticket in state.tickets.values.sorted(by: { $0.number.sequence < $1.number.sequence }).dropFirst() {
            state.recordPrinted(ticket.number, job: 1)
        }
        state.callWhileRoom(at: now, policy: policy)
        if let called = state.tickets.values.first(where: { $0.state == .called }) {
            _ = try? state.admit(code: called.code, keyring: keyring, at: now, policy: policy)
        }
        return state
    }()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoredEvent(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    guard let event = try? JSONDecoder().decode(DomainEvent.self, from: Data(UnsafeBufferPointer(start: start, count: count))) else {
        return 0
    }
    var state = Fixture.busy
    state.apply(event)
    state.apply(event)
    _ = DayState.replaying([event], businessDay: event.businessDay)
    for now in [Fixture.now, Moment(wall: .distantFuture), Moment(wall: .distantPast)] {
        _ = (state.inside, state.occupied, state.promised, state.queueLength, state.priorityReserve(Fixture.policy))
        _ = state.nextCall(at: now, policy: Fixture.policy)
        _ = state.estimatedWait(for: .regular, at: now, policy: Fixture.policy, defaultMinutes: 10).description
        _ = state.secondsToNextExpiry(at: now, policy: Fixture.policy)
        var next = state
        next.expireWindows(at: now, policy: Fixture.policy)
        next.callWhileRoom(at: now, policy: Fixture.policy)
        next.pass(.entry, door: "main", at: now)
        _ = try? next.correct(door: "main", delta: -1, by: "fuzz", reason: "fuzz", at: now)
        var tomorrow = DayState(businessDay: BusinessDay("2026-11-22"))
        tomorrow.open(after: next, at: now, ticketValidity: 14_400)
        _ = tomorrow.occupied
    }
    return 0
}

/// With CLUP_FUZZ_WRITE_SEED=DIR, writes one stored event of each kind to DIR and exits:
/// the seeds from which the fuzzer mutates its way into every case.
if let directory = ProcessInfo.processInfo.environment["CLUP_FUZZ_WRITE_SEED"] {
    var state = Fixture.busy
    var events: [DomainEvent] = Array(state.tickets.values.map { DomainEvent.ticketIssued($0) }.prefix(1))
    events += state.pass(.entry, door: "main", at: Fixture.now) + state.pass(.exit, door: "side", at: Fixture.now)
    events += (try? state.correct(door: "main", delta: 2, by: "tech", reason: "recount", at: Fixture.now)) ?? []
    let inOrder = state.tickets.values.sorted { $0.number.sequence < $1.number.sequence }
    if let called = inOrder.first(where: { $0.state == .called }) {
        events += (try? state.skip(number: called.number, by: "tech", at: Fixture.now)) ?? []
    }
    if let waiting = inOrder.first(where: { $0.state == .waiting }) {
        events += (try? state.void(number: waiting.number, by: "tech", reason: "ticket lost", at: Fixture.now)) ?? []
    }
    events += state.expireWindows(at: Moment(wall: .distantFuture), policy: Fixture.policy)
    events += state.callWhileRoom(at: Fixture.now, policy: Fixture.policy)
    var tomorrow = DayState(businessDay: BusinessDay("2026-11-22"))
    events += tomorrow.open(after: Fixture.busy, at: Fixture.now, ticketValidity: 14_400)
    events.append(.doorLimitApplied(DoorLimit(limit: 3, version: 7), businessDay: Fixture.day, at: Fixture.now.wall))
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    for (index, event) in events.enumerated() {
        guard let data = try? encoder.encode(event),
              FileManager.default.createFile(atPath: "\(directory)/\(index)-\(event.type)", contents: data) else { exit(1) }
    }
    exit(0)
}
exit(clup_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, { fuzzStoredEvent($0, $1) }))
