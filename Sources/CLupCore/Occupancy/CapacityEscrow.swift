/// How the hub shares a store's capacity among its doors so that doors cut off from the
/// hub, each admitting on its own, can never together go over capacity.
///
/// Each door's totem gets a *limit*: it calls and admits only while the places it holds
/// (people in by its door less those out by it, plus its tickets called or admitted) are
/// fewer than the limit. A door people mostly leave by holds fewer than none, and its limit
/// may be below zero too: the doors' places add up to the people in the store. The hub keeps, per door, a *reservation*: the
/// most places that door can hold whatever it has done since the hub last heard from it.
/// New limits are handed out only from capacity no reservation covers, so the sum of the
/// doors' places never exceeds capacity.
///
/// A door's reservation is the largest of:
/// - the places it last reported holding (a door whose limit was lowered below what it
///   held keeps those until people leave, but takes no one new);
/// - the limit last sent to it;
/// - while a limit sent is not yet known to be in force (its settings-applied event, and a
///   report made after it, have not reached the hub): every limit it may still be using,
///   the last one confirmed and every one sent since.
///
/// A lowered limit therefore frees places only once the door confirms it: places move
/// from a door with room to spare to one where people wait in two steps, each safe.
public enum CapacityEscrow {
    /// What the hub knows of one door's totem.
    public struct Door: Hashable, Codable, Sendable {
        public let name: String
        /// The places the door last reported holding, and the seq of its log when it did.
        public var held: Int
        public var heldSeq: Int64
        /// Tickets waiting in the door's queue, as last reported.
        public var waiting: Int
        /// The last limit sent, with its settings version (0: none sent yet).
        public var issuedLimit: Int
        public var issuedVersion: Int64
        /// The largest limit sent since the last confirmed one.
        public var outstandingMax: Int
        /// The last limit the door confirmed, its version, and the seq of the event that did.
        public var confirmedLimit: Int
        public var confirmedVersion: Int64
        public var confirmedSeq: Int64

        public init(name: String, held: Int = 0, heldSeq: Int64 = 0, waiting: Int = 0, issuedLimit: Int = 0,
                    issuedVersion: Int64 = 0, outstandingMax: Int = 0, confirmedLimit: Int = 0, confirmedVersion: Int64 = 0,
                    confirmedSeq: Int64 = 0) {
            self.name = name
            self.held = held
            self.heldSeq = heldSeq
            self.waiting = waiting
            self.issuedLimit = issuedLimit
            self.issuedVersion = issuedVersion
            self.outstandingMax = outstandingMax
            self.confirmedLimit = confirmedLimit
            self.confirmedVersion = confirmedVersion
            self.confirmedSeq = confirmedSeq
        }

        /// Whether the last limit sent is known to be in force, with a report made after it.
        public var isSettled: Bool {
            confirmedVersion >= issuedVersion && heldSeq >= confirmedSeq
        }

        /// The most places this door can hold, whatever it did since the hub heard from it.
        public var reservation: Int {
            isSettled ? max(held, issuedLimit) : max(held, issuedLimit, outstandingMax, confirmedLimit)
        }

        /// The door reported its figures as of `seq` in its log; an older report than one
        /// already held changes nothing.
        public mutating func report(held: Int, waiting: Int, atSeq seq: Int64) {
            guard seq >= heldSeq else { return }
            self.held = held
            self.waiting = max(0, waiting)
            heldSeq = seq
        }

        /// The door's log says it put `limit` of `version` in force at `seq`. A newer version
        /// of the limit it already confirmed keeps the seq of that first confirmation: the
        /// limit has been in force since, and a report made after it still settles the door.
        public mutating func confirmed(limit: Int, version: Int64, atSeq seq: Int64) {
            guard version > confirmedVersion else { return }
            if !confirmsAgain(limit) { confirmedSeq = seq }
            confirmedLimit = limit
            confirmedVersion = version
        }

        /// Whether `limit`, confirmed in a newer version, is the last limit sent, which the
        /// door had already confirmed (`DoorShares.confirm` says the same in SQL).
        func confirmsAgain(_ limit: Int) -> Bool {
            confirmedVersion > 0 && confirmedVersion >= issuedVersion && confirmedLimit == limit && limit == issuedLimit
        }

        /// The hub sends `limit` in `version`.
        public mutating func issue(_ limit: Int, version: Int64) {
            outstandingMax = isSettled ? max(issuedLimit, limit) : max(outstandingMax, issuedLimit, limit)
            issuedLimit = limit
            issuedVersion = version
        }
    }

