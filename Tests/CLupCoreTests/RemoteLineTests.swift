import CLupCore
import Crypto
import Foundation
import XCTest

/// Places in a door's line taken from a phone: signed by the hub, taken into the totem's
/// line by the time the hub took them, called and admitted like printed tickets.
final class RemoteLineTests: XCTestCase {
    let day = BusinessDay("2026-11-25")
    let start = Date(timeIntervalSince1970: 1_795_000_000)
    let totemKey = Curve25519.Signing.PrivateKey()
    let hubKey = Curve25519.Signing.PrivateKey()
    var issuer: TicketIssuer { TicketIssuer(store: 7, totem: "A", validMinutes: 240, key: totemKey) }
    var keyring: TicketKeyring {
        TicketKeyring(store: 7, keys: ["A": totemKey.publicKey, TicketPayload.hubLetter: hubKey.publicKey], ownTotem: "A")
    }
    let policy = QueuePolicy(capacity: 2, priorityShare: 0, agingBound: 3 * 3600, presentationWindow: 5 * 60, bookingShare: 0)

    func at(_ minutes: Double) -> Moment { Moment(wall: start.addingTimeInterval(minutes * 60)) }

    /// Place `sequence` of door A's line, taken by the hub `minutes` after the start.
    func join(_ sequence: Int, minutes: Double, door: Character = "A", key: Curve25519.Signing.PrivateKey? = nil) -> RemoteJoin {
        let number = TicketNumber(totem: door, lane: .remote, sequence: sequence)
        let joined = start.addingTimeInterval(minutes * 60)
        let payload = TicketPayload(store: 7, remote: number, joinedAt: joined, validMinutes: 600)
        return RemoteJoin(number: number, joinedAt: joined.timeIntervalSince1970, code: TicketCode.make(payload, signedWith: key ?? hubKey))
    }

    func printed(_ state: inout DayState, minutes: Double) throws -> TicketNumber {
        guard case let .ticketIssued(ticket)? = try state.issue(.regular, issuer: issuer, at: at(minutes), policy: policy).first else {
            throw Refusal.nobodyWaiting
        }
        state.recordPrinted(ticket.number, job: 1)
        return ticket.number
    }

    func take(_ state: inout DayState, _ joins: [RemoteJoin], left: Set<TicketNumber> = [], minutes: Double) -> [DomainEvent] {
        state.takeRemote(joins, left: left, totem: "A", validity: 600 * 60, at: at(minutes))
    }

    func test_aHubSignedRemoteCodeIsReadBackAndOnlyTheHubsKeyVerifiesIt() throws {
        let place = join(4, minutes: 0)
        XCTAssertEqual(place.number.description, "AR-004")
        let payload = try keyring.verify(place.code, at: at(1).wall)
        XCTAssertEqual(payload.number, place.number)
        XCTAssertEqual(payload.signer, TicketPayload.hubLetter)
        XCTAssertEqual(payload.issuedAt, start)
        // The same place signed by the door's own totem key is not the hub's word.
        XCTAssertThrowsError(try keyring.verify(join(4, minutes: 0, key: totemKey).code, at: at(1).wall)) {
            XCTAssertEqual($0 as? Refusal, .forged)
        }
        // A stale code (its ten hours past) is refused as expired, not forged.
        XCTAssertThrowsError(try keyring.verify(place.code, at: start.addingTimeInterval(600 * 60 + 1))) {
            XCTAssertEqual($0 as? Refusal, .expired("AR-004"))
        }
        // A door that has not heard the hub's key yet says so.
        let without = TicketKeyring(store: 7, keys: ["A": totemKey.publicKey], ownTotem: "A")
        XCTAssertThrowsError(try without.verify(place.code, at: at(1).wall)) {
            XCTAssertEqual($0 as? Refusal, .unknownTotem(TicketPayload.hubLetter))
        }
        // The remote lane in a totem's version (1) is refused, and so is a version-3 payload in another lane.
        var bytes = TicketPayload(store: 7, remote: place.number, joinedAt: start, validMinutes: 600).encoded()
        bytes[0] = TicketPayload.currentVersion
        XCTAssertThrowsError(try TicketPayload(decoding: bytes)) { XCTAssertEqual($0 as? TicketPayload.DecodingError, .letterOfTheOtherIssuer) }
        bytes = TicketPayload(store: 7, number: TicketNumber(totem: "A", lane: .regular, sequence: 4), issuedAt: start, validMinutes: 600).encoded()
        bytes[0] = TicketPayload.remoteVersion
        XCTAssertThrowsError(try TicketPayload(decoding: bytes)) { XCTAssertEqual($0 as? TicketPayload.DecodingError, .letterOfTheOtherIssuer) }
        XCTAssertEqual(TicketNumber("AR-004"), place.number)
    }

