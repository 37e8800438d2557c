import CLupCore
import Crypto
import Foundation

/// A long random walk through the store's days, reproducible from its seed: tickets issued
/// and printed (or not), calls, scans at the door (genuine, used, forged), passages at two
/// doors, technicians' skips and voids, corrections, wall-clock steps and day rollovers.
/// Every command runs on `DayState` and on `QueueModel` side by side; where they disagree,
/// `mismatches` says so with the seed and the step, so `QueueWalk(seed:)` replays it exactly.
public struct QueueWalk: Sendable {
    /// What one step did.
    public struct Step: Sendable {
        public let index: Int
        public let command: String
        public let now: Moment
        /// The state before the step (of the day it ran on).
        public let before: DayState
        /// The state after the step; after a rollover, the new day's.
        public let after: DayState
        /// The events the step caused, all of `after`'s day.
        public let events: [DomainEvent]
        public let refusal: Refusal?
    }

    public let seed: UInt64
    public let policy: QueuePolicy
    public private(set) var steps: [Step] = []
    public private(set) var mismatches: [String] = []
    /// The event log of each day the walk went through, in order.
    public private(set) var logs: [(day: BusinessDay, events: [DomainEvent])] = []
    /// The last day's state when the walk ended.
    public private(set) var final: DayState

    /// Walks `commands` steps from `seed`.
    public init(seed: UInt64, commands: Int = 400) {
        self.init(seed: seed, commands: commands, observe: { _ in })
    }

