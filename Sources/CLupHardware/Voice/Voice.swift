import CLupCore

/// The totem's spoken guidance. Implementations never block the caller (the daemon's event loop).
public protocol Voice: AnyObject {
    var health: DeviceHealth { get }
    /// Says `text` in `language` (an ISO 639-1 code: "en", "it", "de", "fr", "es"), at the
    /// speed and loudness of `style`, replacing anything still being said.
    func say(_ text: String, language: String, style: SpeechStyle)
    /// Stops speaking at once (the screen went to sleep, the customer left).
    func silence()
    /// What was said last, for `clupctl status` (nil before anything was said).
    var lastUtterance: String? { get }
    /// Speaks into the personal headset (`true`), where the totem has a headset output, and
    /// not on the speaker; or back on the speaker.
    func route(toHeadset: Bool)
}

extension Voice {
    /// Says `text` at the usual speed and loudness.
    public func say(_ text: String, language: String) {
        say(text, language: language, style: .standard)
    }
}
