import ArgumentParser
import CLupCore
import CLupHub
import CLupProtocol
import Foundation

/// `clup-hub release`: the chain's apt repository of totem software.
struct ReleaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release", abstract: "The chain's signed apt repository of clup-totem packages, served at /repo.",
        subcommands: [Add.self, Trust.self, Vouch.self, List.self])

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

    struct Trust: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Trust the chain's public release key (from clup-release keygen) for checking release manifests.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The public key file (release-key.pub: a line `clup-release-ed25519 BASE64`).") var file: String

        func run() async throws {
            try await refusing {
                let config = try options.load()
                guard let data = FileManager.default.contents(atPath: file), data.count <= 16_384 else {
                    throw CommandFailure(CodedError(.releaseSigningKeyUnusable, "cannot read \(file)"))
                }
                let keys = try ReleaseKey.list(String(decoding: data, as: UTF8.self))
                guard !keys.isEmpty else { throw CommandFailure(CodedError(.releaseSigningKeyUnusable, "\(file) holds no release key")) }
                for key in keys {
                    let new = try await changing(config, "release key \(key.id) trusted") { try await ReleaseManifests(database: $0).trust(key, by: .shell) }
                    print("release: \(key) \(new ? "trusted" : "was trusted already")")
                }
            }
        }
    }

    struct Vouch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a release manifest signed by the release manager (clup-release sign): rollouts may then name its version.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The signed manifest (a .manifest.json file).") var file: String

        func run() async throws {
            try await refusing {
                let config = try options.load()
                guard let data = FileManager.default.contents(atPath: file), data.count <= SignedReleaseManifest.maximumBytes else {
                    throw CommandFailure(CodedError(.releaseNotVouched, "cannot read \(file), or it is over \(SignedReleaseManifest.maximumBytes / 1024) KiB"))
                }
                let repository = ReleaseRepository(stateDirectory: config.hub.stateDirectoryPath)
                let manifest = try await changing(config, "release vouched for") {
                    try await ReleaseManifests(database: $0).vouch(data, repository: repository, by: .shell)
                }
                print("release: \(manifest.release) vouched for, \(manifest.packages.count) package(s), expires \(manifest.expires.formatted(.iso8601))")
                let folder = (file as NSString).deletingLastPathComponent
                for line in repository.publishDeltas(of: manifest, from: folder.isEmpty ? "." : folder) { print("release: \(line)") }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The packages of the repository, oldest version first, each with the manifest that vouches for it.")
        @OptionGroup var options: ConfigOption

        func run() async throws {
            try await refusing {
                let config = try options.load()
                let repository = ReleaseRepository(stateDirectory: config.hub.stateDirectoryPath)
                let releases = try repository.releases()
                let manifests = try await withDatabase(config) { try await ReleaseManifests(database: $0).held() }
                if releases.isEmpty { print("release: the repository is empty") }
                let now = Date()
                for release in releases {
                    let vouched = manifests.first { $0.version == release.version }.map { held in
                        (held.expires > now ? "vouched, expires " : "manifest EXPIRED ") + held.expires.formatted(.iso8601)
                            + " (key \(held.keyID))"
                    } ?? "no signed manifest"
                    print("\(release.package)\t\(release.version)\t\(release.architecture)\t\(vouched)")
                }
            }
        }
    }
}

/// `clup-hub rollout`: a version of the repository going out to the fleet in stages.
struct RolloutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollout", abstract: "Roll a version of the repository out to the totems: canaries, shares of each store, all.",
        subcommands: [Start.self, Pause.self, Resume.self, Abort.self, Status.self])

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start a rollout (one is live at a time).")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The clup-totem version, as `clup-hub release list` shows it.") var version: String
        @Option(name: .customLong("canary"), help: "A canary totem's device id (1 to 20; repeat the option).") var canaries: [String] = []
        @Option(help: "The shares of each store's totems of the stages after the canaries, in %, rising (e.g. 10,50); every totem comes last.")
        var stages = "25"
        @Option(help: "How long every totem of a stage must run the version, heard from, before the next stage (minutes).")
        var healthyMinutes = 30.0

        func run() async throws {
            try await refusing {
                let config = try options.load()
                let shares = try stages.isEmpty ? [] : stages.split(separator: ",").map { part throws(CommandFailure) -> Int in
                    guard let share = Int(part.trimmingCharacters(in: .whitespaces)) else {
                        throw CommandFailure(CodedError(.badHubRequest, "--stages takes shares in % separated by commas, not \"\(part.prefix(8))\""))
                    }
                    return share
                }
                let available = ReleaseRepository(stateDirectory: config.hub.stateDirectoryPath).publishedVersions()
                let plan = Rollouts.Plan(version: version, canaries: canaries, shares: shares, healthySeconds: healthyMinutes * 60)
                let status = try await changing(config, "rollout of \(plan.version) started") {
                    try await Rollouts(database: $0).start(plan, available: available, by: .shell)
                }
                print(status.summary)
            }
        }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pause the live rollout: no totem not yet updated installs it.")
        @OptionGroup var options: ConfigOption
        @Option(help: "Why, in a line (kept in the audit).") var reason = "paused by an administrator"

        func run() async throws {
            try await refusing {
                print(try await changing(try options.load(), "rollout paused") { try await Rollouts(database: $0).pause(reason: reason, by: .shell) }.summary)
            }
        }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Resume a paused rollout at its stage.")
        @OptionGroup var options: ConfigOption

        func run() async throws {
            try await refusing {
                print(try await changing(try options.load(), "rollout resumed") { try await Rollouts(database: $0).resume(by: .shell) }.summary)
            }
        }
    }

    struct Abort: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End the live rollout: no totem is asked for its version any more.")
        @OptionGroup var options: ConfigOption

        func run() async throws {
            try await refusing {
                print(try await changing(try options.load(), "rollout aborted") { try await Rollouts(database: $0).abort(by: .shell) }.summary)
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The live rollout, else the last one.")
        @OptionGroup var options: ConfigOption

        func run() async throws {
            try await refusing {
                let status = try await withDatabase(try options.load()) { try await Rollouts(database: $0).status() }
                print(status?.summary ?? "rollout: none yet")
            }
        }
    }
}
