import CLupCore
import CFramebuffer
import CLupDrawing
import Foundation

/// The screen as a Linux framebuffer (`/dev/fb0`: fbdev, or the fbdev emulation of a DRM
/// driver): frames are written into its mapped memory and the panel is powered down to
/// sleep. A framebuffer that could not be opened is tried again at the next frame.
public final class FramebufferDisplay: Display {
    public let path: String
    /// Used when `path` is not a framebuffer (ENOTTY): a file standing in for one, written
    /// in this layout (how tests and a headless bench look at what the screen shows).
    let assumedFormat: FramebufferFormat?
    /// How the picture is turned on its way to the panel.
    public let rotation: DisplayRotation
    /// The size screens are drawn at: the framebuffer's, or the configured screen size
    /// while it could not be opened; a new mode is taken up by `noticeSizeChange`.
    public private(set) var width: Int
    public private(set) var height: Int
    /// The picture's size the driver reports, in millimetres.
    public private(set) var physicalSizeMM: (width: Double, height: Double)?
    public private(set) var isAwake = false
    public private(set) var framesShown = 0
    private var mapped: Mapped?
    private var problem: String?

    /// An open, mapped framebuffer.
    private struct Mapped {
        let fd: Int32
        let memory: UnsafeMutableRawPointer
        let format: FramebufferFormat
        /// A real framebuffer (false: a file standing in for one, in `assumedFormat`).
        let isFramebuffer: Bool
        /// Its size in millimetres, where the driver knows it.
        var physicalSizeMM: (width: Double, height: Double)?
    }

    public init(path: String, fallbackWidth: Int, fallbackHeight: Int, assumedFormat: FramebufferFormat? = nil,
                rotation: DisplayRotation = .none) {
        self.path = path
        self.assumedFormat = assumedFormat
        self.rotation = rotation
        switch Self.map(path, assumedFormat: assumedFormat) {
        case let .success(mapped):
            self.mapped = mapped
            (width, height) = rotation.drawnSize(width: mapped.format.width, height: mapped.format.height)
            physicalSizeMM = rotation.turned(mapped.physicalSizeMM)
        case let .failure(problem):
            self.problem = problem.message
            width = fallbackWidth
            height = fallbackHeight
        }
    }

    deinit { unmap() }

    /// The framebuffer's layout, once it is open.
    public var format: FramebufferFormat? { mapped?.format }

    public var health: DeviceHealth {
        if let problem {
            return DeviceHealth(role: "display", backend: "fbdev", state: .missing, detail: "\(path): \(problem)")
        }
        if let format, rotation.drawnSize(width: format.width, height: format.height) != (width, height) {
            // It appeared, or changed mode: the next look lays the screens out again.
            return DeviceHealth(role: "display", backend: "fbdev", state: .fault,
                                detail: "\(path) is \(format.width)x\(format.height), the screens are still drawn at \(width)x\(height)")
        }
        return DeviceHealth(role: "display", backend: "fbdev", state: .ok,
                            detail: "\(path) \(format.map { "\($0)" } ?? ""), \(isAwake ? "awake" : "asleep"), \(framesShown) frames")
    }

    public func show(_ frame: Canvas) throws {
        let screen = try opened()
        guard rotation.drawnSize(width: screen.format.width, height: screen.format.height) == (Int(frame.width), Int(frame.height)) else {
            throw DisplayError(message: "a frame of \(Int(frame.width))x\(Int(frame.height)) for a screen of "
                + "\(screen.format.width)x\(screen.format.height) (it changed; the screens are laid out again)")
        }
        screen.format.draw(frame, into: screen.memory, rotation: rotation)
        if !isAwake { _ = clup_fb_blank(screen.fd, 0) }
        isAwake = true
        framesShown += 1
    }

    public func sleep() throws {
        let screen = try opened()
        memset(screen.memory, 0, screen.format.byteCount)
        // A file standing in for a framebuffer answers ENOTTY, a panel without power
        // management EINVAL; either way the screen is black.
        _ = clup_fb_blank(screen.fd, 1)
        isAwake = false
    }

