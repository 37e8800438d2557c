import CLupCore
import Crypto
import Foundation
import QueueSimulation
import XCTest

/// Who is first in a door's line: printed tickets (their totem's clock off the hub's, as its
/// sync measured) and places taken from phones (the hub's clock), to the millisecond, by one
/// rule; and the places ahead of each are the calls the door makes before it.
final class LineOrderTests: XCTestCase {
    let day = BusinessDay("2026-11-25")
    let start = Date(timeIntervalSince1970: 1_795_000_000)
    let hubKey = Curve25519.Signing.PrivateKey()
    let issuer = TicketIssuer(store: 7, totem: "A", validMinutes: 240, key: Curve25519.Signing.PrivateKey())
    let policy = QueuePolicy(capacity: 1, priorityShare: 0, agingBound: 3 * 3600, presentationWindow: 5 * 60, bookingShare: 0)

    func join(_ sequence: Int, at hubTime: Date) -> RemoteJoin {
        let number = TicketNumber(totem: "A", lane: .remote, sequence: sequence)
        let payload = TicketPayload(store: 7, remote: number, joinedAt: hubTime, validMinutes: 600)
        return RemoteJoin(number: number, joinedAt: hubTime.timeIntervalSince1970, code: TicketCode.make(payload, signedWith: hubKey))
    }

    func test_aTicketPrintedInTheSameSecondAfterAPhonesPlaceComesAfterIt() throws {
        var state = DayState(businessDay: day)
        state.open(after: nil, at: Moment(wall: start), ticketValidity: 4 * 3600)
        // The phone's place is taken at .300 on the hub's clock; the ticket is printed at .700
        // by a totem whose clock is 0.2 s ahead of the hub's: .500 on the hub's clock, after it.
        state.takeRemote([join(1, at: start.addingTimeInterval(0.3))], left: [], totem: "A", validity: 3600,
                         at: Moment(wall: start.addingTimeInterval(1)))
        let printedAt = Moment(wall: start.addingTimeInterval(0.7), hubOffset: 0.2)
        guard case let .ticketIssued(ticket)? = try state.issue(.regular, issuer: issuer, at: printedAt, policy: policy).first else {
            return XCTFail("no ticket")
        }
        state.recordPrinted(ticket.number, job: 1)
        XCTAssertEqual(ticket.issuedAt, start, "the printed time stays whole seconds, as its code says")
        XCTAssertEqual(ticket.takenAt.map(LineOrder.milliseconds), LineOrder.milliseconds(start) + 500)
        XCTAssertEqual(state.line.map(\.number.description), ["AR-001", "A-001"])
        XCTAssertEqual(state.placesAhead(of: TicketNumber("AR-001")!), 0)
        XCTAssertEqual(state.placesAhead(of: ticket.number), 1)
    }

    func test_inTheSameMillisecondThePrintedTicketComesFirst() {
        let printed = LineOrder.Place(number: TicketNumber("A-004")!, takenAt: start)
        let phone = LineOrder.Place(number: TicketNumber("AR-001")!, takenAt: start.addingTimeInterval(0.0004))
        XCTAssertTrue(LineOrder.precedes(printed, phone))
        XCTAssertFalse(LineOrder.precedes(phone, printed))
        XCTAssertEqual(LineOrder.ahead(of: phone, priorityWaiting: 2, line: [phone, printed]), 3)
    }

    func test_aDateThatIsNoTimeIsNoTrap() {
        XCTAssertEqual(LineOrder.milliseconds(Date(timeIntervalSince1970: .infinity)), 0)
        XCTAssertEqual(LineOrder.milliseconds(Date(timeIntervalSince1970: .nan)), 0)
        XCTAssertEqual(LineOrder.milliseconds(Date(timeIntervalSince1970: 1e300)), 9_000_000_000_000_000)
    }

    /// 300 random lines: tickets printed (regular and priority) by a totem whose clock is up
    /// to 2 s off the hub's, places taken from phones, crowded into three seconds so that
    /// many share a second and some a millisecond. For every ticket in the line, the places
    /// it is told are ahead of it are exactly the tickets the door calls before it.
    func test_thePlacesAheadOfEveryTicketAreTheCallsTheDoorMakesBeforeIt() throws {
        var generator = SeededGenerator(seed: 4040)
        for round in 0..<300 {
            var state = DayState(businessDay: day)
            state.open(after: nil, at: Moment(wall: start), ticketValidity: 4 * 3600)
            let offset = Double(Int.random(in: -2000...2000, using: &generator)) / 1000
            var remote = 0
            for _ in 0..<Int.random(in: 2...12, using: &generator) {
                let millisecond = [0, 0, 1, 500, 999, Int.random(in: 0...999, using: &generator)].randomElement(using: &generator)!
                let hubTime = start.addingTimeInterval(Double(Int.random(in: 0...2, using: &generator)) + Double(millisecond) / 1000)
                switch Int.random(in: 0..<10, using: &generator) {
                case 0..<4:
                    remote += 1
                    state.takeRemote([join(remote, at: hubTime)], left: [], totem: "A", validity: 3600, at: Moment(wall: start.addingTimeInterval(5)))
                default:
                    let request: TicketRequest = Bool.random(using: &generator) || remote == 0 ? .regular : .priority(.elderly)
                    let events = try state.issue(request, issuer: issuer, at: Moment(wall: hubTime.addingTimeInterval(offset), hubOffset: offset),
                                                 policy: policy)
                    guard case let .ticketIssued(ticket)? = events.first else { return XCTFail("no ticket") }
                    state.recordPrinted(ticket.number, job: 1)
                }
            }
            let told = Dictionary(uniqueKeysWithValues: state.line.map { ($0.number, state.placesAhead(of: $0.number)) })
            // The door calls one at a time (a place for one): each call's window runs out before the next.
            var calls: [TicketNumber] = []
            var now = Moment(wall: start.addingTimeInterval(10))
            while let (ticket, _) = state.nextCall(at: now, policy: policy) {
                try state.callNext(at: now, policy: policy)
                calls.append(ticket.number)
                now = Moment(wall: now.wall.addingTimeInterval(policy.presentationWindow + 1))
                state.expireWindows(at: now, policy: policy)
            }
            for (number, ahead) in told {
                XCTAssertEqual(ahead, calls.firstIndex(of: number), "round \(round): \(number) in the calls \(calls)")
            }
        }
    }
}
