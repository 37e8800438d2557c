import CFuzzDriver
import CLupIPP
import Foundation

/// Whatever comes back from the print server's socket, read as clupd reads it: an HTTP answer
/// taken in pieces, then its IPP body. The first byte picks what is checked:
/// - 0: the HTTP answer. Besides not crashing: an answer found whole stays the same when more
///   bytes follow it, and is found the same whichever prefix of the bytes was read first (the
///   client parses after every read).
/// - 1: the IPP body, and each job group read as the kiosk reads a job.
/// - 2: a request made of the input's text, which reads back as what was put in.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIPPAnswer(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: start + 1, count: count - 1))
    switch start.pointee % 3 {
    case 0: checkHTTP(bytes)
    case 1: checkIPP(bytes)
    default: checkRequest(bytes)
    }
    return 0
}

func checkHTTP(_ bytes: [UInt8]) {
    let limit = 4096
    let whole = try? HTTPAnswer.parse(bytes, atEnd: false, bodyLimit: limit)
    if let whole {
        guard (try? HTTPAnswer.parse(bytes + Array("HTTP/1.1 200 OK\r\n".utf8), atEnd: false, bodyLimit: limit)) == whole else {
            fatalError("an answer found whole changed when more bytes followed it")
        }
    }
    // Every prefix: nothing, or the same answer (a prefix can only be "not yet").
    if bytes.count <= 600 {
        for cut in stride(from: 0, to: bytes.count, by: 7) {
            if let early = try? HTTPAnswer.parse(Array(bytes[..<cut]), atEnd: false, bodyLimit: limit) {
                guard (try? HTTPAnswer.parse(bytes, atEnd: false, bodyLimit: limit)) == early else {
                    fatalError("an answer found in the first \(cut) bytes is not the one the whole gives")
                }
            }
        }
    }
    if let body = (try? HTTPAnswer.parse(bytes, atEnd: true, bodyLimit: limit))?.body {
        checkIPP(body)
    }
}

func checkIPP(_ bytes: [UInt8]) {
    guard let answer = try? IPPResponse(parsing: bytes) else { return }
    let attributes = answer.groups.reduce(0) { $0 + $1.attributes.count }
    // Each attribute takes 5 bytes at least (tag, two lengths): none is made up.
    guard attributes * 5 <= bytes.count else { fatalError("\(attributes) attributes from \(bytes.count) bytes") }
    for group in answer.groups(.job) {
        _ = group["job-id"]?.values.first?.integer
        _ = group["job-name"]?.values.first?.string
    }
}

func checkRequest(_ bytes: [UInt8]) {
    let words = String(decoding: bytes, as: UTF8.self).split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
    guard let first = words.first, !first.isEmpty, first.utf8.count < 32_000 else { return }
    var request = IPPRequest(operation: 0x0002, requestID: Int32(truncatingIfNeeded: bytes.count))
    let values = Array(words.dropFirst().filter { $0.utf8.count < 32_000 })
    if !values.isEmpty { request.add(.keyword, first, strings: values) }
    request.add(.integer, "count", integer: Int32(truncatingIfNeeded: bytes.count))
    guard let parsed = try? IPPResponse(parsing: request.encoded()) else { fatalError("a request clupd made does not read back") }
    if !values.isEmpty {
        let back = parsed.groups.first?.attributes[2]
        guard back?.name == first, back?.values == values.map(IPPValue.string) else {
            fatalError("\(first.debugDescription) = \(values) read back as \(String(describing: back))")
        }
    }
    guard parsed.first("count")?.values == [.integer(Int32(truncatingIfNeeded: bytes.count))] else { fatalError("the count changed") }
}

/// With CLUP_FUZZ_WRITE_SEED=DIR, writes seeds to DIR and exits: answers as cupsd frames
/// them (by length and in chunks) around a Get-Jobs answer, the body alone, and a request.
if let folder = ProcessInfo.processInfo.environment["CLUP_FUZZ_WRITE_SEED"] {
    var jobs = IPPRequest(operation: 0x0000, requestID: 3)
    jobs.add(.name, "job-name", "A-017-2026-11-22")
    jobs.add(.keyword, "job-state-reasons", strings: ["job-completed-successfully", "none"])
    jobs.add(.integer, "job-id", integer: 41)
    let body = jobs.encoded()
    let length = Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/ipp\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
    let chunked = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(String(body.count, radix: 16))\r\n".utf8) + body + Array("\r\n0\r\n\r\n".utf8)
    let seeds: [(String, [UInt8])] = [
        ("length", [0] + length), ("chunked", [0] + chunked), ("body", [1] + body),
        ("request", [2] + Array("requested-attributes\u{0}job-id\u{0}job-name".utf8)),
    ]
    for (name, seed) in seeds {
        guard FileManager.default.createFile(atPath: "\(folder)/\(name)", contents: Data(seed)) else { exit(1) }
    }
    exit(0)
}
exit(clup_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, { fuzzIPPAnswer($0, $1) }))
