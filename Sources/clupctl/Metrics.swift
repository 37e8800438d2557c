import ArgumentParser
import CLupProtocol

/// `clupctl metrics`: clupd's figures as Prometheus text, for a node_exporter textfile
/// collector or whatever scrapes the fleet (the totem opens no port for it).
struct Metrics: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print clupd's metrics as Prometheus text: events by type, sync, queue, this door's places, printer, devices.")
    @OptionGroup var connection: Connection

    func run() throws {
        print(try connection.client.send(.metrics, expecting: String.self), terminator: "")
    }
}
