import Foundation

/// The text of the current `errno`.
func systemError() -> String {
    String(cString: strerror(errno))
}

/// A non-blocking, close-on-exec pipe: `(read end, write end)`.
func makeWakePipe() -> (read: Int32, write: Int32) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { preconditionFailure("pipe: \(systemError())") }
    for fd in ends {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    return (ends[0], ends[1])
}
