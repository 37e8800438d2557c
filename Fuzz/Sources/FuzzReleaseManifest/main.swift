import CFuzzDriver
import CLupCore
import CLupProtocol
import Crypto
import Foundation

/// Whatever a hub sends as a release manifest, checked as the totem's update helper checks
/// it. Besides not crashing: the only manifest the release key's check accepts is the
/// genuine one (its payload and signature as they were signed), so no mutation of it (or
/// anything else) gets a package installed.
enum Fixture {
    // libFuzzer calls the target from one thread, so these are never shared across threads.
    nonisolated(unsafe) static let key = try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 9, count: 32))
    /// Made for each input: a key's bytes (a `Data`) kept in a global are where LeakSanitizer
    /// sees no pointer to them, and it would call them leaked.
    static var trusted: [ReleaseKey] { [try! ReleaseKey(rawRepresentation: key.publicKey.rawRepresentation)] }
    static let issued = Date(timeIntervalSince1970: 1_800_000_000)
    static let now = issued.addingTimeInterval(3600)
    static let manifest = ReleaseManifest(
        release: "0.13.0",
        packages: [.init(name: "clup-totem", version: "0.13.0", architecture: "amd64", sha256: String(repeating: "ab", count: 32), size: 40_000_000)],
        issued: issued, expires: issued.addingTimeInterval(30 * 86_400), downgradeFrom: ["0.14.0"])
    nonisolated(unsafe) static let genuine = try! SignedReleaseManifest.sign(manifest, with: key)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReleaseManifest(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let data = Data(UnsafeBufferPointer(start: start, count: count))
    guard let envelope = try? SignedReleaseManifest(json: data) else { return 0 }
    _ = envelope.unverified()
    if let checked = try? envelope.verify(trusting: Fixture.trusted, now: Fixture.now) {
        guard checked == Fixture.manifest, envelope.payload == Fixture.genuine.payload else {
            fatalError("accepted a manifest the release key did not sign: \(String(decoding: data, as: UTF8.self).debugDescription)")
        }
    }
    return 0
}

/// With CLUP_FUZZ_WRITE_SEED=PATH, writes the genuine signed manifest to PATH and exits.
if let path = ProcessInfo.processInfo.environment["CLUP_FUZZ_WRITE_SEED"] {
    exit(FileManager.default.createFile(atPath: path, contents: Fixture.genuine.json) ? 0 : 1)
}
exit(clup_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, { fuzzReleaseManifest($0, $1) }))
