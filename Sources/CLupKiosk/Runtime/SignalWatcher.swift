import Foundation

/// The write end of the pipe the signal handler writes to; set once before handlers exist.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Turns SIGTERM and SIGINT into a readable pipe the event loop watches (the self-pipe
/// trick), so shutdown runs as an ordinary handler rather than inside a signal handler.
enum SignalWatcher {
    static func install(on loop: EventLoop, signals: [Int32] = [SIGTERM, SIGINT],
                        handler: @escaping (Int32) -> Void) {
        let ends = makeWakePipe()
        signalPipeWriteEnd = ends.write
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipeWriteEnd, &byte, 1)
            }
            sigaction(number, &action, nil)
        }
        loop.watch(ends.read) {
            var byte: UInt8 = 0
            while read(ends.read, &byte, 1) == 1 {
                handler(Int32(byte))
            }
        }
    }
}
