import CFuzzDriver
import CLupCore
import CLupProtocol
import Foundation

/// Whatever bytes a totem (or anyone with its key) uploads, read as the hub reads a batch:
/// by `JSONScanner` first, by `JSONDecoder` where it gives up. The scanner may give up on
/// anything, but what it reads must be exactly what `JSONDecoder` reads: the same batch, and
/// the same event in each payload.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventBatch(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = UnsafeBufferPointer(start: start, count: count)
    if let scanned = EventBatch.scanned(bytes) {
        guard let decoded = try? JSONDecoder().decode(EventBatch.self, from: Data(bytes)) else {
            fatalError("the scanner read a batch JSONDecoder refuses")
        }
        precondition(scanned == decoded, "the scanner read another batch than JSONDecoder")
        for event in scanned.events { check(event.payload) }
    }
    // The input as one event's payload, too.
    if let payload = String(validating: bytes, as: UTF8.self) { check(payload) }
    return 0
}

func check(_ payload: String) {
    guard let scanned = EventCoding.scanned(payload) else { return }
    guard let decoded = try? EventCoding.decodedByFoundation(payload) else {
        fatalError("the scanner read an event JSONDecoder refuses: \(payload.prefix(200))")
    }
    precondition(scanned == decoded, "the scanner read another event than JSONDecoder: \(payload.prefix(200))")
}

/// A batch like clupd's (passages, a ticket called and admitted, a door report, the health),
/// written to `file`.
func writeSeed(to file: String) -> Bool {
    let day = BusinessDay("2026-11-25")
    let at = Date(timeIntervalSinceReferenceDate: 817_300_000.5)
    let number = TicketNumber(totem: "A", lane: .regular, sequence: 7)
    let steady = SteadyTime(boot: "5c1d4b7e", seconds: 812.25)
    let events: [DomainEvent] = [
        .passage(direction: .entry, door: "main", businessDay: day, at: at, ticket: number, steady: steady),
        .passage(direction: .exit, door: "main", businessDay: day, at: at, ticket: nil),
        .ticketPrinted(number, businessDay: day, job: 12),
        .ticketCalled(number, businessDay: day, at: at, reason: "a place is \"free\"", steady: steady),
        .ticketAdmitted(number, businessDay: day, at: at),
        .ticketLeft(number, businessDay: day, at: at),
    ]
    let uploaded = events.enumerated().map { index, event in
        UploadedEvent(seq: Int64(index + 1), wallTime: 1_795_607_200.5, type: event.type, payload: (try? EventCoding.payload(event)) ?? "")
    }
    let batch = EventBatch(events: uploaded, outboxDepth: 3, clockOffset: -0.25, door: DoorReport(held: 4, waiting: 2, seq: 6),
                           health: TotemHealth(devices: [.init(role: "printer", state: "ok", detail: "ready")], printer: "ok"))
    guard let data = try? JSONEncoder().encode(batch) else { return false }
    return FileManager.default.createFile(atPath: file, contents: data)
}

/// With CLUP_FUZZ_WRITE_SEED=FILE, writes the seed batch to FILE and exits.
if let file = ProcessInfo.processInfo.environment["CLUP_FUZZ_WRITE_SEED"] { exit(writeSeed(to: file) ? 0 : 1) }
exit(clup_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, { fuzzEventBatch($0, $1) }))
