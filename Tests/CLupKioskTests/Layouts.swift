import CLupHardware

extension Keymap {
    /// The layouts the tests type with. xkb-data comes with libxkbcommon (scripts/setup):
    /// without it, the tests stop here and say so.
    static func layout(_ name: String) -> Keymap {
        do {
            return try Keymap(name)
        } catch {
            fatalError("the tests need the keyboard layout \(name): \(error)")
        }
    }

    static let us = layout("us")
}
