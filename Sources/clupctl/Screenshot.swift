import ArgumentParser
import CLupProtocol
import Foundation

/// `clupctl screenshot FILE`: what the screen shows now, as PNG.
struct Screenshot: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Save the current screen as a PNG file.")

    @OptionGroup var connection: Connection
    @Argument(help: "Where to write the PNG.") var file: String

    func run() throws {
        let reply = try connection.client.send(.screenshot, expecting: ScreenshotReply.self)
        try reply.png.write(to: URL(fileURLWithPath: file), options: .atomic)
        print(file)
    }
}
