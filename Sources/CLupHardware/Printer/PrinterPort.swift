import CLupCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A USB printer's status lines: the byte the printer class's GET_PORT_STATUS request
/// answers (USB Printer Class 1.1, 4.2.2: a parallel port's status lines) and the kernel's
/// `usblp` passes on through `LPGETSTATUS`. CUPS's `usb` backend never asks for it, so a
/// printer out of paper is otherwise known only once a ticket fails.
public struct PrinterPortStatus: Equatable, Sendable {
    public let byte: UInt8

    public static let notError: UInt8 = 0x08, selected: UInt8 = 0x10, paperEmpty: UInt8 = 0x20

    public init(byte: UInt8) { self.byte = byte }

    public var paperOut: Bool { byte & Self.paperEmpty != 0 }
    /// Not selected: the printer is off line (its button, or a cover open on most models).
    public var offline: Bool { byte & Self.selected == 0 }
    /// The error line (a cover open, a jam, the cutter; most printers raise it with paper out too).
    public var error: Bool { byte & Self.notError == 0 }
    public var isReady: Bool { !paperOut && !offline && !error }

    /// As IPP names them (RFC 8011, printer-state-reasons), so they join cupsd's.
    public var reasons: [String] {
        (paperOut ? ["media-empty-error"] : []) + (offline ? ["offline-report"] : []) + (error && !paperOut ? ["other-error"] : [])
    }

    /// "paper in, on line, no error", or what is wrong.
    public var words: String {
        if isReady { return "paper in, on line, no error" }
        var parts: [String] = []
        if paperOut { parts.append("NO PAPER") }
        if offline { parts.append("OFF LINE") }
        if error { parts.append("ERROR") }
        let hint = paperOut ? "" : " (a cover open, a jam or the cutter)"
        return parts.joined(separator: ", ") + hint
    }
}

/// The port of a USB printer as `usblp` makes it (`/dev/usb/lp0`, linked `/dev/clup/printer`
/// by the udev rules), asked for its status lines. usblp lets one program open it at a time,
/// and CUPS's `usb` backend takes the printer from usblp while it prints (the node is gone
/// for the job's length), so the port is opened for each look and closed at once.
public enum PrinterPort {
    /// What a look found.
    public enum Reading: Equatable, Sendable {
        case status(PrinterPortStatus)
        /// The printer is there but in other hands: CUPS's backend printing, or another
        /// program with the port open. Its lines are as last read.
        case busy(String)
        /// No printer at the path (unplugged, or not yet found).
        case absent(String)
        /// The port is there but did not say (the printer does not answer, or access refused).
        case failed(String)
    }

    /// `LPGETSTATUS` (linux/lp.h).
    static let getStatus: UInt = 0x060B

