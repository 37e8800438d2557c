import ArgumentParser
import ClupctlCommand
import CLupCore
import CLupHardware
import CLupKiosk
import CLupProtocol
import CLupStore
import Foundation

/// `clupd`: the CLup totem daemon.
struct Clupd: ParsableCommand {
    /// Sent to the hub at enrolment.
    static let version = ClupVersion.current

    static let configuration = CommandConfiguration(
        commandName: "clupd",
        abstract: "The CLup totem daemon: drives the kiosk's devices, keeps the queue and the occupancy ledger.",
        subcommands: [Run.self, Enrol.self, Keys.self, AptSourceCommand.self, UpdateCommand.self, Verify.self, Backup.self, ExampleConfig.self, ReplayTouch.self, EncodeEvents.self, ScannerKeys.self],
        defaultSubcommand: Run.self)
}

/// `clupd [run]`: the daemon itself.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the kiosk (the default).")

    @Flag(help: "Simulate every device the configuration does not name under [hardware], even with hardware.mode = \"linux\" (`clupctl sim` drives them).")
    var simulate = false

    @Option(help: "Directory for the database and keys (and the spool, unless --spool says).")
    var stateDir = StateDirectory.package

    @Option(help: "Configuration file (default: /etc/clup/clupd.toml if present).")
    var config: String?

    @Option(help: "Control socket for clupctl.")
    var socket = ControlClient.defaultSocketPath

    @Option(help: "Directory for each ticket's document until cupsd has it (default: STATE-DIR/spool; the package's is in the runtime directory, a tmpfs).")
    var spool: String?

    func run() throws {
        // The daemon's logger is one already; a library's `Logger(label:)` then is too.
        LineSafeLogHandler.bootstrap()
        MemoryPolicy.apply()
        // A pipe or socket whose reader is gone (a speech helper that exited early, a peer
        // that hung up) is an error where it is written, never the end of the daemon.
        signal(SIGPIPE, SIG_IGN)
        let options = DaemonOptions(stateDirectory: stateDir, configPath: config, socketPath: socket,
                                    simulate: simulate, spoolDirectory: spool)
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

/// `clupd enrol`: joins the totem to its store at the chain's hub, once, before clupd runs.
struct Enrol: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Enrol this totem at the chain's hub with a one-time code (run once, before clupd starts).")

    @Option(help: "The hub's address, https://HOST:PORT.") var hub: String
    @Option(help: "The one-time enrolment code (`clup-hub enrolment-code`).") var code: String
    @Option(help: "The hub's CA certificate (ca.pem, from `clup-hub init`).") var ca: String
    @Option(help: "Directory for the database and keys.") var stateDir = StateDirectory.package
    @Option(help: ArgumentHelp("How the keys are kept: sealed (to this machine, as root) or plain (files).",
                               discussion: "Default: sealed in the package's state folder, plain elsewhere."))
    var keys: TotemEnrolment.KeyStorage?
    @Flag(help: "Enrol anew a totem that was enrolled: its enrolment, keys and database are set aside in replaced-TIME/.")
    var again = false

    func run() throws {
        // Run as root, what it writes goes to the state folder's owner (clupd's user).
        defer { TotemEnrolment.handOver(directory: stateDir) }
        do {
            let storage = keys ?? (StateDirectory.isPackage(stateDir) ? .sealed : .plain)
            let enrolment = try TotemEnrolment.enrol(hub: hub, code: code, caFile: ca, directory: stateDir,
                                                     softwareVersion: Clupd.version, keys: storage, again: again)
            print("enrolled as \(enrolment.deviceID): store \(enrolment.storeID), totem \(enrolment.letter), door \(enrolment.door)")
            print("clupd numbers its events under that id and uploads them to \(enrolment.hub)")
            print("its keys are \(storage == .sealed ? "sealed to this machine (systemd credentials, \(SystemdCredentials.sealingKey))" : "files of mode 0600") in \(stateDir)")
        } catch {
            FileHandle.standardError.write(Data("clupd: \(error.code) \(error.message) (\(error.action))\n".utf8))
            throw ExitCode(1)
        }
    }
}

extension TotemEnrolment.KeyStorage: ExpressibleByArgument {}

