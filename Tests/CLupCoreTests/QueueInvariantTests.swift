import CLupCore
import Foundation
import QueueSimulation
import XCTest

/// Long random walks through the store's days (`QueueWalk`), checked step by step against
/// an independent model of the rules and against the invariants below.
///
/// Reproducible: walk `i` starts from seed `base + i`, where `base` is 1, or
/// `CLUP_PROPERTY_SEED` (a number, or `random` to explore new walks; the base in use is
/// printed). A failure names its seed and step; `QueueWalk(seed: S)` replays it exactly.
final class QueueInvariantTests: XCTestCase {
    static let walkCount = 150

    static let baseSeed: UInt64 = {
        let text = ProcessInfo.processInfo.environment["CLUP_PROPERTY_SEED"] ?? "1"
        let seed = text == "random" ? UInt64.random(in: 1...UInt64(UInt32.max)) : UInt64(text) ?? 1
        print("QueueInvariantTests: walks from seed \(seed) (replay with CLUP_PROPERTY_SEED=\(seed))")
        return seed
    }()

    /// The walks are made once (signing every ticket is the slow part) and shared.
    static let walks: [QueueWalk] = (0..<UInt64(walkCount)).map { QueueWalk(seed: baseSeed &+ $0) }

    /// Calls `check` with every step of every walk and the walk's seed.
    func forEachStep(_ check: (QueueWalk.Step, QueueWalk) -> Void) {
        for walk in Self.walks {
            for step in walk.steps { check(step, walk) }
        }
    }

    func test_theRulesDoWhatTheModelSays() {
        let mismatches = Self.walks.flatMap(\.mismatches)
        XCTAssertEqual(mismatches.count, 0, "the first: \(mismatches.prefix(5).joined(separator: "\n"))")
    }

    func test_theWalksExerciseEveryRule() {
        var counts: [String: Int] = [:]
        var walksThatFilledTheStore = 0
        for walk in Self.walks {
            var filled = false
            for step in walk.steps {
                for event in step.events {
                    counts[event.type, default: 0] += 1
                    if case let .ticketAdmitted(number, _, _, _) = event, number.lane == .booking { counts["booking.admitted", default: 0] += 1 }
                    if case let .ticketCalled(_, _, _, reason, _) = event { counts[String(reason.prefix(while: { $0 != ":" })), default: 0] += 1 }
                    if case let .dayOpened(_, _, inside, tickets, _) = event {
                        if !tickets.isEmpty { counts["carried tickets", default: 0] += 1 }
                        if !inside.isEmpty { counts["carried people", default: 0] += 1 }
                    }
                }
                if let refusal = step.refusal { counts["refused " + String("\(refusal)".prefix { $0 != " " }), default: 0] += 1 }
                if step.command.hasPrefix("wall clock") { counts["wall clock stepped", default: 0] += 1 }
                if step.after.occupied >= walk.policy.capacity && step.after.queueLength > 0 { filled = true }
            }
            if filled { walksThatFilledTheStore += 1 }
        }
        for kind in ["ticket.called", "ticket.no-show", "ticket.admitted", "ticket.admission-lapsed", "ticket.print-failed",
                     "ticket.skipped", "ticket.voided", "refused E-Q-003", "refused E-Q-013",
                     "booking.admitted", "occupancy.passage", "occupancy.corrected", "day.opened", "carried tickets",
                     "carried people", "aging", "priority", "arrival order", "wall clock stepped",
                     "refused E-Q-001", "refused E-Q-002", "refused E-Q-004", "refused E-Q-005", "refused E-Q-006",
                     "refused E-Q-007", "refused E-Q-008", "refused E-Q-009", "refused E-Q-011", "refused E-DOOR-001",
                     "refused E-DOOR-002", "refused E-OCC-001", "refused E-OCC-004"] {
            XCTAssertGreaterThan(counts[kind, default: 0], 10, "the walks rarely produce \(kind): \(counts)")
        }
        XCTAssertGreaterThan(walksThatFilledTheStore, Self.walkCount * 3 / 4, "walks that filled the store with people waiting")
    }

    func test_callsNeverExceedCapacity() {
        forEachStep { step, walk in
            // Tailgaters and corrections are facts that may overfill the store; a call or an
            // admission never adds to it beyond capacity.
            var state = step.before.businessDay == step.after.businessDay ? step.before : DayState(businessDay: step.after.businessDay)
            for event in step.events {
                let occupied = state.occupied
                state.apply(event)
                switch event {
                case .ticketCalled, .ticketAdmitted:
                    if state.occupied > occupied {
                        XCTAssertLessThanOrEqual(state.occupied, walk.policy.capacity, "seed \(walk.seed) step \(step.index): \(event.type) over capacity")
                    }
                default:
                    break
                }
            }
        }
    }

    func test_eachLaneIsCalledInArrivalOrder() {
        forEachStep { step, walk in
            var state = step.before
            for event in step.events {
                if case let .ticketCalled(number, _, _, _, _) = event {
                    let called = state.tickets[number]!
                    let earlier = state.waiting(in: called.lane).filter {
                        ($0.issuedAt, $0.number.sequence) < (called.issuedAt, called.number.sequence)
                    }
                    XCTAssertTrue(earlier.isEmpty, "seed \(walk.seed) step \(step.index): \(number) called before \(earlier.map(\.number))")
                }
                state.apply(event)
            }
        }
    }

