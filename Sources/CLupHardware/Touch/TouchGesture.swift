/// A finished gesture of one contact, in coordinates normalised to 0...1 of the panel.
public struct TouchGesture: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case tap
        case longPress = "long-press"
        case drag
    }

    public let kind: Kind
    public let x0, y0, x1, y1: Double
    /// How long the contact lasted, in milliseconds.
    public let milliseconds: Int

    public init(kind: Kind, x0: Double, y0: Double, x1: Double, y1: Double, milliseconds: Int) {
        self.kind = kind
        self.x0 = x0
        self.y0 = y0
        self.x1 = x1
        self.y1 = y1
        self.milliseconds = milliseconds
    }
}