/// `clupd keys`: the totem's keys sealed to this machine (root only).
struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Seal the totem's keys to this machine, or check that it opens them (as root).",
        subcommands: [Seal.self, Check.self, Unseal.self])

    /// Prints the lines `work` returns; an error goes to standard error with its code, and exit 1.
    static func say(_ work: () throws(CodedError) -> [String]) throws {
        do throws(CodedError) {
            for line in try work() { print(line) }
        } catch {
            FileHandle.standardError.write(Data("clupd: \(error.code) \(error.message) (\(error.action))\n".utf8))
            throw ExitCode(1)
        }
    }

    struct Seal: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Seal the keys as systemd credentials and check they open: a plain key file is sealed and erased; a ticket key is made if none (clup-keys.service runs this before clupd starts).")
        @Option(help: "Directory for the database and keys.") var stateDir = StateDirectory.package

        func run() throws { try Keys.say { () throws(CodedError) in try SealedKey.sealAll(in: stateDir) } }
    }

    struct Unseal: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the sealed keys back as plain files, for a downgrade to a release from before sealed keys (the package's prerm runs this).")
        @Option(help: "Directory for the database and keys.") var stateDir = StateDirectory.package

        func run() throws { try Keys.say { () throws(CodedError) in try SealedKey.unsealAll(in: stateDir) } }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that this machine opens the sealed keys, changing nothing.")
        @Option(help: "Directory for the database and keys.") var stateDir = StateDirectory.package

        func run() throws { try Keys.say { () throws(CodedError) in try SealedKey.checkAll(in: stateDir) } }
    }
}

/// `clupd apt-source`: makes apt take the totem's software from the chain's repository at
/// its hub, signed by the chain's release key (both from the enrolment). Run as root.
struct AptSourceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apt-source",
        abstract: "Write the apt source of the chain's repository, with its release key, from this totem's enrolment (as root).")

    @Option(help: "Directory for the database and keys.") var stateDir = StateDirectory.package
    @Option(help: "apt's configuration directory.") var aptDirectory = "/etc/apt"

    func run() throws {
        do throws(CodedError) {
            guard let enrolment = try TotemEnrolment.load(from: stateDir) else {
                throw CodedError(.notEnrolled, "\(stateDir) holds no enrolment: run clupd enrol first")
            }
            let source = try AptSource(enrolment: enrolment, stateDirectory: stateDir)
            for path in try source.write(apt: aptDirectory) { print("apt-source: \(path)") }
            print("apt-source: apt takes clup-totem from \(source.repository.absoluteString), signed by the chain's release key only")
        } catch {
            FileHandle.standardError.write(Data("clupd: \(error.code) \(error.message) (\(error.action))\n".utf8))
            throw ExitCode(1)
        }
    }
}