    func test_regularGoesBeforePriorityOnlyByTheAgingRule() {
        forEachStep { step, walk in
            var state = step.before
            for event in step.events {
                if case let .ticketCalled(number, _, _, _, _) = event, number.lane == .regular,
                   !state.waiting(in: .priority).isEmpty {
                    // Measured on the monotonic clock: a wall-clock step does not age anyone.
                    let waited = state.tickets[number]!.secondsSinceIssue(at: step.now)
                    XCTAssertGreaterThan(waited, walk.policy.agingBound, "seed \(walk.seed) step \(step.index): \(number) jumped priority without aging")
                }
                state.apply(event)
            }
        }
    }

    func test_thePriorityShareHolds() {
        forEachStep { step, walk in
            var state = step.before
            for event in step.events {
                let reserve = state.priorityReserve(walk.policy)
                state.apply(event)
                if case let .ticketCalled(number, _, _, _, _) = event, number.lane != .priority {
                    XCTAssertGreaterThanOrEqual(walk.policy.capacity - state.occupied, reserve,
                                                "seed \(walk.seed) step \(step.index): \(number) took a place kept for priority")
                }
            }
        }
    }

    func test_noNumberIsIssuedTwiceInADay() {
        for walk in Self.walks {
            for (day, log) in walk.logs {
                let issued = log.compactMap { if case let .ticketIssued(ticket) = $0 { return ticket.number } else { return nil } }
                let carried = log.flatMap { if case let .dayOpened(_, _, _, tickets, _) = $0 { return tickets.map(\.number) } else { return [] } }
                XCTAssertEqual(Set(issued + carried).count, issued.count + carried.count, "seed \(walk.seed) \(day): a number held twice")
                for lane in Lane.allCases {
                    let sequences = issued.filter { $0.lane == lane }.map(\.sequence)
                    XCTAssertEqual(sequences, sequences.sorted(), "seed \(walk.seed) \(day): \(lane) numbers out of order")
                    // The first number not held by a ticket carried over from the day before.
                    var first = 1
                    while carried.contains(TicketNumber(totem: "A", lane: lane, sequence: first)) { first += 1 }
                    XCTAssertEqual(sequences.first ?? first, first, "seed \(walk.seed) \(day): \(lane) numbers do not start again")
                }
            }
        }
    }

    func test_noShowExactlyAfterTheWindowOnTheMonotonicClock() {
        forEachStep { step, walk in
            for event in step.events {
                if case let .ticketNoShow(number, _, _) = event {
                    let called = step.before.tickets[number]
                    let waited = called?.secondsSinceCall(at: step.now)
                    XCTAssertNotNil(waited)
                    XCTAssertGreaterThanOrEqual(waited ?? 0, walk.policy.presentationWindow,
                                                "seed \(walk.seed) step \(step.index): \(number) expired early")
                }
            }
            // After every expiry pass, no called ticket is past its window.
            if step.command == "settle" {
                for ticket in step.after.tickets.values where ticket.state == .called {
                    XCTAssertLessThan(ticket.secondsSinceCall(at: step.now)!, walk.policy.presentationWindow,
                                      "seed \(walk.seed) step \(step.index): \(ticket.number) outlived its window")
                }
            }
        }
    }

    func test_theLedgerEqualsWhatCarriedOverPlusItsEvents() {
        for walk in Self.walks {
            let (day, log) = walk.logs.last!
            for door in ["main", "side"] {
                var carried = 0, entries = 0, exits = 0, corrections = 0
                for event in log {
                    switch event {
                    case let .dayOpened(_, _, inside, _, _): carried = inside[door] ?? 0
                    case let .passage(direction, eventDoor, _, _, _, _) where eventDoor == door:
                        if direction == .entry { entries += 1 } else { exits += 1 }
                    case let .occupancyCorrected(eventDoor, _, delta, _, _, _) where eventDoor == door:
                        corrections += delta
                    default: break
                    }
                }
                let ledger = walk.final.ledger(door: door)
                XCTAssertEqual([ledger.carried, ledger.entries, ledger.exits, ledger.corrections],
                               [carried, entries, exits, corrections], "seed \(walk.seed) \(day) \(door)")
                XCTAssertGreaterThanOrEqual(ledger.inside, 0)
            }
        }
    }

    func test_replayingEachDaysEventsRebuildsItsState() {
        for walk in Self.walks {
            let replayed = DayState.replaying(walk.logs.last!.events, businessDay: walk.final.businessDay)
            // Compared part by part, so a failure names what differs.
            XCTAssertEqual(replayed.ledgers, walk.final.ledgers, "seed \(walk.seed)")
            XCTAssertEqual(replayed.wait, walk.final.wait, "seed \(walk.seed)")
            for (number, ticket) in walk.final.tickets where replayed.tickets[number] != ticket {
                XCTFail("seed \(walk.seed) \(number): replayed \(String(describing: replayed.tickets[number])), state \(ticket)")
            }
            XCTAssertEqual(replayed, walk.final, "seed \(walk.seed)")
            // Every earlier day: its log rebuilds the state it had when the next day began.
            for step in walk.steps where step.before.businessDay != step.after.businessDay {
                let log = walk.logs.first { $0.day == step.before.businessDay }!.events
                XCTAssertEqual(DayState.replaying(log, businessDay: step.before.businessDay), step.before, "seed \(walk.seed) \(step.before.businessDay)")
            }
        }
    }
}
