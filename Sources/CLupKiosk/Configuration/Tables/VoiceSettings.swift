import CLupConfig

/// `[voice]`: spoken guidance.
public struct VoiceSettings: ConfigTable {
    public static let table = "voice"
    public static let doc = "Spoken guidance (espeak-ng), in the first of tickets.languages."

    public var enabled = true
    public var wordsPerMinute = 160

    public init() {}

    public static let keys: [ConfigKey<VoiceSettings>] = [
        .flag("enabled", \.enabled, doc: "whether the totem speaks"),
        .integer("words_per_minute", \.wordsPerMinute, in: 80...450, doc: "how fast it speaks"),
    ]
}
