import CLupCore
import Foundation
import XCTest

/// Long random command sequences against the queue rules; each invariant is its own test,
/// checked after every command of every sequence. Seeded, so a failure repeats exactly.
final class QueueInvariantTests: XCTestCase {
    static let sequences = 150
    static let commandsPerSequence = 400

    /// One command of a random sequence and the events it caused.
    struct Step {
        let before: DayState
        let after: DayState
        let events: [DomainEvent]
        let now: Date
        let policy: QueuePolicy
    }

    /// Runs every random sequence, handing each step to `check`.
    func forEachStep(_ check: (Step) -> Void, atEnd: (DayState, [DomainEvent]) -> Void = { _, _ in }) {
        for seed in 0..<UInt64(Self.sequences) {
            var random = SeededGenerator(seed: seed)
            let policy = QueuePolicy(
                capacity: Int.random(in: 1...12, using: &random), priorityShare: [0, 0.1, 0.25, 0.5].randomElement(using: &random)!,
                agingBound: Double(Int.random(in: 5...40, using: &random)) * 60,
                presentationWindow: Double(Int.random(in: 1...10, using: &random)) * 60,
                bookingEarly: 600, bookingLate: 900, slotLength: 1800, bookingShare: 0.3)
            let issuer = TicketIssuer(store: 1, totem: "A", validMinutes: 240)
            let day = BusinessDay("2026-11-21")
            var state = DayState(businessDay: day)
            var now = Date(timeIntervalSince1970: 1_795_000_000)
            var log: [DomainEvent] = []
            for _ in 0..<Self.commandsPerSequence {
                let before = state
                now = now.addingTimeInterval(Double(Int.random(in: 0...90, using: &random)))
                var events: [DomainEvent] = []
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<20:
                    let lane: Lane = Int.random(in: 0..<5, using: &random) == 0 ? .priority : .regular
                    events = (try? state.issue(lane: lane, issuer: issuer, at: now, policy: policy)) ?? []
                case 20..<23:
                    let slot = Date(timeIntervalSince1970: 1_795_000_000 + 1800 * Double(Int.random(in: 0...8, using: &random)))
                    events = (try? state.issue(lane: .booking, issuer: issuer, at: now, slotStart: slot, policy: policy)) ?? []
                case 23..<40:
                    if let ticket = state.tickets.values.filter({ $0.state == .printing }).randomElement(using: &random) {
                        events = Int.random(in: 0..<10, using: &random) == 0
                            ? state.recordPrintFailed(ticket.number, reason: "paper out")
                            : state.recordPrinted(ticket.number, job: 1)
                    }
                case 40..<55:
                    events = state.expireNoShows(at: now, policy: policy) + state.callWhileRoom(at: now, policy: policy)
                case 55..<60:
                    events = (try? state.callNext(at: now, policy: policy)) ?? []
                case 60..<75:
                    let code = state.tickets.values.randomElement(using: &random)?.code ?? "NONE"
                    events = (try? state.admit(code: code, at: now, policy: policy)) ?? []
                case 75..<85:
                    events = state.pass(.entry, door: "main", at: now)
                case 85..<97:
                    events = state.pass(.exit, door: Bool.random(using: &random) ? "main" : "side", at: now)
                default:
                    events = (try? state.correct(door: "main", delta: Int.random(in: -3...3, using: &random),
                                                 by: "tech", reason: "recount", at: now)) ?? []
                }
                log += events
                check(Step(before: before, after: state, events: events, now: now, policy: policy))
            }
            atEnd(state, log)
        }
    }

    func test_callsNeverExceedCapacity() {
        forEachStep { step in
            var state = step.before
            for event in step.events {
                state.apply(event)
                if case .ticketCalled = event {
                    XCTAssertLessThanOrEqual(state.occupied, step.policy.capacity, "a call over capacity")
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
            // After an expiry pass, no called ticket is past its window.
            if step.events.contains(where: { if case .ticketNoShow = $0 { return true } else { return false } }) {
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
