import CLupCore
import CLupPrinting
import CLupStore
import Crypto
import Foundation
import CLupQR

/// `clup-bench`: how fast the totem's durable paths are on this machine. Run through
/// `scripts/bench`, which builds it in release mode.
///
/// Each figure is one SQLite transaction per command on a real file, WAL with
/// `synchronous=FULL`: the rate at which the totem can promise things to people.

func measure(_ label: String, count: Int, _ body: (Int) throws -> Void) rethrows {
    let start = DispatchTime.now().uptimeNanoseconds
    for index in 0..<count { try body(index) }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let perSecond = Double(count) / seconds
    print("\(label): \(Int(perSecond.rounded())) per second (\(count) in \(String(format: "%.2f", seconds)) s, "
          + "\(String(format: "%.2f", seconds / Double(count) * 1000)) ms each)")
}

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 2000
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clup-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

let day = BusinessDay("2026-11-21")
let start = Date()
let policy = QueuePolicy(capacity: 1_000_000)

do {
    let store = try TotemStore(path: directory.appendingPathComponent("commits.sqlite").path, deviceID: "bench")
    var state = DayState(businessDay: day)
    try measure("durable single-event commits (turnstile passage)", count: count) { index in
        let now = start.addingTimeInterval(Double(index))
        let events = state.pass(index % 2 == 0 ? .entry : .exit, door: "main", at: Moment(wall: now))
        try store.commit(events, state: state, at: now)
    }
}

do {
    let store = try TotemStore(path: directory.appendingPathComponent("tickets.sqlite").path, deviceID: "bench")
    let issuer = TicketIssuer(store: 1, totem: "A", validMinutes: 240, key: Curve25519.Signing.PrivateKey())
    var state = DayState(businessDay: day)
    try measure("tickets issued through core + store", count: count) { index in
        let now = start.addingTimeInterval(Double(index))
        let events = try state.issue(.regular, issuer: issuer, at: Moment(wall: now), policy: policy)
        try store.commit(events, state: state, at: now)
    }
}

do {
    let issuer = TicketIssuer(store: 1, totem: "A", validMinutes: 240, key: Curve25519.Signing.PrivateKey())
    let (ticket, _) = issuer.issue(.priority(.elderly), sequence: 42, businessDay: day, at: Moment(wall: start))
    let qr = try QRCode(encoding: ticket.code)
    print("a typical ticket's QR code: version \(qr.version) at level M, \(qr.size)x\(qr.size) modules, "
          + "\(ticket.code.count) characters")
}
