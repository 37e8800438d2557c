/// How one of the kiosk's devices is doing: what its backend reports, and what `clupctl status`
/// and `devices` show.
public struct DeviceHealth: Codable, Sendable, Equatable {
    /// Whether the device can be used.
    public enum State: String, Codable, Sendable {
        case ok
        case missing
        case fault
    }

    /// What the device is for: `touchscreen`, `presence`, `turnstile`, `door-reader`, `display`, `voice`, `usb`.
    public let role: String
    /// Which backend drives it: `simulated`, `evdev`, `gpio`, `fbdev`, `alsa`, `libusb`, …
    public let backend: String
    public let state: State
    public let detail: String

    public init(role: String, backend: String, state: State, detail: String) {
        self.role = role
        self.backend = backend
        self.state = state
        self.detail = detail
    }
}
