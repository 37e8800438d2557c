import ArgumentParser
import CLupProtocol

/// `clupctl metrics`: clupd's figures as Prometheus text, for a node_exporter textfile
/// collector or whatever scrapes the fleet (the totem opens no port for it).
struct Metrics: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print clupd's metrics as Prometheus text: events by type, sync, queue, this door's places, printer, devices.")
    @OptionGroup var connection: Connection
    @Flag(help: "Print JSON: each sample's name, labels and value.") var json = false

    struct Sample: Encodable {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    func run() throws {
        let text = try connection.client.send(Control.Metrics())
        guard json else { return print(text, terminator: "") }
        try printJSON(Self.samples(text))
    }

    /// The samples of Prometheus text: `name{label="value",…} number`; comments left out.
    static func samples(_ text: String) -> [Sample] {
        text.split(separator: "\n").compactMap { line -> Sample? in
            guard !line.hasPrefix("#"), let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                return nil
            }
            let series = line[..<space]
            guard let brace = series.firstIndex(of: "{") else { return Sample(name: String(series), labels: [:], value: value) }
            var labels: [String: String] = [:]
            for pair in series[series.index(after: brace)...].dropLast().split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { labels[String(parts[0])] = String(parts[1].dropFirst().dropLast()) }
            }
            return Sample(name: String(series[..<brace]), labels: labels, value: value)
        }
    }
}