    func test_joinsAreTakenOnceForThisDoorOnlyAndALeftPlaceIsVoided() throws {
        var state = DayState(businessDay: day)
        state.open(after: nil, at: at(0), ticketValidity: 4 * 3600)
        let joins = [join(1, minutes: 1), join(2, minutes: 2), join(1, minutes: 1, door: "B")]
        XCTAssertEqual(take(&state, joins, minutes: 3).count, 2, "door B's place is not this door's")
        XCTAssertEqual(take(&state, joins, minutes: 4).count, 0, "the same list again changes nothing")
        XCTAssertEqual(state.line.map(\.number.description), ["AR-001", "AR-002"])
        XCTAssertEqual(state.tickets[joins[0].number]?.state, .waiting)
        // Left from the phone: voided by "app", out of the line; said again, nothing more.
        let left = take(&state, joins, left: [joins[0].number], minutes: 5)
        guard case let .ticketVoided(number, _, _, who, _)? = left.first, left.count == 1 else { return XCTFail("\(left)") }
        XCTAssertEqual(number, joins[0].number)
        XCTAssertEqual(who, DayState.remoteLeaver)
        XCTAssertEqual(take(&state, joins, left: [joins[0].number], minutes: 6).count, 0)
        XCTAssertEqual(state.line.map(\.number.description), ["AR-002"])
        // A place older than a ticket's validity is not taken (the hub's list from another day).
        var later = DayState(businessDay: BusinessDay("2026-11-26"))
        later.open(after: nil, at: at(24 * 60), ticketValidity: 4 * 3600)
        XCTAssertEqual(later.takeRemote([join(3, minutes: 0)], left: [], totem: "A", validity: 600 * 60, at: at(24 * 60)).count, 0)
    }

    func test_aRemotePlaceIsCalledInItsTurnAndAdmittedOnceAtTheDoor() throws {
        var state = DayState(businessDay: day)
        state.open(after: nil, at: at(0), ticketValidity: 4 * 3600)
        // The store is full: two printed tickets called and gone in.
        for minutes in [0.0, 0.5] {
            let number = try printed(&state, minutes: minutes)
            try state.callNext(at: at(minutes), policy: policy)
            XCTAssertFalse(try state.admit(code: state.tickets[number]!.code, keyring: keyring, at: at(minutes), policy: policy).isEmpty)
            state.pass(.entry, door: "main", at: at(minutes))
        }
        let early = try printed(&state, minutes: 1)
        let place = join(1, minutes: 2)
        let late = try printed(&state, minutes: 3)
        _ = take(&state, [place], minutes: 3.5)
        XCTAssertThrowsError(try state.admit(code: place.code, keyring: keyring, at: at(4), policy: policy)) {
            XCTAssertEqual($0 as? Refusal, .notCalledYet("AR-001"))
        }
        var called: [TicketNumber] = []
        for minutes in [5.0, 6.0, 7.0] {
            state.pass(.exit, door: "main", at: at(minutes))
            for case let .ticketCalled(number, _, _, _, _) in state.callWhileRoom(at: at(minutes), policy: policy) { called.append(number) }
            if let number = called.last, number == place.number {
                XCTAssertFalse(try state.admit(code: place.code, keyring: keyring, at: at(minutes), policy: policy).isEmpty)
                XCTAssertThrowsError(try state.admit(code: place.code, keyring: keyring, at: at(minutes), policy: policy)) {
                    XCTAssertEqual($0 as? Refusal, .alreadyUsed("AR-001"))
                }
                state.pass(.entry, door: "main", at: at(minutes))
            } else if let number = called.last {
                XCTAssertFalse(try state.admit(code: state.tickets[number]!.code, keyring: keyring, at: at(minutes), policy: policy).isEmpty)
                state.pass(.entry, door: "main", at: at(minutes))
            }
        }
        XCTAssertEqual(called, [early, place.number, late], "called in the order the places were taken")
        XCTAssertEqual(state.tickets[place.number]?.state, .entered)
    }

