import ArgumentParser
import CLupHub
import Foundation

/// `clup-hub release`: the chain's apt repository of totem software.
struct ReleaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release", abstract: "The chain's signed apt repository of clup-totem packages, served at /repo.",
        subcommands: [Add.self, List.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a clup-totem package to the repository and publish it signed with the chain's release key.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The .deb file (from scripts/package).") var file: String

        func run() async throws {
            try await refusing {
                let repository = ReleaseRepository(stateDirectory: try options.load().hub.stateDirectoryPath)
                let release = try repository.add(packageAt: file)
                print("release: \(release) published at \(ReleaseRepository.urlPath), suite \(ReleaseRepository.suite)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The packages of the repository, oldest version first.")
        @OptionGroup var options: ConfigOption

        func run() async throws {
            try await refusing {
                let repository = ReleaseRepository(stateDirectory: try options.load().hub.stateDirectoryPath)
                let releases = try repository.releases()
                if releases.isEmpty { print("release: the repository is empty") }
                for release in releases { print("\(release.package)\t\(release.version)\t\(release.architecture)") }
            }
        }
    }
}