    /// The limits to send now: for each door (same order), its new limit, or nil to leave
    /// it as it is. Nothing changes while the limits in force are fair: every door has room
    /// for the people waiting at it, or no other door has room to spare, and no capacity is
    /// left unshared.
    public static func plan(capacity: Int, doors: [Door]) -> [Int?] {
        guard !doors.isEmpty else { return [] }
        let reserved = doors.map(\.reservation).saturatingSum()
        let unshared = capacity.subtractingSaturating(reserved)
        // The room each door has left, against its fair part of all the room there is (in
        // proportion to the people waiting): a door short of its part while another has
        // more than its part and more than it needs is worth moving places for.
        let room = doors.map { max(0, $0.issuedLimit.subtractingSaturating($0.held)) }
        let fair = share(room.saturatingSum(), among: doors.map(\.waiting))
        // (or, with nobody waiting, under half its part).
        let short = doors.indices.contains {
            doors[$0].isSettled && room[$0] < fair[$0] && (doors[$0].waiting > room[$0] || 2 * room[$0] < fair[$0])
        }
        let spare = doors.indices.contains { room[$0] > fair[$0] && room[$0] > doors[$0].waiting }
        let unplanned = doors.contains { $0.issuedVersion == 0 }
        guard unshared != 0 || (short && spare) || unplanned else { return doors.map { _ in nil } }

        // The ideal: every settled door keeps what it holds and the free places go first to
        // where people wait, the rest evenly. Doors still settling keep their reservation.
        let settled = doors.indices.filter { doors[$0].isSettled }
        let fixed = doors.indices.filter { !doors[$0].isSettled }.map { doors[$0].reservation }.saturatingSum()
        let base = doors.map(\.held)
        let free = max(0, capacity.subtractingSaturating(fixed).subtractingSaturating(settled.map { base[$0] }.saturatingSum()))
        let shares = share(free, among: settled.map { doors[$0].waiting })
        var target = Array(repeating: 0, count: doors.count)
        for (position, index) in settled.enumerated() { target[index] = base[index].addingSaturating(shares[position]) }

        // Lowering first: a lowered door keeps its old reservation until it confirms.
        var plan: [Int?] = doors.map { _ in nil }
        var next = doors
        // Newer than any version a door may have confirmed (the store's version).
        let version = doors.map { max($0.issuedVersion, $0.confirmedVersion) }.max().map { $0 + 1 } ?? 1
        for index in settled where target[index] < doors[index].issuedLimit {
            plan[index] = target[index]
            next[index].issue(target[index], version: version)
        }
        // Then raising, from what no reservation covers, where people wait first.
        var budget = capacity.subtractingSaturating(next.map(\.reservation).saturatingSum())
        let raising = settled.filter { target[$0] > doors[$0].issuedLimit }
            .sorted { (doors[$0].waiting, doors[$1].name) > (doors[$1].waiting, doors[$0].name) }
        for index in raising where budget > 0 {
            let before = next[index].reservation
            let limit = min(target[index], max(doors[index].issuedLimit, base[index]).addingSaturating(budget))
            guard limit > doors[index].issuedLimit else { continue }
            next[index].issue(limit, version: version)
            budget = budget.subtractingSaturating(next[index].reservation - before)
            plan[index] = limit
        }
        // A door new to the hub is told its limit, even when it is none yet.
        for index in doors.indices where doors[index].issuedVersion == 0 && plan[index] == nil {
            plan[index] = doors[index].issuedLimit
        }
        return plan
    }

    /// `places` shared among doors with `waiting` people each: first up to what each needs,
    /// in proportion when there is not enough, then what is left evenly; remainders go to
    /// the first doors.
    static func share(_ places: Int, among waiting: [Int]) -> [Int] {
        guard !waiting.isEmpty, places > 0 else { return waiting.map { _ in 0 } }
        let need = waiting.map { max(0, $0) }
        let totalNeed = need.saturatingSum()
        var given: [Int]
        if totalNeed >= places {
            given = need.map { Int((Double($0) * Double(places) / Double(totalNeed)).rounded(.down)) }
        } else {
            given = need
        }
        var left = places - given.reduce(0, +)
        let evenly = totalNeed >= places ? 0 : left / need.count
        if evenly > 0 {
            given = given.map { $0 + evenly }
            left -= evenly * need.count
        }
        var index = 0
        while left > 0 {
            if totalNeed < places || need[index] > given[index] {
                given[index] += 1
                left -= 1
            }
            index = (index + 1) % need.count
        }
        return given
    }
}
