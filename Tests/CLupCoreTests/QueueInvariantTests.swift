import CLupCore
import Crypto
import Foundation
import XCTest

/// Long random command sequences against the queue rules; each invariant is its own test,
/// checked after every command of every sequence. Seeded, so a failure repeats exactly.
final class QueueInvariantTests: XCTestCase {
    static let sequences = 150
    static let commandsPerSequence = 400

    /// What a command was, for the invariants that concern one kind.
    enum Command: Sendable {
        case issue, print, settle, callNext, admit, entry, exit, correct
    }

    /// One command of a random sequence and the events it caused.
    struct Step {
        let before: DayState
        let after: DayState
        let events: [DomainEvent]
        let now: Date
        let policy: QueuePolicy
        let command: Command
    }

    /// A recorded random sequence: its policy, each command's events, and the final state.
    struct Run: Sendable {
        let policy: QueuePolicy
        let steps: [(command: Command, now: Date, events: [DomainEvent])]
        let final: DayState
    }

    /// The sequences are generated once (signing every ticket is the slow part) and each
    /// test walks them again by applying the recorded events.
    static let runs: [Run] = (0..<UInt64(sequences)).map(generate)

    static func generate(seed: UInt64) -> Run {
        var random = SeededGenerator(seed: seed)
        let policy = QueuePolicy(
            capacity: Int.random(in: 1...12, using: &random), priorityShare: [0, 0.1, 0.25, 0.5].randomElement(using: &random)!,
            agingBound: Double(Int.random(in: 5...40, using: &random)) * 60,
            presentationWindow: Double(Int.random(in: 1...10, using: &random)) * 60,
            passWindow: Double(Int.random(in: 10...120, using: &random)),
            bookingEarly: 600, bookingLate: 900, slotLength: 1800, bookingShare: 0.3)
        let key = Curve25519.Signing.PrivateKey()
        let issuer = TicketIssuer(store: 1, totem: "A", validMinutes: 240, key: key)
        let keyring = TicketKeyring(store: 1, keys: ["A": key.publicKey])
        var state = DayState(businessDay: BusinessDay("2026-11-21"))
        var now = Date(timeIntervalSince1970: 1_795_000_000)
        var steps: [(command: Command, now: Date, events: [DomainEvent])] = []
        for _ in 0..<commandsPerSequence {
            now = now.addingTimeInterval(Double(Int.random(in: 0...90, using: &random)))
            let events: [DomainEvent]
            let command: Command
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<20:
                command = .issue
                let lane: Lane = Int.random(in: 0..<5, using: &random) == 0 ? .priority : .regular
                events = (try? state.issue(lane == .priority ? .priority(.pregnant) : .regular, issuer: issuer, at: now, policy: policy)) ?? []
            case 20..<23:
                command = .issue
                let slot = Date(timeIntervalSince1970: 1_794_999_600 + 1800 * Double(Int.random(in: 0...8, using: &random)))
                events = (try? state.issue(.booking(slotStart: slot), issuer: issuer, at: now, policy: policy)) ?? []
            case 23..<40:
                command = .print
                if let ticket = state.tickets.values.filter({ $0.state == .printing }).randomElement(using: &random) {
                    events = Int.random(in: 0..<10, using: &random) == 0
                        ? state.recordPrintFailed(ticket.number, reason: "paper out")
                        : state.recordPrinted(ticket.number, job: 1)
                } else {
                    events = []
                }
            case 40..<55:
                command = .settle
                events = state.expireWindows(at: now, policy: policy) + state.callWhileRoom(at: now, policy: policy)
            case 55..<60:
                command = .callNext
                events = (try? state.callNext(at: now, policy: policy)) ?? []
            case 60..<75:
                command = .admit
                let code = state.tickets.values.randomElement(using: &random)?.code ?? "NONE"
                events = (try? state.admit(code: code, keyring: keyring, at: now, policy: policy)) ?? []
            case 75..<85:
                command = .entry
                events = state.pass(.entry, door: "main", at: now)
            case 85..<97:
                command = .exit
                events = state.pass(.exit, door: Bool.random(using: &random) ? "main" : "side", at: now)
            default:
                command = .correct
                events = (try? state.correct(door: "main", delta: Int.random(in: -3...3, using: &random),
                                             by: "tech", reason: "recount", at: now)) ?? []
            }
            steps.append((command, now, events))
        }
        return Run(policy: policy, steps: steps, final: state)
    }

    /// Walks every recorded sequence, handing each step to `check`, and to `atEnd` the state
    /// the commands left and the whole event log.
    func forEachStep(_ check: (Step) -> Void, atEnd: (DayState, [DomainEvent]) -> Void = { _, _ in }) {
        for run in Self.runs {
            var state = DayState(businessDay: run.final.businessDay)
            var log: [DomainEvent] = []
            for step in run.steps {
                let before = state
                for event in step.events { state.apply(event) }
                log += step.events
                check(Step(before: before, after: state, events: step.events, now: step.now, policy: run.policy,
                           command: step.command))
            }
            atEnd(run.final, log)
        }
    }

    func test_theSequencesExerciseEveryRule() {
        var counts: [String: Int] = [:]
        forEachStep { step in
            for event in step.events {
                counts[event.type, default: 0] += 1
                if case let .ticketAdmitted(number, _, _) = event, number.lane == .booking { counts["booking.admitted", default: 0] += 1 }
                if case let .ticketCalled(_, _, _, reason) = event { counts[String(reason.prefix(while: { $0 != ":" })), default: 0] += 1 }
            }
        }
        for kind in ["ticket.called", "ticket.no-show", "ticket.admitted", "ticket.admission-lapsed", "ticket.print-failed",
                     "booking.admitted",
                     "occupancy.passage", "occupancy.corrected", "aging", "priority", "arrival order"] {
            XCTAssertGreaterThan(counts[kind, default: 0], 10, "the random sequences rarely produce \(kind): \(counts)")
        }
    }

    func test_callsNeverExceedCapacity() {
        forEachStep { step in
            // Tailgaters and corrections are facts that may overfill the store; a call or an
            // admission never adds to it beyond capacity.
            var state = step.before
            for event in step.events {
                let occupied = state.occupied
                state.apply(event)
                switch event {
                case .ticketCalled, .ticketAdmitted:
                    if state.occupied > occupied {
                        XCTAssertLessThanOrEqual(state.occupied, step.policy.capacity, "\(event.type) over capacity")
                    }
                default:
                    break
                }
            }
        }
    }

    func test_eachLaneIsCalledInArrivalOrder() {
        forEachStep { step in
            var state = step.before
            for event in step.events {
                if case let .ticketCalled(number, _, _, _) = event {
                    let called = state.tickets[number]!
                    let earlier = state.waiting(in: called.lane).filter {
                        ($0.issuedAt, $0.number.sequence) < (called.issuedAt, called.number.sequence)
                    }
                    XCTAssertTrue(earlier.isEmpty, "\(number) called before \(earlier.map(\.number))")
                }
                state.apply(event)
            }
        }
    }

    func test_regularGoesBeforePriorityOnlyByTheAgingRule() {
        forEachStep { step in
            var state = step.before
            for event in step.events {
                if case let .ticketCalled(number, _, at, _) = event, number.lane == .regular,
                   !state.waiting(in: .priority).isEmpty {
                    let waited = at.timeIntervalSince(state.tickets[number]!.issuedAt)
                    XCTAssertGreaterThan(waited, step.policy.agingBound, "\(number) jumped priority without aging")
                }
                state.apply(event)
            }
        }
    }

    func test_thePriorityShareHolds() {
        forEachStep { step in
            var state = step.before
            for event in step.events {
                let reserve = state.priorityReserve(step.policy)
                state.apply(event)
                if case let .ticketCalled(number, _, _, _) = event, number.lane != .priority {
                    XCTAssertGreaterThanOrEqual(step.policy.capacity - state.occupied, reserve,
                                                "\(number) took a place kept for priority")
                }
            }
        }
    }

    func test_noNumberIsIssuedTwice() {
        forEachStep({ _ in }, atEnd: { state, log in
            let issued = log.compactMap { if case let .ticketIssued(ticket) = $0 { return ticket.number } else { return nil } }
            XCTAssertEqual(Set(issued).count, issued.count, "a number issued twice")
            for lane in Lane.allCases {
                let sequences = issued.filter { $0.lane == lane }.map(\.sequence)
                XCTAssertEqual(sequences, Array(1...max(1, sequences.count)).prefix(sequences.count).map { $0 },
                               "\(lane) numbers are not 1, 2, 3, …")
            }
            XCTAssertEqual(Set(state.tickets.values.map(\.code)).count, state.tickets.count, "two tickets share a code")
        })
    }

    func test_noShowExactlyAfterTheWindow() {
        forEachStep { step in
            for event in step.events {
                if case let .ticketNoShow(number, _, at) = event {
                    let calledAt = step.before.tickets[number]?.calledAt
                    XCTAssertNotNil(calledAt)
                    XCTAssertGreaterThanOrEqual(at, calledAt!.addingTimeInterval(step.policy.presentationWindow),
                                                "\(number) expired early")
                }
            }
            // After every expiry pass, no called ticket is past its window.
            if step.command == .settle {
                for ticket in step.after.tickets.values where ticket.state == .called {
                    XCTAssertLessThan(step.now, ticket.calledAt!.addingTimeInterval(step.policy.presentationWindow))
                }
            }
        }
    }

    func test_theLedgerEqualsTheSumOfItsEvents() {
        forEachStep({ _ in }, atEnd: { state, log in
            for door in ["main", "side"] {
                var entries = 0, exits = 0, corrections = 0
                for event in log {
                    switch event {
                    case let .passage(direction, eventDoor, _, _, _) where eventDoor == door:
                        if direction == .entry { entries += 1 } else { exits += 1 }
                    case let .occupancyCorrected(eventDoor, _, delta, _, _, _) where eventDoor == door:
                        corrections += delta
                    default: break
                    }
                }
                let ledger = state.ledger(door: door)
                XCTAssertEqual([ledger.entries, ledger.exits, ledger.corrections], [entries, exits, corrections], door)
                XCTAssertGreaterThanOrEqual(ledger.inside, 0)
            }
        })
    }

    func test_replayingTheEventsRebuildsTheState() {
        forEachStep({ _ in }, atEnd: { state, log in
            let replayed = DayState.replaying(log, businessDay: state.businessDay)
            // Compared part by part, so a failure names what differs.
            XCTAssertEqual(replayed.ledgers, state.ledgers)
            XCTAssertEqual(replayed.wait, state.wait)
            for (number, ticket) in state.tickets where replayed.tickets[number] != ticket {
                XCTFail("\(number): replayed \(String(describing: replayed.tickets[number])), state \(ticket)")
            }
            XCTAssertEqual(replayed.tickets.count, state.tickets.count)
            XCTAssertEqual(replayed, state)
        })
    }
}