/// `clupd update`: the update helper's run (root; `clup-update.timer` starts it every minute).
struct UpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Install the clup-totem version the hub's rollout wants, when the entrance is idle; undo it if clupd does not come up healthy (as root).")

    @Option(help: "Directory for the database and keys.") var stateDir = StateDirectory.package
    @Option(help: "The helper's own directory (package cache, database copy).") var workDir = "/var/lib/clup-update"
    @Option(help: "clupd's control socket.") var socket = ControlClient.defaultSocketPath
    @Option(help: "apt's configuration directory.") var aptDirectory = "/etc/apt"
    @Option(help: "Seconds the new clupd has to come up healthy before it is undone.") var deadline = 180.0
    @Option(help: "The release keys the package ships, trusted at the first update (kept in --work-dir from then on).")
    var releaseKeys = TotemUpdater.shippedKeysPath

    func validate() throws {
        guard deadline.isFinite, (10...3600).contains(deadline) else { throw ValidationError("--deadline takes 10 to 3600 seconds") }
    }

    func run() throws {
        let system = DebianUpdateSystem(socketPath: socket, aptDirectory: aptDirectory, workDirectory: workDir)
        let updater = TotemUpdater(system: system, stateDirectory: stateDir, workDirectory: workDir, deadline: deadline,
                                   shippedKeys: releaseKeys, say: { print("update: \($0)") })
        // The daily check of the installed files first, whatever the update does or cannot
        // do, but never in the middle of an update (a run cut short finishes it first).
        if !updater.isPending, let report = IntegrityCheck.dpkg(stateDirectory: stateDir, workDirectory: workDir).runIfDue(now: Date()) {
            print("update: integrity check: \(report.summary)")
        }
        // The chain's apt source, from the enrolment, the first time (its key pinned from then on).
        if !FileManager.default.fileExists(atPath: AptSource.sourcePath(in: aptDirectory)) {
            do throws(CodedError) {
                guard let enrolment = try TotemEnrolment.load(from: stateDir) else {
                    print("update: not enrolled at a hub: nothing to update from")
                    return
                }
                try AptSource(enrolment: enrolment, stateDirectory: stateDir).write(apt: aptDirectory)
                print("update: the chain's apt source written into \(aptDirectory)")
            } catch where error.errorCode == .noReleaseKey {
                // A hub without a release key (older than fleet updates): nothing to update from, and nothing wrong.
                print("update: nothing to do: \(error.message) (\(error.action))")
                return
            } catch {
                FileHandle.standardError.write(Data("clupd: \(error.code) \(error.message) (\(error.action))\n".utf8))
                throw ExitCode(1)
            }
        }
        // A source written before pins gets its pin (nothing from the hub installed by apt on its own).
        if let enrolment = try? TotemEnrolment.load(from: stateDir), let source = try? AptSource(enrolment: enrolment, stateDirectory: stateDir),
           (try? source.writePreferencesIfMissing(apt: aptDirectory)) == true {
            print("update: apt's pin of the chain's hub written into \(aptDirectory)")
        }
        let outcome = updater.run()
        switch outcome {
        case let .nothingToDo(why): print("update: nothing to do: \(why)")
        case let .waiting(why): print("update: waiting: \(why)")
        case let .installed(version): print("update: clup-totem \(version) installed, clupd healthy")
        case let .rolledBack(version, because):
            print("update: clup-totem \(version) undone: \(because)")
            throw ExitCode(1)
        case let .failed(version, because):
            print("update: clup-totem \(version) failed: \(because)")
            throw ExitCode(1)
        case let .refused(version, because):
            print("update: clup-totem \(version) not installed, \(because)")
            throw ExitCode(1)
        }
    }
}

/// `clupd verify`: the integrity check of the installed package, now (the update helper
/// runs it once a day).
struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the installed clup-totem's files against the package (dpkg --verify), leave the report clupd sends to the hub.",
        discussion: "Exits 1 when a file changed or is missing (configuration files are not counted), 2 when the check could not run.")

    @Option(help: "Directory for the database and keys.") var stateDir = StateDirectory.package
    @Option(help: "The update helper's own directory (the time of the last check).") var workDir = "/var/lib/clup-update"
    @Option(help: "The root the package is installed under, as dpkg --root takes it.") var root = "/"

    func run() throws {
        let report = IntegrityCheck.dpkg(root: root, stateDirectory: stateDir, workDirectory: workDir).run(now: Date())
        print("verify: \(report.summary)")
        if report.problem != nil { throw ExitCode(2) }
        if !report.isClean { throw ExitCode(1) }
    }
}

/// `clupd backup`: a consistent copy of the database, taken while clupd runs (the package
/// runs it before an upgrade, before the new clupd migrates the database).
struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the database with SQLite's backup API (consistent while clupd runs; nothing is migrated).",
        discussion: "Without --to the copy goes to STATE_DIR/backups/, where the newest --keep copies are kept, "
            + "and the newest copy of each schema (the last one from before an upgrade).")

    @Option(help: "Directory for the database and keys.") var stateDir = StateDirectory.package
    @Option(help: "Where to write the copy (default: STATE_DIR/backups/clupd-TIME-SCHEMA.sqlite).") var to: String?
    @Option(help: "How many copies to keep in STATE_DIR/backups, the new one among them, besides the newest of each schema (1 to 100; not used with --to).")
    var keep = 3

    func validate() throws {
        guard (1...100).contains(keep) else { throw ValidationError("--keep takes 1 to 100") }
    }

    func run() throws {
        do {
            switch try TotemBackup.run(stateDirectory: stateDir, to: to, keep: keep) {
            case .noDatabase:
                print("backup: no database in \(stateDir), nothing to back up")
            case let .copied(copy, removed, pruneFailure):
                print("backup: \(copy.path): \(copy.tickets) tickets, \(copy.events) events, schema \(copy.schema ?? "none"), \(copy.bytes) bytes")
                for path in removed { print("backup: removed the older copy \(path)") }
                // The copy is made, which is what an upgrade waits for: a warning, not a failure.
                if let pruneFailure { FileHandle.standardError.write(Data("clupd: warning: \(pruneFailure)\n".utf8)) }
            }
        } catch {
            let coded = CodedError(describing: error)
            FileHandle.standardError.write(Data("clupd: \(coded.code) \(coded.message) (\(coded.action))\n".utf8))
            throw ExitCode(1)
        }
    }
}

