import CFuzzDriver
import CLupCore
import Crypto
import Foundation

/// Whatever the door reader passes on as a ticket code, checked as the door checks it.
/// Besides not crashing: Base45 is canonical (what decodes encodes back to the same text),
/// and the only text the keyring accepts is the one code the totem's key made for that
/// payload, so no mutation of a genuine ticket (or anything else) gets anyone in.
enum Fixture {
    // libFuzzer calls the target from one thread, so these are never shared across threads.
    nonisolated(unsafe) static let key = try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 7, count: 32))
    nonisolated(unsafe) static let keyring = TicketKeyring(store: 42, keys: ["A": key.publicKey])
    static let issuedAt = Date(timeIntervalSinceReferenceDate: 815_000_000)
    static let now = issuedAt.addingTimeInterval(60)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTicketCode(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    if let bytes = try? Base45.decode(text), Base45.encode(bytes) != text {
        fatalError("Base45 is not canonical: \(text.debugDescription) decodes, but encodes back differently")
    }
    if let payload = try? Fixture.keyring.verify(text, at: Fixture.now),
       text != TicketCode.make(payload, signedWith: Fixture.key) {
        fatalError("accepted a code the totem did not make: \(text.debugDescription)")
    }
    return 0
}

/// With CLUP_FUZZ_WRITE_SEED=PATH, writes one genuine code to PATH and exits: the seed from
/// which the fuzzer mutates its way past Base45 and the payload to the signature check.
if let path = ProcessInfo.processInfo.environment["CLUP_FUZZ_WRITE_SEED"] {
    let payload = TicketPayload(store: 42, number: TicketNumber(totem: "A", lane: .regular, sequence: 17),
                                issuedAt: Fixture.issuedAt, validMinutes: 120)
    let code = TicketCode.make(payload, signedWith: Fixture.key)
    exit(FileManager.default.createFile(atPath: path, contents: Data(code.utf8)) ? 0 : 1)
}
exit(clup_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, { fuzzTicketCode($0, $1) }))
