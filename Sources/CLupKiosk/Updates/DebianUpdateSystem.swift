import CLupCore
import CLupProtocol
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The update helper's machine: Debian's apt and dpkg, systemd's clupd unit, and clupd's
/// control socket.
public struct DebianUpdateSystem: TotemUpdater.System {
    public let socketPath: String
    /// apt's configuration directory, where `AptSource` put the chain's source.
    public let aptDirectory: String
    /// Where the helper keeps a sources folder with the chain's source alone, so that
    /// fetching a release refreshes that source only (the others may be out of reach).
    public let workDirectory: String

    public init(socketPath: String, aptDirectory: String, workDirectory: String) {
        self.socketPath = socketPath
        self.aptDirectory = aptDirectory
        self.workDirectory = workDirectory
    }

    static let environment = ["DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C.UTF-8"]

    /// dpkg's and dpkg-query's option for a system installed under `root` ("/": none).
    static func rooted(_ root: String) -> [String] { root == "/" ? [] : ["--root=\(root)"] }

    public func installedVersion() throws -> String? { try Self.installedVersion(root: "/") }

    /// The clup-totem version dpkg installed under `root` (its database there); nil if none.
    static func installedVersion(root: String) throws -> String? {
        let (status, output) = try Command.run("dpkg-query", rooted(root) + ["--show", "--showformat=${db:Status-Status} ${Version}",
                                                                            TotemUpdater.package])
        let fields = output.split(separator: " ")
        guard status == 0, fields.count == 2, fields[0] == "installed" else { return nil }
        return String(fields[1])
    }

    public func window() throws -> UpdateWindowReport {
        try ControlClient(socketPath: socketPath, timeoutSeconds: 10).send(Control.UpdateWindow())
    }

    public func fetch(_ version: String, into cache: String) throws -> String {
        let path = TotemUpdater.cachedPackage(version, in: cache)
        if FileManager.default.fileExists(atPath: path) { return path }
        // The chain's source alone, refreshed: apt checks its index against the release key.
        let sources = workDirectory + "/sources.d"
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
        let source = AptSource.sourcePath(in: aptDirectory)
        try? FileManager.default.removeItem(atPath: sources + "/clup.sources")
        try FileManager.default.createSymbolicLink(atPath: sources + "/clup.sources", withDestinationPath: source)
        // The helper's own, empty, preferences: the pin that keeps apt from installing anything
        // from the hub by itself does not stop this one download.
        let preferences = workDirectory + "/preferences.d"
        try FileManager.default.createDirectory(atPath: preferences, withIntermediateDirectories: true)
        let options = ["-o", "Dir::Etc::SourceList=/dev/null", "-o", "Dir::Etc::SourceParts=\(sources)",
                       "-o", "Dir::Etc::Preferences=/dev/null", "-o", "Dir::Etc::PreferencesParts=\(preferences)"]
        try Command.check("apt-get", ["-q", "update", "-o", "APT::Get::List-Cleanup=0"] + options, environment: Self.environment)
        // The package alone (no dependency: those come from Debian's own sources at the
        // install), checked by apt against the signed index, into a folder of its own.
        let download = workDirectory + "/download"
        try? FileManager.default.removeItem(atPath: download)
        try FileManager.default.createDirectory(atPath: download, withIntermediateDirectories: true)
        try Command.check("apt-get", ["-q", "download", "\(TotemUpdater.package)=\(version)"] + options,
                          environment: Self.environment, directory: download)
        guard let name = try FileManager.default.contentsOfDirectory(atPath: download)
            .first(where: { $0.hasPrefix("\(TotemUpdater.package)_") && $0.hasSuffix(".deb") })
        else { throw CodedError(.updateStepFailed, "apt fetched no \(TotemUpdater.package) \(version) into \(download)") }
        guard rename(download + "/" + name, path) == 0 else { throw CodedError(.updateStepFailed, "cannot keep \(path)") }
        return path
    }

    public func architecture() throws -> String {
        let (status, printed) = try Command.run("dpkg", ["--print-architecture"])
        let architecture = printed.trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0, !architecture.isEmpty else { throw CodedError(.updateStepFailed, "dpkg --print-architecture said nothing") }
        return architecture
    }

