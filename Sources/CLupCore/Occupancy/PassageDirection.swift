/// Which way a person went through the turnstile.
public enum PassageDirection: String, Codable, Sendable, CaseIterable {
    case entry = "in"
    case exit = "out"
}
