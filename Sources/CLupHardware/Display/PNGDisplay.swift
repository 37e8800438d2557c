import CLupCore
import CLupDrawing
import Foundation
import Synchronization

/// A simulated display that writes the frames it shows to a PNG file, so the screen can be
/// looked at (and tested) on a machine without one.
///
/// The current frame is at `directory/screen.png` once written; a sleeping display shows
/// black. Encoding a PNG takes a while, so frames are written on a queue of their own, the
/// newest one only: `show` returns at once, as a real display's does.
public final class PNGDisplay: Display {
    public let width: Int
    public let height: Int
    public let directory: String
    public private(set) var isAwake = false
    private let writing = DispatchQueue(label: "clup.display.png")
    private let frames = PendingFrames()

    /// A frame handed to the writing queue, never used by anyone else after.
    private struct Frame: @unchecked Sendable {
        let canvas: Canvas
    }

    /// The frame waiting to be written, and how many were written.
    private final class PendingFrames: Sendable {
        let state = Mutex<(next: Frame?, written: Int)>((nil, 0))
    }

    public init(width: Int, height: Int, directory: String) {
        self.width = width
        self.height = height
        self.directory = directory
    }

    /// The file holding what the screen shows now.
    public var currentFramePath: String { directory + "/screen.png" }

    public var health: DeviceHealth {
        DeviceHealth(role: "display", backend: "simulated", state: .ok,
                     detail: "\(width)x\(height) \(isAwake ? "awake" : "asleep"), \(frames.state.withLock { $0.written }) frames")
    }

    public func show(_ frame: Canvas) throws {
        write(frame)
        isAwake = true
    }

    public func sleep() throws {
        let black = try Canvas(width: width, height: height)
        black.fill(.black)
        write(black)
        isAwake = false
    }

    /// Returns once every frame shown so far is written (for tests).
    public func waitUntilWritten() {
        writing.sync {}
    }

    public func finishShowing() { waitUntilWritten() }

    private func write(_ canvas: Canvas) {
        let wasPending = frames.state.withLock { state in
            defer { state.next = Frame(canvas: canvas) }
            return state.next != nil
        }
        // A frame already waiting is replaced; the queued write takes the newest.
        guard !wasPending else { return }
        let (frames, directory, path) = (self.frames, self.directory, currentFramePath)
        writing.async {
            guard let frame = frames.state.withLock({ state in defer { state.next = nil }; return state.next }) else { return }
            // Written next to the current frame and renamed over, so a reader never sees half a PNG.
            let temporary = directory + "/.screen.png.tmp"
            guard (try? frame.canvas.writePNG(to: temporary)) != nil, rename(temporary, path) == 0 else { return }
            frames.state.withLock { $0.written += 1 }
        }
    }
}
