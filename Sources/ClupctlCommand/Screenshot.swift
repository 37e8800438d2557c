import ArgumentParser
import CLupProtocol
import Foundation

/// `clupctl screenshot FILE`: what the screen shows now, as PNG.
struct Screenshot: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Save the current screen as a PNG file.")

    @OptionGroup var connection: Connection
    @Flag(help: "The calling board above the door (hardware.calling_display) rather than the customer's screen.")
    var doorScreen = false
    @Argument(help: "Where to write the PNG.") var file: String

    func run() throws {
        let reply = try connection.client.send(Control.Screenshot(doorScreen: doorScreen))
        try reply.png.write(to: URL(fileURLWithPath: file), options: .atomic)
        print(shown(file))
    }
}

/// `clupctl screen [--json]`: the screen shown, its language and its buttons, by name.
struct ScreenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screen", abstract: "Show the current screen, its language and its buttons (names for `clupctl sim press`).")

    @OptionGroup var connection: Connection
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let report = try connection.client.send(Control.Screen())
        if json { return try printJSON(report) }
        print("screen \(shown(report.name)) (\(shown(report.language))), \(report.width) × \(report.height) px")
        for button in report.buttons {
            print("  \(shown(button.name).padding(toLength: 14, withPad: " ", startingAt: 0)) \"\(shown(button.label))\" at "
                + "(\(button.x), \(button.y)) \(button.width) × \(button.height)")
        }
    }
}