    /// Over apt's own https (`apt-helper download-file`: the hub's CA as the chain's apt
    /// source names it), from the repository the source names, stopped past `limit` bytes.
    public func fetchDelta(_ name: String, atMost limit: Int64, into directory: String) throws -> String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/debpatch") else { return nil }
        guard let text = try? String(contentsOfFile: AptSource.sourcePath(in: aptDirectory), encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("URIs: ") })
        else { return nil }
        let base = line.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let path = directory + "/" + name
        let status = try Command.download(base + "/" + DeltaName.urlPath(name), to: path, atMost: limit)
        guard status.fetched else {
            // None served (apt-helper says 404): nothing wrong, the package comes whole.
            if status.said.contains("404") { return nil }
            throw CodedError(.updateStepFailed, "the delta \(name) did not come: \(status.said.prefix(300))")
        }
        return path
    }

    /// debpatch runs the script a delta carries. The delta was checked against the signed
    /// manifest first; still, it runs as nobody, with no new privileges, in a folder of its
    /// own (under /var/tmp, private to the helper's unit), for 15 minutes at most.
    public func applyDelta(_ delta: String, making path: String) throws {
        var template = Array("/var/tmp/clup-delta-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CodedError(.updateStepFailed, "cannot make a folder in /var/tmp") }
        let folder = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let nobody: uid_t = 65_534
        let input = folder + "/delta.debdelta", output = folder + "/package.deb"
        try FileManager.default.copyItem(atPath: delta, toPath: input)
        guard chmod(folder, 0o700) == 0, chown(folder, nobody, nobody) == 0, chmod(input, 0o444) == 0 else {
            throw CodedError(.updateStepFailed, "cannot hand \(folder) to nobody")
        }
        try Command.check("setpriv", ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "--no-new-privs", "--",
                                      "env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "TMPDIR=\(folder)", "HOME=\(folder)",
                                      "LC_ALL=C.UTF-8", "timeout", "900", "debpatch", "-A", input, "/", output])
        try? FileManager.default.removeItem(atPath: path)
        if rename(output, path) != 0 { try FileManager.default.copyItem(atPath: output, toPath: path) }
        _ = chown(path, 0, 0)
        _ = chmod(path, 0o644)
    }

    /// Where the package installs clupd (clupctl is a link to it).
    static let clupdPath = "/usr/bin/clupd"

    public func keepClupd(at path: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        // A hard link costs nothing; on another file system, a copy.
        if link(Self.clupdPath, path) != 0 { try FileManager.default.copyItem(atPath: Self.clupdPath, toPath: path) }
    }

    public func putClupdBack(from path: String) throws {
        // Beside the installed one first (a link, else a copy), then renamed over it: clupd is
        // never missing, and never half-written.
        let beside = Self.clupdPath + ".clup-way-back"
        try? FileManager.default.removeItem(atPath: beside)
        if link(path, beside) != 0 { try FileManager.default.copyItem(atPath: path, toPath: beside) }
        guard rename(beside, Self.clupdPath) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: beside)
            throw CodedError(.updateStepFailed, "cannot put the kept clupd back in \(Self.clupdPath): \(reason)")
        }
    }

    public func install(_ path: String) throws {
        // A dpkg cut short (its journal in /var/lib/dpkg/updates) makes apt refuse everything
        // ("dpkg was interrupted"): its journal is replayed first, as apt asks.
        if let journal = try? FileManager.default.contentsOfDirectory(atPath: "/var/lib/dpkg/updates"), !journal.isEmpty {
            _ = try? Command.run("dpkg", ["--force-confold", "--configure", "-a"], environment: Self.environment)
        }
        try Command.check("apt-get", ["-q", "-y", "--allow-downgrades", "-o", "Dpkg::Options::=--force-confold", "install", path],
                          environment: Self.environment)
    }

    public func reinstall(_ path: String) throws {
        try Command.check("dpkg", ["--force-confold", "-i", path], environment: Self.environment)
    }

    public func clupdActive() -> Bool { (try? Command.run("systemctl", ["is-active", "--quiet", "clupd"]).status) == 0 }
    public func clupdUnit() -> TotemUpdater.UnitState {
        let properties = (try? Command.run("systemctl", ["show", "clupd", "clup-keys",
                                                         "--property=Id,ActiveState,NRestarts,ExecMainCode,ExecMainStatus"]))
            .map { $0.status == 0 ? $0.output : "" } ?? ""
        return Self.unitState(properties)
    }

    /// `systemctl show`'s KEY=VALUE lines read, a block per unit (clupd's, or one without an
    /// `Id`; then the units clupd needs, clup-keys: one of those failed stops clupd's start
    /// with no restart to count). An unknown or missing value reads as nothing failed: the
    /// deadline still holds.
    static func unitState(_ text: String) -> TotemUpdater.UnitState {
        var state = TotemUpdater.UnitState(state: "unknown", restarts: 0, lastExit: nil)
        for block in text.components(separatedBy: "\n\n") {
            var values: [Substring: Substring] = [:]
            for line in block.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                values[line[..<equals]] = line[line.index(after: equals)...]
            }
            guard !values.isEmpty else { continue }
            let status = values["ExecMainStatus"].flatMap { Int32($0) }
            // ExecMainCode is the waitid() si_code: 1 exited, 2 killed, 3 dumped core; 0 while none has ended.
            let lastExit: String? = switch (values["ExecMainCode"].flatMap { Int($0) }, status) {
            case (1, let status?): "exit status \(status)"
            case (2, let signal?), (3, let signal?): "signal \(signal)" + (Self.signalName(signal).map { " SIG\($0)" } ?? "")
            default: nil
            }
            let id = values["Id"].map(String.init) ?? "clupd.service"
            if id == "clupd.service" {
                state.state = values["ActiveState"].map(String.init) ?? "unknown"
                state.restarts = values["NRestarts"].flatMap { Int($0) } ?? 0
                state.lastExit = lastExit
            } else if values["ActiveState"] == "failed", state.neededFailed == nil {
                state.neededFailed = id + (lastExit.map { " (last \($0))" } ?? "")
            }
        }
        return state
    }

    static func signalName(_ signal: Int32) -> String? {
        switch signal {
        case SIGSEGV: "SEGV"
        case SIGABRT: "ABRT"
        case SIGKILL: "KILL"
        case SIGTERM: "TERM"
        case SIGILL: "ILL"
        case SIGBUS: "BUS"
        case SIGTRAP: "TRAP"
        default: nil
        }
    }
    public func stopClupd() throws { try Command.check("systemctl", ["stop", "clupd"]) }
    /// Starts clupd, even after a crash loop made systemd give up on it (its start limit).
    public func startClupd() throws {
        _ = try? Command.run("systemctl", ["reset-failed", "clupd"])
        try Command.check("systemctl", ["start", "clupd"])
    }
    public func sleep(seconds: Double) { Thread.sleep(forTimeInterval: seconds) }
    public func now() -> Date { Date() }
}

