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

do {
    // The ticket's PDF as clupd lays it out on each tap (fonts shaped by Pango, the QR code,
    // the file written), the part of tap → job that is the totem's own work.
    let issuer = TicketIssuer(store: 1, totem: "A", validMinutes: 240, key: Curve25519.Signing.PrivateKey())
    let layout = TicketLayout(paper: .mm80)
    let path = directory.appendingPathComponent("ticket.pdf").path
    try measure("tickets laid out as PDF", count: max(1, count / 10)) { index in
        let (ticket, _) = issuer.issue(.regular, sequence: index + 1, businessDay: day, at: Moment(wall: start))
        let content = TicketContent(storeName: "CLup Market — Via Roma 12", number: "A-\(index + 1)", laneLabel: "Regular",
                                    issuedAt: "21 Nov 2026 10:42", estimatedWait: "About 12 minutes", code: ticket.code,
                                    instructions: ["Scan this ticket at the door when your number is called.",
                                                   "Scansiona il biglietto alla porta quando viene chiamato il tuo numero."])
        try layout.writePDF(content, to: path)
    }
}