/// `clupd example-config`: every key of clupd.toml with its default and what it is for.
struct ExampleConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "example-config", abstract: "Print a configuration file with every key, its default and what it is for.")

    func run() throws {
        print(KioskConfiguration.exampleFile, terminator: "")
    }
}

/// `clupd replay-touch DESC EVENTS`: a recorded touch panel through the live decoder.
struct ReplayTouch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay-touch",
        abstract: "Print the gestures of an evemu recording, one JSON line per contact (coordinates 0..1).")

    @Argument(help: "The evemu device description (.desc).") var description: String
    @Argument(help: "The evemu event recording (.events).") var events: String

    func run() throws {
        do {
            for gesture in try TouchReplay.gestures(of: try readRecording(description, events)) {
                print(TouchReplay.jsonLine(gesture))
            }
        } catch let error as EvemuRecording.ParseError {
            FileHandle.standardError.write(Data("clupd: \(error)\n".utf8))
            throw ExitCode(65)
        }
    }
}

/// The evemu files at `paths`, read in order; an unreadable file stops clupd with exit 66.
func readRecording(_ paths: String...) throws -> EvemuRecording {
    let texts: [String]
    do {
        texts = try paths.map { try String(contentsOfFile: $0, encoding: .utf8) }
    } catch {
        FileHandle.standardError.write(Data("clupd: cannot read the recording: \(error)\n".utf8))
        throw ExitCode(66)
    }
    var recording = try EvemuRecording(parsing: texts[0])
    for text in texts.dropFirst() { try recording.read(text) }
    return recording
}

/// `clupd encode-events RECORDING`: an evemu recording as the kernel's binary records, to
/// play into a device node stand-in (a FIFO) or check a decoder by hand.
struct EncodeEvents: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode-events", abstract: "Write an evemu recording's events as binary struct input_event to stdout.")

    @Argument(help: "The evemu recording (.events).") var recording: String

    func run() throws {
        do {
            let parsed = try readRecording(recording)
            FileHandle.standardOutput.write(Data(parsed.events.flatMap(InputEventStream.encode)))
        } catch let error as EvemuRecording.ParseError {
            FileHandle.standardError.write(Data("clupd: \(error)\n".utf8))
            throw ExitCode(65)
        }
    }
}

/// `clupd scanner-keys CODE`: the key events a keyboard-wedge scanner sends for CODE.
struct ScannerKeys: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scanner-keys", abstract: "Write the key events a wedge scanner types for CODE (and Enter) to stdout.")

    @Argument(help: "The code, as in the ticket's QR code.") var code: String
    @Option(help: "The scanner's keyboard layout, as xkb names it (us, de, it, fr, es, fr(oss)…).") var layout = "us"

    func run() throws {
        let keymap: Keymap
        do {
            keymap = try Keymap(layout)
        } catch {
            throw ValidationError(error.description)
        }
        guard let events = keymap.scannerEvents(typing: code, startingAt: Date().timeIntervalSince1970) else {
            throw ValidationError("the \(layout) layout cannot type every character of \"\(code)\"")
        }
        FileHandle.standardOutput.write(Data(events.flatMap(InputEventStream.encode)))
    }
}

// The package installs one binary for both commands: /usr/bin/clupctl is a link to clupd.
if ClupctlMain.isInvoked(as: CommandLine.arguments.first) { ClupctlMain.main() }
Clupd.main()
