import CLupHardware

extension Keymap {
    /// The US layout the tests' scanners type in (xkb-data comes with scripts/setup).
    static let us: Keymap = {
        guard let us = Keymap.named("us") else { fatalError("the tests need xkb-data's us layout") }
        return us
    }()
}
