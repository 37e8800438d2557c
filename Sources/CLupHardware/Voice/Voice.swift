/// The totem's spoken guidance. Implementations never block the caller (the daemon's event loop).
public protocol Voice: AnyObject {
    var health: DeviceHealth { get }
    /// Says `text` in `language` (an ISO 639-1 code: "en", "it", "de", "fr", "es"), replacing anything still being said.
    func say(_ text: String, language: String)
    /// Stops speaking at once (the screen went to sleep, the customer left).
    func silence()
    /// What was said last, for `clupctl status` (nil before anything was said).
    var lastUtterance: String? { get }
}
