import CLupCore
import Foundation

/// An IIO proximity sensor read from sysfs (`/sys/bus/iio/devices/iio:deviceN/in_proximity_raw`)
/// a few times a second, with near/far hysteresis.
public final class IIOPresenceSensor: PresenceSensor {
    public var onChange: ((Bool) -> Void)?
    public let path: String
    let loop: DeviceRunLoop
    let interval: Double
    private var hysteresis: ProximityHysteresis
    private var lastReading: Int?
    private var problem: String?
    private var running = false

    public init(path: String, near: Int, far: Int, loop: DeviceRunLoop, interval: Double = 0.2) {
        self.path = path
        self.loop = loop
        self.interval = interval
        hysteresis = ProximityHysteresis(near: near, far: far)
    }

    public var health: DeviceHealth {
        if let problem {
            return DeviceHealth(role: "presence", backend: "iio", state: .missing, detail: "\(path): \(problem)")
        }
        return DeviceHealth(role: "presence", backend: "iio", state: .ok,
                            detail: "\(hysteresis.present ? "someone present" : "nobody"), reading \(lastReading.map(String.init) ?? "-")")
    }

    public func start() {
        guard !running else { return }
        running = true
        poll()
    }

    public func stop() {
        running = false
    }

    private func poll() {
        guard running else { return }
        if let text = try? String(contentsOfFile: path, encoding: .ascii),
           let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            problem = nil
            lastReading = value
            if let present = hysteresis.reading(value) { onChange?(present) }
        } else {
            // A sensor that stops answering must not keep the screen awake forever.
            problem = FileManager.default.fileExists(atPath: path) ? "unreadable value" : "No such file or directory"
            if hysteresis.present, let present = hysteresis.reading(Int.min) { onChange?(present) }
        }
        loop.after(interval) { [weak self] in self?.poll() }
    }
}