    /// Printed and remote places interleaved over a day, the remote ones reaching the totem
    /// late (a totem offline for a while, then the hub's list at once), while the store is
    /// full: the called order is the order the places were taken.
    func test_interleavedPlacesAreCalledInTheOrderTheyWereTaken() throws {
        var state = DayState(businessDay: day)
        state.open(after: nil, at: at(0), ticketValidity: 12 * 3600)
        var generator = SplitMix(seed: 29)
        var taken: [TicketNumber] = []
        var pending: [RemoteJoin] = []
        var called: [TicketNumber] = []
        var remote = 0
        var minutes = 0.0
        // Fill the store first, so that nobody is called until people leave.
        for _ in 0..<2 {
            let number = try printed(&state, minutes: minutes)
            try state.callNext(at: at(minutes), policy: policy)
            _ = try state.admit(code: state.tickets[number]!.code, keyring: keyring, at: at(minutes), policy: policy)
            state.pass(.entry, door: "main", at: at(minutes))
        }
        for step in 0..<400 {
            minutes += 0.25
            switch generator.next() % 5 {
            case 0, 1:
                taken.append(try printed(&state, minutes: minutes))
            case 2, 3:
                remote += 1
                let place = join(remote, minutes: minutes)
                taken.append(place.number)
                pending.append(place)
            default:
                // The hub's list reaches the door (not while the totem is cut off, steps 100 to 180)
                // before someone leaves, as the totem hears the hub within seconds while a visit lasts minutes.
                if !(100..<180).contains(step) || pending.count > 40 {
                    _ = take(&state, pending, minutes: minutes)
                    pending = []
                    state.pass(.exit, door: "main", at: at(minutes))
                    for case let .ticketCalled(number, _, _, _, _) in state.callWhileRoom(at: at(minutes), policy: policy) {
                        called.append(number)
                        _ = try state.admit(code: state.tickets[number]!.code, keyring: keyring, at: at(minutes), policy: policy)
                        state.pass(.entry, door: "main", at: at(minutes))
                    }
                }
            }
        }
        XCTAssertGreaterThan(called.count, 50)
        XCTAssertGreaterThan(called.filter { $0.lane == .remote }.count, 20)
        XCTAssertGreaterThan(called.filter { $0.lane == .regular }.count, 20)
        XCTAssertEqual(called, Array(taken.prefix(called.count)))
        print("report: fair order: \(taken.count) places taken (\(remote) from phones), \(called.count) called "
              + "(\(called.filter { $0.lane == .remote }.count) from phones), in the order taken")
    }

    /// A place its holder gave up from their phone is refused at the door as such, not as a
    /// ticket staff voided; one staff voided is refused as that (issue 40).
    func test_aPlaceLeftFromThePhoneIsRefusedAtTheDoorAsLeftNotAsVoidedByStaff() throws {
        var state = DayState(businessDay: day)
        state.open(after: nil, at: at(0), ticketValidity: 4 * 3600)
        var joins = [join(1, minutes: 1), join(2, minutes: 2)]
        joins[0].language = "fr"
        _ = take(&state, joins, minutes: 3)
        XCTAssertEqual(state.tickets[joins[0].number]?.language, "fr", "the language it was taken in")
        _ = take(&state, joins, left: [joins[0].number], minutes: 4)
        _ = try state.void(number: joins[1].number, by: "tess", reason: "asked to", at: at(5))
        XCTAssertThrowsError(try state.admit(code: joins[0].code, keyring: keyring, at: at(6), policy: policy)) {
            XCTAssertEqual($0 as? Refusal, .leftTheLine("AR-001"))
            XCTAssertEqual(($0 as? Refusal)?.coded.code, "E-DOOR-010")
        }
        XCTAssertThrowsError(try state.admit(code: joins[1].code, keyring: keyring, at: at(6), policy: policy)) {
            XCTAssertEqual($0 as? Refusal, .voided("AR-002"))
        }
        // A language that is no language code makes the hub's list refused, not a ticket.
        var odd = join(3, minutes: 7)
        odd.language = "français"
        var document = StoreSettingsDocument(version: 2, capacity: 10, priorityShare: 0, bookingShare: 0)
        document.remoteTickets = [odd]
        XCTAssertEqual(document.problem, "remote ticket AR-003's language is not a language code")
    }