    /// Walks `commands` steps from `seed`; `observe` sees each step as it happens (to commit
    /// it to a store, say).
    public init(seed: UInt64, commands: Int = 400, observe: (Step) throws -> Void) rethrows {
        self.seed = seed
        var random = SeededGenerator(seed: seed)
        policy = QueuePolicy(
            capacity: Int.random(in: 1...12, using: &random), priorityShare: [0, 0.1, 0.25, 0.5].randomElement(using: &random)!,
            agingBound: Double(Int.random(in: 5...40, using: &random)) * 60,
            presentationWindow: Double(Int.random(in: 1...10, using: &random)) * 60,
            passWindow: Double(Int.random(in: 10...120, using: &random)),
            bookingEarly: 600, bookingLate: 900, slotLength: 1800, bookingShare: 0.3)
        let validMinutes: UInt16 = 240
        let key = Curve25519.Signing.PrivateKey(seed: seed)
        let issuer = TicketIssuer(store: 1, totem: "A", validMinutes: validMinutes, key: key)
        let keyring = TicketKeyring(store: 1, keys: ["A": key.publicKey], ownTotem: "A")
        let forger = TicketIssuer(store: 1, totem: "A", validMinutes: validMinutes, key: Curve25519.Signing.PrivateKey(seed: ~seed))
        var dayNumber = 21
        var state = DayState(businessDay: BusinessDay("2026-11-\(dayNumber)"))
        var model = QueueModel(policy: policy, validity: Double(validMinutes) * 60, day: state.businessDay)
        var wall = Date(timeIntervalSince1970: 1_795_000_000)
        var steady = 10_000.0
        final = state
        logs = [(state.businessDay, [])]

        for index in 0..<commands {
            let elapsed = Double(Int.random(in: 0...90, using: &random))
            wall.addTimeInterval(elapsed)
            steady += elapsed
            var now = Moment(wall: wall, steady: SteadyTime(boot: "walk", seconds: steady))
            let before = state
            var events: [DomainEvent] = []
            var refusal: Refusal?
            var command: String
            var expected: Refusal?
            /// Runs a command that may be refused, and checks the refusal is the one expected.
            func attempt(_ run: (inout DayState) throws(Refusal) -> [DomainEvent]) {
                do {
                    events += try run(&state)
                } catch {
                    refusal = error
                }
                if refusal != expected {
                    mismatches.append("seed \(seed) step \(index) \(command): expected "
                        + "\(expected.map { "\($0)" } ?? "success"), got \(refusal.map { "\($0)" } ?? "success")")
                }
            }
            let ordered = state.tickets.values.sorted { $0.number.description < $1.number.description }
            switch Int.random(in: 0..<1000, using: &random) {
            case 0..<170:
                let lane: Lane = Int.random(in: 0..<5, using: &random) == 0 ? .priority : .regular
                command = "issue \(lane)"
                let number = model.nextNumber(totem: "A", lane: lane)
                expected = nil
                attempt { state throws(Refusal) in
                    try state.issue(lane == .priority ? .priority(.pregnant) : .regular, issuer: issuer, at: now, policy: policy)
                }
                if case let .ticketIssued(ticket)? = events.first {
                    if ticket.number != number { mismatches.append("seed \(seed) step \(index): issued \(ticket.number), expected \(number)") }
                    model.issued(ticket, at: now)
                }
            case 170..<200:
                let slot = Date(timeIntervalSince1970: wall.timeIntervalSince1970 - wall.timeIntervalSince1970
                    .truncatingRemainder(dividingBy: 1800) + 1800 * Double(Int.random(in: -1...6, using: &random))
                    + (Int.random(in: 0..<20, using: &random) == 0 ? 60 : 0))
                command = "book \(slot)"
                expected = model.bookingRefusal(slot: slot)
                attempt { state throws(Refusal) in try state.issue(.booking(slotStart: slot), issuer: issuer, at: now, policy: policy) }
                if case let .ticketIssued(ticket)? = events.first { model.issued(ticket, at: now) }
            case 200..<370:
                let printing = ordered.filter { $0.state == .printing }
                guard let ticket = printing.isEmpty ? nil : printing[Int.random(in: 0..<printing.count, using: &random)] else {
                    command = "print (nothing printing)"
                    break
                }
                let fails = Int.random(in: 0..<10, using: &random) == 0
                command = "print \(ticket.number)\(fails ? " fails" : "")"
                events = fails ? state.recordPrintFailed(ticket.number, reason: "paper out") : state.recordPrinted(ticket.number, job: 1)
                model.printed(ticket.number, fails: fails)
            case 370..<520:
                command = "settle"
                events = state.expireWindows(at: now, policy: policy)
                model.expire(at: now)
                events += settleCalls(&state, &model, at: now, index: index)
            case 520..<570:
                command = "call next"
                model.expire(at: now)
                events = state.expireWindows(at: now, policy: policy)
                expected = model.callRefusal(at: now)
                let predicted = model.nextCall(at: now)
                attempt { state throws(Refusal) in try state.callNext(at: now, policy: policy) }
                if case let .ticketCalled(number, _, _, _, _)? = events.last {
                    if number != predicted?.number {
                        mismatches.append("seed \(seed) step \(index): called \(number), expected \(String(describing: predicted?.number))")
                    }
                    model.call(number, at: now)
                }
            case 570..<720:
                let code: String
                switch Int.random(in: 0..<10, using: &random) {
                case 0: code = "NOT A TICKET"
                case 1:
                    code = forger.issue(.regular, sequence: 1, businessDay: state.businessDay, at: now).0.code
                default: code = ordered.isEmpty ? "" : ordered[Int.random(in: 0..<ordered.count, using: &random)].code
                }
                command = "scan \(code.prefix(12))…"
                expected = model.admitRefusal(code: code, keyring: keyring, at: now)
                attempt { state throws(Refusal) in try state.admit(code: code, keyring: keyring, at: now, policy: policy) }
                if refusal == nil { model.admit(code: code, at: now) }
            case 720..<840:
                command = "pass in"
                events = state.pass(.entry, door: "main", at: now)
                model.pass(.entry, door: "main")
            case 840..<940:
                let door = Bool.random(using: &random) ? "main" : "side"
                command = "pass out at \(door)"
                events = state.pass(.exit, door: door, at: now)
                model.pass(.exit, door: door)
            case 940..<950:
                // A technician frees the place of a called ticket whose holder did not come;
                // now and then of another ticket, or of a number never issued.
                let called = ordered.filter { $0.state == .called }
                let number: TicketNumber = if !called.isEmpty, Int.random(in: 0..<4, using: &random) != 0 {
                    called[Int.random(in: 0..<called.count, using: &random)].number
                } else if !ordered.isEmpty, Int.random(in: 0..<10, using: &random) != 0 {
                    ordered[Int.random(in: 0..<ordered.count, using: &random)].number
                } else {
                    TicketNumber(totem: "A", lane: .regular, sequence: 9_999)
                }
                command = "skip \(number)"
                expected = model.skipRefusal(number)
                attempt { state throws(Refusal) in try state.skip(number: number, by: "tech", at: now) }
                if refusal == nil { model.skip(number) }
            case 950..<960:
                // A technician voids a ticket, now and then without a reason or of a number
                // never issued.
                let number = ordered.isEmpty || Int.random(in: 0..<20, using: &random) == 0
                    ? TicketNumber(totem: "A", lane: .regular, sequence: 9_999)
                    : ordered[Int.random(in: 0..<ordered.count, using: &random)].number
                let reason = Int.random(in: 0..<10, using: &random) == 0 ? "  " : "customer left the queue"
                command = "void \(number)\(reason == "  " ? " without a reason" : "")"
                expected = model.voidRefusal(number, reason: reason)
                attempt { state throws(Refusal) in try state.void(number: number, by: "tech", reason: reason, at: now) }
                if refusal == nil { model.void(number) }
            case 960..<980:
                let delta = Int.random(in: 0..<10, using: &random) == 0 ? Int.random(in: -20_000...20_000, using: &random)
                    : Int.random(in: -3...3, using: &random)
                command = "correct \(delta)"
                expected = model.correctionRefusal(door: "main", delta: delta)
                attempt { state throws(Refusal) in try state.correct(door: "main", delta: delta, by: "tech", reason: "recount", at: now) }
                if refusal == nil { model.correct(door: "main", delta: delta) }
            case 980..<990:
                // The wall clock is set right (or wrong) by an hour; the monotonic one runs on.
                let step = Bool.random(using: &random) ? 3600.0 : -3600.0
                wall.addTimeInterval(step)
                now = Moment(wall: wall, steady: now.steady)
                command = "wall clock stepped \(step) s"
            default:
                dayNumber += 1
                let next = BusinessDay("2026-11-\(dayNumber)")
                command = "roll over to \(next)"
                var opened = DayState(businessDay: next)
                events = opened.open(after: state, at: now, ticketValidity: Double(validMinutes) * 60)
                state = opened
                model.rollOver(to: next, at: now)
                logs.append((next, []))
            }
            logs[logs.count - 1].events += events
            let step = Step(index: index, command: command, now: now, before: before, after: state, events: events, refusal: refusal)
            steps.append(step)
            try observe(step)
            compare(state, model, at: index, command: command)
        }
        final = state
    }