    public func noticeSizeChange() -> Bool {
        guard let screen = try? opened() else { return false }
        let drawn = rotation.drawnSize(width: screen.format.width, height: screen.format.height)
        guard drawn != (width, height) else { return false }
        (width, height, physicalSizeMM) = (drawn.width, drawn.height, rotation.turned(screen.physicalSizeMM))
        return true
    }

    /// Why the framebuffer cannot be drawn on.
    public struct DisplayError: Error, CodedErrorConvertible {
        public let message: String
        public var coded: CodedError { CodedError(.displayFailed, "the display: \(message)") }
    }

    /// The mapped framebuffer, opened again if it was not, or if the driver changed its
    /// mode or went away since the last frame.
    private func opened() throws(DisplayError) -> Mapped {
        if let mapped {
            guard mapped.isFramebuffer else { return mapped }
            var geometry = clup_fb_geometry()
            if clup_fb_geometry(mapped.fd, &geometry) == 0 && Self.format(of: geometry) == mapped.format { return mapped }
            unmap()
        }
        switch Self.map(path, assumedFormat: assumedFormat) {
        case let .success(mapped):
            self.mapped = mapped
            problem = nil
            return mapped
        case let .failure(error):
            problem = error.message
            throw error
        }
    }

    private func unmap() {
        guard let mapped else { return }
        munmap(mapped.memory, mapped.format.byteCount)
        close(mapped.fd)
        self.mapped = nil
    }

    /// Opens the framebuffer at `path`, reads its layout and maps its screen.
    private static func map(_ path: String, assumedFormat: FramebufferFormat?) -> Result<Mapped, DisplayError> {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return .failure(DisplayError(message: String(cString: strerror(errno)))) }
        var geometry = clup_fb_geometry()
        let format: FramebufferFormat
        let isFramebuffer: Bool
        if clup_fb_geometry(fd, &geometry) == 0 {
            format = Self.format(of: geometry)
            isFramebuffer = true
            guard Int(geometry.memory_length) >= format.byteCount else {
                close(fd)
                return .failure(DisplayError(message: "\(format) needs \(format.byteCount) bytes, the driver has \(geometry.memory_length)"))
            }
        } else if errno == ENOTTY, let assumedFormat {
            format = assumedFormat
            isFramebuffer = false
            // A stand-in file must be large enough to map the whole screen.
            if lseek(fd, 0, SEEK_END) < assumedFormat.byteCount { _ = ftruncate(fd, off_t(assumedFormat.byteCount)) }
        } else {
            let reason = errno == ENOTTY ? "not a framebuffer" : String(cString: strerror(errno))
            close(fd)
            return .failure(DisplayError(message: reason))
        }
        if let reason = format.unsupportedReason {
            close(fd)
            return .failure(DisplayError(message: "\(format): \(reason)"))
        }
        let memory = mmap(nil, format.byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let memory, memory != MAP_FAILED else {
            let reason = String(cString: strerror(errno))
            close(fd)
            return .failure(DisplayError(message: "cannot map \(format.byteCount) bytes: \(reason)"))
        }
        // 0 (or ~0) where the driver does not know; beyond 2 m it is not a kiosk's panel.
        let millimetres = [geometry.width_mm, geometry.height_mm].map(Double.init)
        let physical = isFramebuffer && millimetres.allSatisfy({ (20...2000).contains($0) })
            ? (width: millimetres[0], height: millimetres[1]) : nil
        return .success(Mapped(fd: fd, memory: memory, format: format, isFramebuffer: isFramebuffer, physicalSizeMM: physical))
    }

    private static func format(of geometry: clup_fb_geometry) -> FramebufferFormat {
        FramebufferFormat(
            width: Int(geometry.width), height: Int(geometry.height), bitsPerPixel: Int(geometry.bits_per_pixel),
            lineLength: Int(geometry.line_length),
            red: .init(offset: Int(geometry.red_offset), length: Int(geometry.red_length)),
            green: .init(offset: Int(geometry.green_offset), length: Int(geometry.green_length)),
            blue: .init(offset: Int(geometry.blue_offset), length: Int(geometry.blue_length)))
    }
}