    /// A door's line as the hub sends it (`GET /v1/line`) is input like any other: bounded,
    /// places from phones only, the left ones parsed. Taken whole again (as after a restart)
    /// it adds nothing.
    func test_aDoorsLineIsCheckedAndTakingItAgainAddsNothing() throws {
        let line = DoorLine(version: 3, remoteTickets: [join(1, minutes: 1), join(2, minutes: 2)], leftRemote: ["AR-002"])
        XCTAssertNil(line.problem)
        XCTAssertEqual(line.leftNumbers, [TicketNumber(totem: "A", lane: .remote, sequence: 2)])
        var state = DayState(businessDay: day)
        state.open(after: nil, at: at(0), ticketValidity: 4 * 3600)
        let first = take(&state, line.remoteTickets, left: line.leftNumbers, minutes: 3)
        XCTAssertEqual(first.map(\.type), ["ticket.issued"], "AR-002 left before it reached the door")
        XCTAssertEqual(take(&state, line.remoteTickets, left: line.leftNumbers, minutes: 4), [], "the same line again")

        var printed = line
        printed.remoteTickets[0].number = TicketNumber(totem: "A", lane: .regular, sequence: 1)
        XCTAssertEqual(printed.problem, "A-001 is not a place in a door's line taken from a phone")
        var badLeft = line
        badLeft.leftRemote = ["A-001"]
        XCTAssertEqual(badLeft.problem, "\"A-001\" is not a place taken from a phone")
        var crowded = line
        crowded.leftRemote = Array(repeating: "AR-002", count: StoreSettingsDocument.maximumListCount + 1)
        XCTAssertEqual(crowded.problem, "\(StoreSettingsDocument.maximumListCount + 1) tickets in a list of a door's line; at most "
                       + "\(StoreSettingsDocument.maximumListCount)")
        var called = line
        called.calledAtOtherDoors = ["B-001", "B-0x1"]
        XCTAssertEqual(called.problem, "\"B-0x1\" is not a ticket number")
        called.calledAtOtherDoors = ["B-001"]
        XCTAssertEqual(called.calledElsewhere, [TicketNumber(totem: "B", lane: .regular, sequence: 1)])
        var negative = line
        negative.version = -1
        XCTAssertEqual(negative.problem, "line version -1 is below zero")
        let decoded = try JSONDecoder().decode(DoorLine.self, from: JSONEncoder().encode(line))
        XCTAssertEqual(decoded, line)
    }

    /// The door's part of the capacity on its line is checked as the settings' is; of a part
    /// from the line and one from the settings, the one given later is in force; a line from
    /// a hub that sends none reads as none.
    func test_aDoorsPartOnItsLineIsCheckedAndTheNewerPartIsInForce() throws {
        var line = DoorLine(version: 3, remoteTickets: [], leftRemote: [], doorLimit: DoorLimit(limit: 4, version: 12))
        XCTAssertNil(line.problem)
        line.doorLimit = DoorLimit(limit: StoreSettingsDocument.maximumDoorLimit + 1, version: 12)
        XCTAssertEqual(line.problem, "door limit \(StoreSettingsDocument.maximumDoorLimit + 1) is outside ±\(StoreSettingsDocument.maximumDoorLimit)")
        line.doorLimit = DoorLimit(limit: 4, version: 0)
        XCTAssertEqual(line.problem, "door limit version 0")
        let older = DoorLimit(limit: 4, version: 12), newer = DoorLimit(limit: 2, version: 13)
        XCTAssertEqual(DoorLimit.newer(older, newer), newer)
        XCTAssertEqual(DoorLimit.newer(newer, older), newer)
        XCTAssertEqual(DoorLimit.newer(nil, older), older)
        XCTAssertNil(DoorLimit.newer(nil, nil))
        let fromOldHub = try JSONDecoder().decode(DoorLine.self, from: Data(#"{"version":2,"remoteTickets":[],"leftRemote":[],"calledAtOtherDoors":[],"usedAtOtherDoors":[]}"#.utf8))
        XCTAssertNil(fromOldHub.doorLimit)
    }
}

/// A small seeded generator, so a failing order can be run again.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