    /// Reads the status lines of the port at `path`. `interface` is the sysfs folder of the
    /// printer's USB interface at the last good look: while it is still there and the node
    /// is not, CUPS's backend has the printer (busy), not a pulled cable. Blocks for as long
    /// as the printer takes to answer (usblp gives up after 5 s): call it off the loop.
    public static func read(path: String, interface: String?) -> (reading: Reading, interface: String?) {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            let why = String(cString: strerror(code))
            switch code {
            case ENOENT, ENODEV, ENXIO:
                if let interface, FileManager.default.fileExists(atPath: interface) {
                    return (.busy("the printer is in CUPS's hands (printing)"), interface)
                }
                return (.absent("\(path): \(why)"), nil)
            case EBUSY: return (.busy("another program has \(path) open"), interface)
            default: return (.failed("\(path): \(why)"), interface)
            }
        }
        defer { close(fd) }
        let found = usbInterface(of: fd) ?? interface
        var status: CInt = 0
        guard ioctl(fd, getStatus, &status) == 0 else {
            let code = errno
            if code == ENOTTY { return (.failed("\(path) is not a USB printer's port (usblp): it has no status lines"), found) }
            // usblp let go of the printer between the open and the ask (CUPS's backend took it).
            if code == ENODEV, let found, FileManager.default.fileExists(atPath: found) {
                return (.busy("the printer is in CUPS's hands (printing)"), found)
            }
            return (.failed("\(path): the printer did not give its status (\(String(cString: strerror(code))))"), found)
        }
        return (.status(PrinterPortStatus(byte: UInt8(truncatingIfNeeded: status))), found)
    }

    /// The sysfs folder of the USB interface behind the open character device `fd`.
    static func usbInterface(of fd: CInt) -> String? {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFCHR else { return nil }
        // glibc's major() and minor() are macros: the same arithmetic (sys/sysmacros.h).
        let rdev = UInt64(info.st_rdev)
        let major = ((rdev >> 8) & 0xFFF) | ((rdev >> 32) & ~0xFFF)
        let minor = (rdev & 0xFF) | ((rdev >> 12) & ~0xFF)
        let device = "/sys/dev/char/\(major):\(minor)/device"
        guard let resolved = realpath(device, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// The ticket printer's port, looked at every few seconds by the kiosk (off its loop): its
/// status lines, and its health as `clupctl status` lists it.
public final class PrinterPortWatch {
    public let path: String
    /// The last lines read, kept while CUPS has the printer; nil before any or once it is gone.
    public private(set) var status: PrinterPortStatus?
    public private(set) var reading: PrinterPort.Reading?
    /// The printer's USB interface in sysfs at the last look that found it (for `read`).
    public private(set) var interface: String?
    /// Looks in a row that found the printer in other hands.
    private var busyLooks = 0
    /// Lines kept through this many busy looks in a row are no longer trusted (a printer that
    /// usblp never got back: they would stop the tickets for good): a minute at a look
    /// every 2 s, longer than any ticket's job.
    public static let busyLooksTrusted = 30
    /// How a look is made: `PrinterPort.read` (another in tests).
    public let read: @Sendable (_ path: String, _ interface: String?) -> (reading: PrinterPort.Reading, interface: String?)

    public init(path: String,
                read: @escaping @Sendable (String, String?) -> (reading: PrinterPort.Reading, interface: String?) = PrinterPort.read) {
        self.path = path
        self.read = read
    }

    /// Takes what `PrinterPort.read` found (on the loop); true when what the port says changed.
    @discardableResult
    public func update(_ result: (reading: PrinterPort.Reading, interface: String?)) -> Bool {
        let before = (status, health.state)
        (reading, interface) = result
        switch result.reading {
        case let .status(lines): (status, busyLooks) = (lines, 0)
        case .busy:
            busyLooks += 1
            if busyLooks > Self.busyLooksTrusted { status = nil }
        case .absent, .failed: (status, busyLooks) = (nil, 0)
        }
        return before.0 != status || before.1 != health.state
    }

    /// Whether the printer says no ticket can come out now, and why: no paper, or an error.
    public var stopsTickets: PrinterPortStatus? {
        guard let status, !status.isReady else { return nil }
        return status
    }

    public var health: DeviceHealth {
        switch reading {
        case nil:
            return DeviceHealth(role: "printer", backend: "usblp", state: .missing, detail: "\(path): not looked at yet")
        case let .absent(why):
            return DeviceHealth(role: "printer", backend: "usblp", state: .missing, detail: why)
        case let .failed(why):
            return DeviceHealth(role: "printer", backend: "usblp", state: .fault, detail: why)
        case let .busy(why):
            let lines = status.map { "\($0.words) at the last look" } ?? "its lines not known while it is in other hands"
            return DeviceHealth(role: "printer", backend: "usblp", state: status.map { $0.isReady ? .ok : .fault } ?? .ok,
                                detail: "\(path): \(lines); \(why)")
        case let .status(lines):
            return DeviceHealth(role: "printer", backend: "usblp", state: lines.isReady ? .ok : .fault, detail: "\(path): \(lines.words)")
        }
    }
}
