import CFuzzDriver
import CLupHardware
import Foundation

/// The layouts the wedge decoder is fuzzed in, made once (xkb-data is installed by scripts/setup).
let layouts: [Keymap] = ["us", "de", "it", "fr"].map { name in
    do {
        return try Keymap(name)
    } catch {
        fatalError("the fuzzer needs the keyboard layout \(name): \(error)")
    }
}

/// What a door reader sends, both kinds: with an even first byte, a keyboard-wedge
/// scanner's evdev byte stream decoded in the US, German, Italian or French layout (the
/// next two bits; dead keys and AltGr included) and left to time out; with an odd one, a
/// serial scanner's bytes in chunks 0.1 s apart. Besides not crashing: a code is never
/// empty nor longer than the decoder's limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDoorReader(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = UnsafeBufferPointer(start: start, count: count)
    guard let selector = bytes.first else { return 0 }
    let maximumLength = 512
    var outputs: [WedgeDecoder.Output] = []
    if selector & 1 == 0 {
        var stream = InputEventStream()
        var decoder = WedgeDecoder(keymap: layouts[Int(selector >> 1) & 3], maximumLength: maximumLength)
        var lastTime = 0.0
        for event in stream.feed(bytes.dropFirst()) {
            outputs += decoder.feed(event)
            lastTime = event.time
        }
        outputs += decoder.expire(at: lastTime + 10)
    } else {
        var decoder = LineDecoder(maximumLength: maximumLength)
        var time = 0.0
        var rest = bytes.dropFirst()
        while !rest.isEmpty {
            let size = Int(rest.first! % 64) + 1
            outputs += decoder.feed(rest.prefix(size), at: time)
            rest = rest.dropFirst(size)
            time += 0.1
        }
        outputs += decoder.expire(at: time + 10)
    }
    for output in outputs {
        if case let .code(code) = output, code.isEmpty || code.utf8.count > maximumLength * 4 {
            fatalError("a code of \(code.utf8.count) bytes")
        }
    }
    return 0
}

exit(clup_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, { fuzzDoorReader($0, $1) }))
