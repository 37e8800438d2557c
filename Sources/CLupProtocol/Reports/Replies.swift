import Foundation

/// `clupctl screenshot`: the current screen as PNG bytes.
public struct ScreenshotReply: Codable, Sendable {
    public let png: Data

    public init(png: Data) {
        self.png = png
    }
}

/// What a simulated device event did.
public struct SimulationReply: Codable, Sendable {
    /// One sentence: what happened.
    public let outcome: String
    /// The screen shown afterwards.
    public let screen: String
    /// The ticket issued, when the event issued one.
    public let ticket: String?

    public init(outcome: String, screen: String, ticket: String?) {
        self.outcome = outcome
        self.screen = screen
        self.ticket = ticket
    }
}

/// `clupctl config show`: the configuration in force, as TOML.
public struct ConfigurationReport: Codable, Sendable {
    public let source: String
    public let toml: String

    public init(source: String, toml: String) {
        self.source = source
        self.toml = toml
    }
}
