import CLupDrawing
import Foundation

/// A simulated display that writes every frame it shows to a PNG file, so the screen can be
/// looked at (and tested) on a machine without one.
///
/// The current frame is always at `directory/screen.png`; a sleeping display shows black.
public final class PNGDisplay: Display {
    public let width: Int
    public let height: Int
    public let directory: String
    public private(set) var isAwake = false
    public private(set) var framesShown = 0

    public init(width: Int, height: Int, directory: String) {
        self.width = width
        self.height = height
        self.directory = directory
    }

    /// The file holding what the screen shows now.
    public var currentFramePath: String { directory + "/screen.png" }

    public var health: DeviceHealth {
        DeviceHealth(role: "display", backend: "simulated", state: .ok,
                     detail: "\(width)x\(height) \(isAwake ? "awake" : "asleep"), \(framesShown) frames")
    }

    public func show(_ frame: Canvas) throws {
        try write(frame)
        isAwake = true
    }

    public func sleep() throws {
        let black = try Canvas(width: width, height: height)
        black.fill(.black)
        try write(black)
        isAwake = false
    }

    /// Writes next to the current frame and renames it over, so a reader never sees half a PNG.
    private func write(_ frame: Canvas) throws {
        let temporary = directory + "/.screen.png.tmp"
        try frame.writePNG(to: temporary)
        guard rename(temporary, currentFramePath) == 0 else {
            throw DrawingError.cairo(operation: "renaming \(temporary)", status: String(cString: strerror(errno)))
        }
        framesShown += 1
    }
}
