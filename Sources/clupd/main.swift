import ArgumentParser
import CLupKiosk
import Foundation

/// `clupd`: the CLup totem daemon.
struct Clupd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clupd",
        abstract: "The CLup totem daemon: drives the kiosk's devices, keeps the queue and the occupancy ledger.")

    @Flag(help: "Run every device as a simulated one (driven with `clupctl sim`).")
    var simulate = false

    @Option(help: "Directory for the database, keys and spool.")
    var stateDir = "/var/lib/clup"

    @Option(help: "Configuration file (default: /etc/clup/clupd.toml if present).")
    var config: String?

    @Option(help: "Control socket for clupctl.")
    var socket = ControlClient.defaultSocketPath

    func run() throws {
        let options = DaemonOptions(stateDirectory: stateDir, configPath: config, socketPath: socket,
                                    simulate: simulate)
        do {
            let daemon = try Daemon(options: options)
            let status = daemon.run()
            if status != 0 { throw ExitCode(status) }
        } catch let error as DaemonError {
            FileHandle.standardError.write(Data("clupd: \(error)\n".utf8))
            throw ExitCode(error.exitCode)
        }
    }
}

Clupd.main()