    /// Calls while there is room, checking each call is the one the model predicts.
    private mutating func settleCalls(_ state: inout DayState, _ model: inout QueueModel, at now: Moment, index: Int) -> [DomainEvent] {
        let events = state.callWhileRoom(at: now, policy: policy)
        for event in events {
            guard case let .ticketCalled(number, _, _, _, _) = event else { continue }
            let predicted = model.nextCall(at: now)?.number
            if number != predicted {
                mismatches.append("seed \(seed) step \(index): settle called \(number), expected \(String(describing: predicted))")
            }
            model.call(number, at: now)
        }
        if let left = model.nextCall(at: now) {
            mismatches.append("seed \(seed) step \(index): settle left \(left.number) uncalled with room for it")
        }
        return events
    }

    private mutating func compare(_ state: DayState, _ model: QueueModel, at index: Int, command: String) {
        func mismatch(_ what: String) { mismatches.append("seed \(seed) step \(index) (\(command)): \(what)") }
        if state.occupied != model.occupied { mismatch("occupied \(state.occupied), model \(model.occupied)") }
        if state.inside != model.inside { mismatch("inside \(state.inside), model \(model.inside)") }
        if state.queueLength != model.waitingCount { mismatch("waiting \(state.queueLength), model \(model.waitingCount)") }
        if state.tickets.count != model.tickets.count { mismatch("\(state.tickets.count) tickets, model \(model.tickets.count)") }
        for ticket in model.tickets where state.tickets[ticket.number]?.state != ticket.state {
            mismatch("\(ticket.number) is \(String(describing: state.tickets[ticket.number]?.state)), model \(ticket.state)")
        }
        for (door, count) in model.doors where state.ledger(door: door).count != count {
            mismatch("door \(door) counts \(state.ledger(door: door).count), model \(count)")
        }
    }
}

extension Curve25519.Signing.PrivateKey {
    /// A key made from `seed`, so a walk signs the same codes every time it is replayed.
    public init(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let bytes = (0..<4).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } }
        // 32 bytes always make an Ed25519 key.
        try! self.init(rawRepresentation: bytes)
    }
}
