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

/// The screen shown, as `clupctl screen` reports it: tests and technicians tap a button by name.
public struct ScreenReport: Codable, Sendable, Equatable {
    public struct Button: Codable, Sendable, Equatable {
        /// What `clupctl sim press` takes: "get-ticket", "language-it", "slot-2".
        public let name: String
        public let label: String
        /// Its rectangle in display pixels.
        public let x, y, width, height: Int

        public init(name: String, label: String, x: Int, y: Int, width: Int, height: Int) {
            self.name = name
            self.label = label
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    public let name: String
    /// The language it speaks and shows (ISO 639-1).
    public let language: String
    public let width, height: Int
    public let buttons: [Button]

    public init(name: String, language: String, width: Int, height: Int, buttons: [Button]) {
        self.name = name
        self.language = language
        self.width = width
        self.height = height
        self.buttons = buttons
    }
}