/// A program run to its end: its exit status and what it printed (both streams, the last
/// 64 KiB).
enum Command {
    static func run(_ tool: String, _ arguments: [String], environment: [String: String] = [:],
                    directory: String? = nil) throws -> (status: Int32, output: String) {
        let directories = ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        guard let executable = directories.map({ "\($0)/\(tool)" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw CodedError(.updateStepFailed, "\(tool) is not installed")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output.suffix(64 * 1024), as: UTF8.self))
    }

    /// Downloads `url` to `path` with apt's own transport and configuration (`apt-helper
    /// download-file`), stopped once the file passes `limit` bytes or after 10 minutes.
    static func download(_ url: String, to path: String, atMost limit: Int64) throws -> (fetched: Bool, said: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/lib/apt/apt-helper")
        process.arguments = ["-q", "download-file", url, path]
        process.environment = ProcessInfo.processInfo.environment.merging(DebianUpdateSystem.environment) { _, new in new }
        let said = NSTemporaryDirectory() + "clup-delta-\(UUID().uuidString).log"
        FileManager.default.createFile(atPath: said, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: said) }
        process.standardOutput = FileHandle(forWritingAtPath: said)
        process.standardError = process.standardOutput
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let started = Date()
        var over = false
        while process.isRunning {
            // apt writes into PATH, or into a partial file beside it.
            let written = [path, path + ".FAILED"].map(TotemUpdater.size).max() ?? 0
            if written > limit || Date().timeIntervalSince(started) > 600 {
                over = true
                process.terminate()
                break
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        process.waitUntilExit()
        let output = String(decoding: (FileManager.default.contents(atPath: said) ?? Data()).suffix(4096), as: UTF8.self)
        if over {
            try? FileManager.default.removeItem(atPath: path)
            return (false, "stopped: over \(limit) bytes, or 10 minutes")
        }
        let size = TotemUpdater.size(path)
        return (process.terminationStatus == 0 && size > 0 && size <= limit,
                output.split(separator: "\n").suffix(2).joined(separator: " | "))
    }

    /// Runs `tool`; a non-zero exit is an error with the last of what it said.
    static func check(_ tool: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil) throws {
        let (status, output) = try run(tool, arguments, environment: environment, directory: directory)
        guard status == 0 else {
            let said = output.split(separator: "\n").suffix(3).joined(separator: " | ")
            throw CodedError(.updateStepFailed, "\(tool) \(arguments.first { !$0.hasPrefix("-") } ?? "") exited \(status): \(said.prefix(400))")
        }
    }
}
